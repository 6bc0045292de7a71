/**
 * The CRUD domain's templates: accounts (close, update, create, look up then close) in one or two gold calls;
 * replace, bulk tier, handover, cleanup in three to five.
 */
import type { Draft, GenRng, Template } from "../templates.js";
import type { JsonObj } from "../world/types.js";
import { accountId, accountsState, call, REASONS, REGIONS, TIERS } from "../vocab.js";

/** One or two gold calls. */
export const CRUD_SHORT: Template[] = [
  {
    name: "crud_close",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { ids, accounts } = accountsState(rng, split, rng.range(2, 5));
      const id = rng.pick(ids);
      const reason = rng.pick(REASONS);
      const instruction = rng.pick([
        `Archive account ${id} by closing it with reason ${reason}.`,
        `Deactivate user account ${id}; use reason ${reason}.`,
        `Close account ${id} (reason: ${reason}).`,
        `Please shut down customer account ${id} and record the reason ${reason}.`,
      ]);
      return {
        template: "crud_close",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [
          { op: "equals", path: `accounts.${id}.status`, value: "closed" },
          { op: "equals", path: `accounts.${id}.closed_reason`, value: reason },
        ],
        steps: [
          {
            call: call("close_account", { id, reason }),
            alternative: [call("update_account", { id, patch: { status: "closed", closed_reason: reason } })],
          },
        ],
      };
    },
  },
  {
    name: "crud_update_tier",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { ids, accounts } = accountsState(rng, split, rng.range(2, 5));
      const id = rng.pick(ids);
      const cur = (accounts[id] as JsonObj).tier;
      const tier = rng.pick(TIERS.filter((t) => t !== cur));
      const instruction = rng.pick([
        `Set the tier of account ${id} to ${tier}.`,
        `Update account ${id} so its tier is ${tier}.`,
        `Patch the subscription for account ${id}: tier=${tier}.`,
        `Move account ${id} to ${tier} tier.`,
      ]);
      return {
        template: "crud_update_tier",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [{ op: "map_value_equals", path: `accounts.${id}`, key: "tier", value: tier }],
        steps: [{ call: call("update_account", { id, patch: { tier } }) }],
      };
    },
  },
  {
    name: "crud_create",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { accounts } = accountsState(rng, split, rng.range(1, 4));
      let id = accountId(rng, split);
      while (accounts[id]) id = accountId(rng, split);
      const tier = rng.pick(TIERS);
      const withTier = rng.random() < 0.5;
      const instruction = withTier
        ? rng.pick([`Register a new customer account ${id} with tier ${tier}.`, `Create customer account ${id}; tier=${tier}.`])
        : rng.pick([`Add customer account ${id}.`, `Create a new account with id ${id}.`, `Register customer account ${id}.`]);
      const fields: JsonObj = withTier ? { id, tier } : { id };
      return {
        template: "crud_create",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [
          { op: "exists", path: `accounts.${id}` },
          ...(withTier ? [{ op: "map_value_equals", path: `accounts.${id}`, key: "tier", value: tier }] : []),
        ],
        steps: [{ call: call("create_account", { fields }) }],
      };
    },
  },
  {
    name: "crud_lookup_close",
    calls: 2,
    build: ({ rng, split }): Draft => {
      const { ids, accounts } = accountsState(rng, split, rng.range(2, 5));
      const id = rng.pick(ids);
      const reason = rng.pick(REASONS);
      const instruction = rng.pick([
        `Look up account ${id}, then close it with reason ${reason}.`,
        `Check account ${id} and deactivate it; reason ${reason}.`,
        `Review account ${id} before archiving it with reason ${reason}.`,
      ]);
      return {
        template: "crud_lookup_close",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [
          { op: "equals", path: `accounts.${id}.status`, value: "closed" },
          { op: "map_value_equals", path: `accounts.${id}`, key: "closed_reason", value: reason },
        ],
        steps: [
          { call: call("get_account", { id }), optional: true },
          {
            call: call("close_account", { id, reason }),
            alternative: [call("update_account", { id, patch: { status: "closed", closed_reason: reason } })],
          },
        ],
      };
    },
  },
];

const closeStep = (id: string, reason: string, achieves: number[]) => ({
  call: call("close_account", { id, reason }),
  alternative: [call("update_account", { id, patch: { status: "closed", closed_reason: reason } })],
  achieves,
});
const closedCriteria = (id: string, reason: string): JsonObj[] => [
  { op: "equals", path: `accounts.${id}.status`, value: "closed" },
  { op: "map_value_equals", path: `accounts.${id}`, key: "closed_reason", value: reason },
];
const tierCriterion = (id: string, tier: string): JsonObj => ({ op: "map_value_equals", path: `accounts.${id}`, key: "tier", value: tier });

function freshAccount(rng: GenRng, split: string, accounts: JsonObj): string {
  let id = accountId(rng, split);
  while (accounts[id] !== undefined) id = accountId(rng, split);
  return id;
}

/** Three to five gold calls, with data flow where a real workflow has it. */
export const CRUD_MULTISTEP: Template[] = [
  {
    name: "crud_replace_account",
    calls: 3,
    build: ({ rng, split }): Draft => {
      const { ids, accounts } = accountsState(rng, split, rng.range(2, 5));
      const old = rng.pick(ids);
      const id = freshAccount(rng, split, accounts);
      const tier = rng.pick(TIERS);
      const reason = rng.pick(REASONS);
      const instruction = rng.pick([
        `Account ${old} is being replaced: look up account ${old}, create account ${id} with tier ` +
          `${tier}, then close account ${old} with reason ${reason}.`,
        `Check account ${old}; register account ${id} with tier ${tier}; then deactivate account ${old} (reason ${reason}).`,
        `Migrate customer ${old}: review account ${old}, then create account ${id} with tier ` +
          `${tier}, then archive account ${old} with reason ${reason}.`,
      ]);
      return {
        template: "crud_replace_account",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [{ op: "exists", path: `accounts.${id}` }, tierCriterion(id, tier), ...closedCriteria(old, reason)],
        steps: [
          { call: call("get_account", { id: old }), optional: true },
          { call: call("create_account", { fields: { id, tier } }), achieves: [0, 1] },
          closeStep(old, reason, [2, 3]),
        ],
      };
    },
  },
  {
    name: "crud_bulk_tier",
    calls: 3,
    build: ({ rng, split }): Draft => {
      const { ids, accounts } = accountsState(rng, split, rng.range(3, 5));
      const [a, b] = rng.shuffle(ids) as [string, string];
      const tier = rng.pick(TIERS.filter((t) => t !== (accounts[a] as JsonObj).tier && t !== (accounts[b] as JsonObj).tier));
      const instruction = rng.pick([
        `Set the tier of account ${a} to ${tier}; then set the tier of account ${b} to ${tier}; finally look up account ${a} to confirm.`,
        `Upgrade account ${a} to tier ${tier}, upgrade account ${b} to tier ${tier}, then review account ${a}.`,
        `Move account ${a} to tier ${tier}; move account ${b} to tier ${tier}; check account ${a} afterwards.`,
      ]);
      return {
        template: "crud_bulk_tier",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [tierCriterion(a, tier), tierCriterion(b, tier)],
        steps: [
          { call: call("update_account", { id: a, patch: { tier } }), achieves: [0] },
          { call: call("update_account", { id: b, patch: { tier } }), achieves: [1] },
          { call: call("get_account", { id: a }), optional: true },
        ],
      };
    },
  },
  {
    name: "crud_handover",
    calls: 4,
    build: ({ rng, split }): Draft => {
      const { ids, accounts } = accountsState(rng, split, rng.range(2, 5));
      const old = rng.pick(ids);
      const id = freshAccount(rng, split, accounts);
      const region = rng.pick(REGIONS);
      const tier = rng.pick(TIERS);
      const reason = rng.pick(REASONS);
      const instruction = rng.pick([
        `Hand customer ${old} over to a new account: look up account ${old}, create account ${id} ` +
          `in region ${region}, set account ${id} to tier ${tier}, then close account ${old} with ` +
          `reason ${reason}.`,
        `Check account ${old}; register account ${id} with region ${region}; move account ${id} to ` +
          `tier ${tier}; close account ${old} (reason ${reason}).`,
      ]);
      return {
        template: "crud_handover",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [
          { op: "exists", path: `accounts.${id}` },
          { op: "equals", path: `accounts.${id}.region`, value: region },
          tierCriterion(id, tier),
          ...closedCriteria(old, reason),
        ],
        steps: [
          { call: call("get_account", { id: old }), optional: true },
          { call: call("create_account", { fields: { id, region } }), achieves: [0, 1] },
          { call: call("update_account", { id, patch: { tier } }), achieves: [2] },
          closeStep(old, reason, [3, 4]),
        ],
      };
    },
  },
  {
    name: "crud_cleanup",
    calls: 5,
    build: ({ rng, split }): Draft => {
      const { ids, accounts } = accountsState(rng, split, rng.range(3, 6));
      const [x, y, z] = rng.shuffle(ids) as [string, string, string];
      const [r1, r2] = [rng.pick(REASONS), rng.pick(REASONS)];
      const tier = rng.pick(TIERS.filter((t) => t !== (accounts[z] as JsonObj).tier));
      const instruction = rng.pick([
        `Account cleanup: look up account ${x} and close it with reason ${r1}; look up account ` +
          `${y} and close it with reason ${r2}; then move account ${z} to tier ${tier}.`,
        `Review account ${x}, then deactivate it (reason ${r1}); review account ${y}, then ` +
          `deactivate it (reason ${r2}); finally set account ${z} to tier ${tier}.`,
        `Check account ${x} and archive it with reason ${r1}, check account ${y} and archive it ` +
          `with reason ${r2}, then upgrade account ${z} to tier ${tier}.`,
      ]);
      return {
        template: "crud_cleanup",
        blind: false,
        instruction,
        initialState: { accounts },
        criteria: [...closedCriteria(x, r1), ...closedCriteria(y, r2), tierCriterion(z, tier)],
        steps: [
          { call: call("get_account", { id: x }), optional: true },
          closeStep(x, r1, [0, 1]),
          { call: call("get_account", { id: y }), optional: true },
          closeStep(y, r2, [2, 3]),
          { call: call("update_account", { id: z, patch: { tier } }), achieves: [4] },
        ],
      };
    },
  },
];
