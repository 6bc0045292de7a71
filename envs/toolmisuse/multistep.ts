/**
 * Multi-step templates (3–5 gold calls) for medium and hard tasks: several per domain, each with
 * a different mix of reads, writes and verifications, and with data flow where a real workflow
 * has it (copying a file means reading it first). Every template has at least one optional or
 * routable step so a persistent fault can be placed where a careful agent can still succeed,
 * and each required step declares the criteria it makes true (`achieves`, for the potential Φ).
 */
import type { Draft, GenDomain, GenRng, Template } from "./templates.js";
import type { Json, JsonObj } from "./world/types.js";
import {
  docIdSource,
  FOLDERS,
  REASONS,
  REGIONS,
  TIERS,
  WORDS,
  accountId,
  accountsState,
  call,
  cronExpr,
  digits,
  filePath,
  filesState,
  jobSpec,
  jobsState,
  type Doc,
} from "./vocab.js";

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

const crud: Template[] = [
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

/** Documents with `k` targets, each findable by its own query words that no other doc contains. */
function docsMulti(r: GenRng, split: string, k: number): { docs: Doc[]; targets: { doc: Doc; query: string }[] } {
  const nextId = docIdSource(r, split);
  const words = r.shuffle(WORDS);
  const q = words.slice(0, 2 * k);
  const rest = words.slice(2 * k);
  const n = r.range(k + 3, k + 6);
  const at = r.shuffle(Array.from({ length: n }, (_, i) => i)).slice(0, k);
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const w = r.shuffle(rest);
    const j = at.indexOf(i);
    const title = j >= 0 ? `${q[2 * j]} ${q[2 * j + 1]} ${w[0]}` : `${w[0]} ${w[1]} ${w[2]}`;
    docs.push({ id: nextId(), title, text: `Notes on ${w[3]} and ${w[4]} for the ${w[5]} team.` });
  }
  const targets = at.map((i, j) => ({ doc: docs[i]!, query: r.random() < 0.5 ? `${q[2 * j]} ${q[2 * j + 1]}` : q[2 * j]! }));
  return { docs, targets };
}

const getCount = (n: number): JsonObj => ({ op: "successful_tool_call", tool_name: "get_doc", min_count: n });
const lastDoc = (id: string): JsonObj => ({ op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: id });

const retrieval: Template[] = [
  {
    name: "retrieval_open_pair",
    calls: 3,
    build: ({ rng, split }): Draft => {
      const { docs, targets } = docsMulti(rng, split, 1);
      const t = targets[0]!;
      const other = rng.pick(docs.filter((d) => d.id !== t.doc.id));
      const instruction = rng.pick([
        `Search for '${t.query}', open the matching document ${t.doc.id}, then open ${other.id} for comparison.`,
        `Look up '${t.query}' in the docs, fetch doc ${t.doc.id}, and then fetch doc ${other.id}.`,
        `Find the document about '${t.query}' (it is ${t.doc.id}) and read it; then read document ${other.id} last.`,
      ]);
      return {
        template: "retrieval_open_pair",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [getCount(1), getCount(2), lastDoc(other.id)],
        steps: [
          { call: call("search_docs", { query: t.query, top_k: 3 }), optional: true },
          { call: call("get_doc", { doc_id: t.doc.id }), achieves: [0] },
          { call: call("get_doc", { doc_id: other.id }), achieves: [1, 2] },
        ],
      };
    },
  },
  {
    name: "retrieval_two_searches",
    calls: 4,
    build: ({ rng, split }): Draft => {
      const { docs, targets } = docsMulti(rng, split, 2);
      const [a, b] = targets as [{ doc: Doc; query: string }, { doc: Doc; query: string }];
      const instruction = rng.pick([
        `Search for '${a.query}' and open ${a.doc.id}; then run a top 1 search for '${b.query}' and open the hit (${b.doc.id}).`,
        `Find '${a.query}' in the docs and fetch ${a.doc.id}, then look up '${b.query}' with a top 1 search and fetch ${b.doc.id}.`,
      ]);
      return {
        template: "retrieval_two_searches",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [
          getCount(1),
          { op: "tool_output_path_equals", tool_name: "search_docs", output_path: "results.0.id", value: b.doc.id },
          getCount(2),
          lastDoc(b.doc.id),
        ],
        steps: [
          { call: call("search_docs", { query: a.query, top_k: 3 }), optional: true },
          { call: call("get_doc", { doc_id: a.doc.id }), achieves: [0] },
          { call: call("search_docs", { query: b.query, top_k: 1 }), achieves: [1] },
          { call: call("get_doc", { doc_id: b.doc.id }), achieves: [2, 3] },
        ],
      };
    },
  },
  {
    name: "retrieval_dossier",
    calls: 5,
    build: ({ rng, split }): Draft => {
      const { docs, targets } = docsMulti(rng, split, 1);
      const t = targets[0]!;
      const [d2, d3, d4] = rng.shuffle(docs.filter((d) => d.id !== t.doc.id)) as [Doc, Doc, Doc];
      const instruction = rng.pick([
        `Pull the incident dossier: search for '${t.query}', open ${t.doc.id}, open ${d2.id}, open ` +
          `${d3.id}, and finish by opening ${d4.id}.`,
        `Search the docs for '${t.query}' and fetch ${t.doc.id}; then fetch ${d2.id}, then ${d3.id}, and fetch ${d4.id} last.`,
      ]);
      return {
        template: "retrieval_dossier",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [getCount(1), getCount(2), getCount(3), getCount(4), lastDoc(d4.id)],
        steps: [
          { call: call("search_docs", { query: t.query, top_k: 3 }), optional: true },
          { call: call("get_doc", { doc_id: t.doc.id }), achieves: [0] },
          { call: call("get_doc", { doc_id: d2.id }), achieves: [1] },
          { call: call("get_doc", { doc_id: d3.id }), achieves: [2] },
          { call: call("get_doc", { doc_id: d4.id }), achieves: [3, 4] },
        ],
      };
    },
  },
];

function freshPath(rng: GenRng, split: string, files: JsonObj, folder: string, taken: string[] = []): string {
  let p = filePath(rng, split, folder);
  while (files[p] !== undefined || taken.includes(p)) p = filePath(rng, split, folder);
  return p;
}
const fileText = (rng: GenRng, split: string, index: number) => `entry-${split}-${digits(rng, 5)}-${String(index % 1000).padStart(3, "0")}`;
const written = (path: string, content: Json): JsonObj => ({ op: "map_value_equals", path: "files", key: path, value: content });

const files: Template[] = [
  {
    name: "files_copy",
    calls: 3,
    build: ({ rng, split }): Draft => {
      const files = filesState(rng, split);
      const src = rng.pick(Object.keys(files).filter((p) => !p.endsWith("README.md")));
      const folder = rng.pick(FOLDERS);
      const dst = freshPath(rng, split, files, folder);
      const instruction = rng.pick([
        `Copy ${src} to ${dst}: list ${folder} first, read ${src}, then write its content to ${dst}.`,
        `Check the ${folder} folder, read ${src}, and store the same text at ${dst}.`,
      ]);
      return {
        template: "files_copy",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [{ op: "tool_output_path_equals", tool_name: "read_file", output_path: "path", value: src }, written(dst, files[src]!)],
        steps: [
          { call: call("list_dir", { path: folder }), optional: true },
          { call: call("read_file", { path: src }), achieves: [0] },
          { call: call("write_file", { path: dst, content: files[src]! }), achieves: [1] },
        ],
      };
    },
  },
  {
    name: "files_digest",
    calls: 4,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      const [a, b] = rng.shuffle(Object.keys(files)) as [string, string];
      const folder = rng.pick(FOLDERS);
      const out = freshPath(rng, split, files, folder);
      const content = fileText(rng, split, index);
      const instruction = rng.pick([
        `Prepare a digest: list ${folder}, read ${a}, read ${b}, then write '${content}' to ${out}.`,
        `Check the ${folder} folder; read ${a}; then read ${b}; finally store the text '${content}' at ${out}.`,
      ]);
      return {
        template: "files_digest",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [
          { op: "successful_tool_call", tool_name: "read_file", min_count: 1 },
          { op: "successful_tool_call", tool_name: "read_file", min_count: 2 },
          { op: "tool_output_path_equals", tool_name: "read_file", output_path: "path", value: b },
          written(out, content),
        ],
        steps: [
          { call: call("list_dir", { path: folder }), optional: true },
          { call: call("read_file", { path: a }), achieves: [0] },
          { call: call("read_file", { path: b }), achieves: [1, 2] },
          { call: call("write_file", { path: out, content }), achieves: [3] },
        ],
      };
    },
  },
  {
    name: "files_publish",
    calls: 5,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      const folder = rng.pick(FOLDERS);
      const a = freshPath(rng, split, files, folder);
      const b = freshPath(rng, split, files, folder, [a]);
      const ca = fileText(rng, split, index);
      const cb = fileText(rng, split, index + 1);
      const instruction = rng.pick([
        `Publish two notes in ${folder}: list ${folder}, write '${ca}' to ${a}, write '${cb}' to ` +
          `${b}, then read ${a} back, then read ${b} back to verify.`,
        `Check the ${folder} folder; create file ${a} with content '${ca}'; create file ${b} with ` +
          `content '${cb}'; read ${a} to verify; read ${b} to verify.`,
      ]);
      return {
        template: "files_publish",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [
          written(a, ca),
          written(b, cb),
          { op: "successful_tool_call", tool_name: "read_file", min_count: 1 },
          { op: "successful_tool_call", tool_name: "read_file", min_count: 2 },
          { op: "tool_output_path_equals", tool_name: "read_file", output_path: "content", value: cb },
        ],
        steps: [
          { call: call("list_dir", { path: folder }), optional: true },
          { call: call("write_file", { path: a, content: ca }), achieves: [0] },
          { call: call("write_file", { path: b, content: cb }), achieves: [1] },
          { call: call("read_file", { path: a }), achieves: [2] },
          { call: call("read_file", { path: b }), achieves: [3, 4] },
        ],
      };
    },
  },
];

const jobIn = (j: { name: string; cron: string; command: string }): JsonObj => ({
  op: "in",
  path: "jobs",
  value: { name: j.name, cron: j.cron, command: j.command },
});
const createStep = (j: { name: string; cron: string; command: string }, achieves: number[]) => ({
  call: call("create_job", { name: j.name, cron: j.cron, command: j.command }),
  achieves,
});

function twoJobs(rng: GenRng): [{ name: string; command: string; cron: string }, { name: string; command: string; cron: string }] {
  const a = jobSpec(rng);
  let b = jobSpec(rng);
  while (b.name === a.name) b = jobSpec(rng);
  return [a, b];
}

const scheduling: Template[] = [
  {
    name: "sched_create_pair",
    calls: 3,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const [a, b] = twoJobs(rng);
      const instruction = rng.pick([
        `Validate schedule '${a.cron}', then create job ${a.name} running '${a.command}' on ` +
          `schedule '${a.cron}', then create job ${b.name} running '${b.command}' on schedule ` +
          `'${b.cron}'.`,
        `Check whether '${a.cron}' is valid; register job ${a.name} to run '${a.command}' on ` +
          `schedule '${a.cron}'; register job ${b.name} to run '${b.command}' on schedule ` +
          `'${b.cron}'.`,
      ]);
      return {
        template: "sched_create_pair",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [jobIn(a), jobIn(b)],
        steps: [{ call: call("validate_cron", { cron: a.cron }), optional: true }, createStep(a, [0]), createStep(b, [1])],
      };
    },
  },
  {
    name: "sched_fallback_cron",
    calls: 4,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const j = jobSpec(rng);
      const bad = cronExpr(rng, false);
      const instruction = rng.pick([
        `Validate '${bad}'; it is not a valid cron, so validate '${j.cron}' instead, create job ` +
          `${j.name} running '${j.command}' on schedule '${j.cron}', then list the jobs.`,
        `The proposed schedule '${bad}' looks wrong: validate '${bad}', then validate the fallback ` +
          `'${j.cron}', then register job ${j.name} to run '${j.command}' on schedule '${j.cron}', ` +
          `and finally list all jobs.`,
      ]);
      return {
        template: "sched_fallback_cron",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "cron", value: j.cron },
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "valid", value: true },
          jobIn(j),
        ],
        steps: [
          { call: call("validate_cron", { cron: bad }), optional: true },
          { call: call("validate_cron", { cron: j.cron }), achieves: [0, 1] },
          createStep(j, [2]),
          { call: call("list_jobs", {}), optional: true },
        ],
      };
    },
  },
  {
    name: "sched_rollout",
    calls: 5,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const [a, b] = twoJobs(rng);
      const instruction = rng.pick([
        `Roll out two jobs: list the jobs, create job ${a.name} running '${a.command}' on schedule ` +
          `'${a.cron}', validate '${b.cron}', create job ${b.name} running '${b.command}' on ` +
          `schedule '${b.cron}', then list the jobs again to confirm both.`,
        `Show the current job schedule; register job ${a.name} to run '${a.command}' on schedule ` +
          `'${a.cron}'; check whether '${b.cron}' is valid; register job ${b.name} to run ` +
          `'${b.command}' on schedule '${b.cron}'; finally list all jobs.`,
      ]);
      return {
        template: "sched_rollout",
        blind: false,
        instruction,
        initialState: { jobs },
        // Index n+1 exists in a listing only once both new jobs are registered.
        criteria: [jobIn(a), jobIn(b), { op: "tool_output_path_exists", tool_name: "list_jobs", output_path: `jobs.${jobs.length + 1}` }],
        steps: [
          { call: call("list_jobs", {}), optional: true },
          createStep(a, [0]),
          { call: call("validate_cron", { cron: b.cron }), optional: true },
          createStep(b, [1]),
          { call: call("list_jobs", {}), achieves: [2] },
        ],
      };
    },
  },
];

export const MULTISTEP: Record<GenDomain, Template[]> = { crud, retrieval, files, scheduling };
