/** The CRUD domain's templates: accounts (close, update, create, look up then close), in one or two gold calls. */
import type { Draft, Template } from "../templates.js";
import type { JsonObj } from "../world/types.js";
import { accountId, accountsState, call, REASONS, TIERS } from "../vocab.js";

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
