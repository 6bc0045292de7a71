/**
 * Task templates for our ToolMisuseBench-style generator: per domain, an instruction with
 * varied phrasings, an initial state, success criteria and the gold plan (ordered calls, some
 * optional, some with an alternative route). Shapes of ids, paths and phrasings follow what
 * was observed of the official v0.2 release (reference §1.5); the templates themselves are ours.
 */
import type { Json, JsonObj, OfficialAction } from "./world/types.js";
import {
  jobSpec,
  call,
  digits,
  TIERS,
  REASONS,
  WORDS,
  FOLDERS,
  accountId,
  accountsState,
  cronExpr,
  jobsState,
  filePath,
  filesState,
  docsState,
} from "./vocab.js";
import { MULTISTEP } from "./multistep.js";
import { TOOLSETS } from "./world/toolsets.js";

/** The subset of the core `Rng` the generator needs (structural, so the core class fits). */
export interface GenRng {
  derive(name: string | number): GenRng;
  random(): number;
  int(n: number): number;
  range(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
  weighted(weights: readonly number[]): number;
}

export type GenDomain = "crud" | "retrieval" | "files" | "scheduling";
export const GEN_DOMAINS: readonly GenDomain[] = ["crud", "retrieval", "files", "scheduling"];

export interface PlanStep {
  call: OfficialAction;
  /** May be skipped when it fails persistently; success criteria never depend on it. */
  optional?: boolean;
  /** Calls that achieve the same effect if this one fails persistently. */
  alternative?: OfficialAction[];
  /**
   * Indices of the success criteria this step makes true (the potential Φ counts required steps
   * with an unmet criterion). Omitted everywhere: all criteria belong to the last required step.
   */
  achieves?: number[];
}

export interface Draft {
  template: string;
  /** Solvable without reading the instruction (schema-order default calls), like v0.1's easy share. */
  blind: boolean;
  instruction: string;
  initialState: JsonObj;
  criteria: JsonObj[];
  steps: PlanStep[];
}

export interface TemplateCtx {
  rng: GenRng;
  split: string;
  index: number;
}

/** A task family: `calls` = gold calls on the clean path (1: easy; ≥ 2: medium and hard). */
export type Template = { name: string; calls: number; build: (c: TemplateCtx) => Draft };

// ------------------------------------------------------------------ templates
const crud: Template[] = [
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

const retrieval: Template[] = [
  {
    name: "retrieval_get",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { docs, target } = docsState(rng, split);
      const id = target.id;
      const instruction = rng.pick([
        `Get the full contents for doc id ${id}.`,
        `Fetch document ${id}.`,
        `Find document ${id}.`,
        `Open doc ${id} and read it.`,
      ]);
      return {
        template: "retrieval_get",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [{ op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: id }],
        steps: [{ call: call("get_doc", { doc_id: id }) }],
      };
    },
  },
  {
    name: "retrieval_search_top",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { docs, target, query } = docsState(rng, split);
      const instruction = rng.pick([
        `Search the documents for '${query}' and report the best match.`,
        `Run document search for '${query}' (top 1 result).`,
        `Find relevant documents for '${query}'.`,
      ]);
      return {
        template: "retrieval_search_top",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [{ op: "tool_output_path_equals", tool_name: "search_docs", output_path: "results.0.id", value: target.id }],
        steps: [{ call: call("search_docs", { query, top_k: 1 }) }],
      };
    },
  },
  {
    name: "retrieval_any_search",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { docs } = docsState(rng, split);
      const instruction = rng.pick([
        `Run a document search of your choice to check that the index responds.`,
        `Smoke-test the search service with any query.`,
        `Issue one search against the document index.`,
      ]);
      return {
        template: "retrieval_any_search",
        blind: true,
        instruction,
        initialState: { docs },
        criteria: [{ op: "successful_tool_call", tool_name: "search_docs", min_count: 1 }],
        steps: [{ call: call("search_docs", { query: rng.pick(WORDS), top_k: rng.range(1, 5) }) }],
      };
    },
  },
  {
    name: "retrieval_search_get",
    calls: 2,
    build: ({ rng, split }): Draft => {
      const { docs, target, query } = docsState(rng, split);
      const instruction = rng.pick([
        `Search for '${query}' and open the matching document (${target.id}).`,
        `Find the document about '${query}' — its id is ${target.id} — and fetch its full text.`,
        `Look up '${query}' in the docs, then get the full contents of doc ${target.id}.`,
      ]);
      return {
        template: "retrieval_search_get",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [
          { op: "successful_tool_call", tool_name: "get_doc", min_count: 1 },
          { op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: target.id },
        ],
        steps: [{ call: call("search_docs", { query, top_k: 3 }), optional: true }, { call: call("get_doc", { doc_id: target.id }) }],
      };
    },
  },
];

const files: Template[] = [
  {
    name: "files_read",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const files = filesState(rng, split);
      const path = rng.pick(Object.keys(files));
      const instruction = rng.pick([`Open and inspect ${path}.`, `Fetch content from ${path}.`, `Read file ${path}.`]);
      return {
        template: "files_read",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [{ op: "tool_output_path_equals", tool_name: "read_file", output_path: "path", value: path }],
        steps: [{ call: call("read_file", { path }) }],
      };
    },
  },
  {
    name: "files_write",
    calls: 1,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      let path = filePath(rng, split);
      while (files[path] !== undefined) path = filePath(rng, split);
      const content = `entry-${split}-${digits(rng, 5)}-${String(index % 1000).padStart(3, "0")}`;
      const instruction = rng.pick([
        `Store the text '${content}' at ${path}.`,
        `Create file ${path} with content '${content}'.`,
        `Write '${content}' to ${path}.`,
      ]);
      return {
        template: "files_write",
        blind: false,
        instruction,
        initialState: { files },
        // Paths contain dots, so a dotted state path cannot address them: use map_value_equals.
        criteria: [{ op: "map_value_equals", path: "files", key: path, value: content }],
        steps: [{ call: call("write_file", { path, content }) }],
      };
    },
  },
  {
    name: "files_list",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const files = filesState(rng, split);
      const folder = rng.pick(FOLDERS);
      const instruction = rng.pick([
        `Take a look at what is in the workspace (any folder listing will do).`,
        `List a directory to confirm the file service is reachable.`,
        `Show me a folder listing, e.g. ${folder}.`,
      ]);
      return {
        template: "files_list",
        blind: true,
        instruction,
        initialState: { files },
        criteria: [{ op: "successful_tool_call", tool_name: "list_dir", min_count: 1 }],
        steps: [{ call: call("list_dir", { path: folder }) }],
      };
    },
  },
  {
    name: "files_check_write",
    calls: 2,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      const folder = rng.pick(FOLDERS);
      let path = filePath(rng, split, folder);
      while (files[path] !== undefined) path = filePath(rng, split, folder);
      const content = `entry-${split}-${digits(rng, 5)}-${String(index % 1000).padStart(3, "0")}`;
      const instruction = rng.pick([
        `List ${folder}, then create file ${path} with content '${content}'.`,
        `Check the ${folder} folder and store the text '${content}' at ${path}.`,
      ]);
      return {
        template: "files_check_write",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [{ op: "map_value_equals", path: "files", key: path, value: content }],
        steps: [{ call: call("list_dir", { path: folder }), optional: true }, { call: call("write_file", { path, content }) }],
      };
    },
  },
];

const scheduling: Template[] = [
  {
    name: "sched_validate",
    calls: 1,
    build: ({ rng }): Draft => {
      const valid = rng.random() < 0.6;
      const cron = cronExpr(rng, valid);
      const instruction = rng.pick([
        `Validate cron expression '${cron}'.`,
        `Check whether '${cron}' is a valid cron schedule.`,
        `Run cron validation on '${cron}'.`,
      ]);
      return {
        template: "sched_validate",
        blind: false,
        instruction,
        initialState: { jobs: jobsState(rng) },
        criteria: [
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "cron", value: cron },
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "valid", value: valid },
        ],
        steps: [{ call: call("validate_cron", { cron }) }],
      };
    },
  },
  {
    name: "sched_create",
    calls: 1,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const j = jobSpec(rng);
      const instruction = rng.pick([
        `Create scheduler job ${j.name} with command '${j.command}' and cron=${j.cron};`,
        `Register job named ${j.name} to run '${j.command}' on schedule '${j.cron}'.`,
        `Add a cron job ${j.name}: command '${j.command}', cron=${j.cron};`,
      ]);
      return {
        template: "sched_create",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [{ op: "in", path: "jobs", value: { name: j.name, cron: j.cron, command: j.command } }],
        steps: [{ call: call("create_job", { name: j.name, cron: j.cron, command: j.command }) }],
      };
    },
  },
  {
    name: "sched_list",
    calls: 1,
    build: ({ rng }): Draft => ({
      template: "sched_list",
      blind: true,
      instruction: rng.pick([
        `List all scheduled jobs.`,
        `Show the current job schedule.`,
        `Which jobs are scheduled right now? List them.`,
      ]),
      initialState: { jobs: jobsState(rng) },
      criteria: [{ op: "successful_tool_call", tool_name: "list_jobs", min_count: 1 }],
      steps: [{ call: call("list_jobs", {}) }],
    }),
  },
  {
    name: "sched_validate_create",
    calls: 2,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const j = jobSpec(rng);
      const instruction = rng.pick([
        `Validate cron '${j.cron}' and then register job ${j.name} running '${j.command}'.`,
        `Check whether '${j.cron}' is valid, then create scheduler job ${j.name} with command '${j.command}'.`,
      ]);
      return {
        template: "sched_validate_create",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [{ op: "in", path: "jobs", value: { name: j.name, cron: j.cron, command: j.command } }],
        steps: [
          { call: call("validate_cron", { cron: j.cron }), optional: true },
          { call: call("create_job", { name: j.name, cron: j.cron, command: j.command }) },
        ],
      };
    },
  },
];

export const TEMPLATES: Record<GenDomain, Template[]> = {
  crud: [...crud, ...MULTISTEP.crud],
  retrieval: [...retrieval, ...MULTISTEP.retrieval],
  files: [...files, ...MULTISTEP.files],
  scheduling: [...scheduling, ...MULTISTEP.scheduling],
};

/** Schema-drift payload options per tool: some a schema-repair agent can undo, some it cannot. */
export function driftPayloads(tool: string): JsonObj[] {
  const add = (k: string, v: Json): JsonObj => ({ add_required: { [k]: v } });
  const ren = (a: string, b: string): JsonObj => ({ rename_args: { [a]: b } });
  switch (tool) {
    case "get_account":
    case "close_account":
    case "update_account":
      return [ren("id", "account_id"), add("audit_note", "auto")];
    case "create_account":
      return [ren("fields", "account"), add("region", "eu")];
    case "search_docs":
      return [{ type_changes: { top_k: "string" } }, add("lang", "en")];
    case "get_doc":
      return [ren("doc_id", "id"), add("include_body", true)];
    case "read_file":
    case "write_file":
      return [ren("path", "file_path"), add("encoding", "utf-8")];
    case "list_dir":
      return [ren("path", "dir"), add("recursive", false)];
    case "validate_cron":
      return [ren("cron", "expression"), add("timezone", "UTC")];
    case "create_job":
      return [ren("cron", "schedule"), ren("name", "job_name"), add("timezone", "UTC")];
    case "list_jobs":
      return [add("verbose", true)];
    default:
      return [add("extra", true)];
  }
}

/** Tools in a toolset that mutate state (for the policy-aware baseline and rewards). */
export function isMutating(tool: string): boolean {
  for (const ts of Object.values(TOOLSETS)) {
    const t = ts.tools.find((x) => x.schema.name === tool);
    if (t) return t.mutates;
  }
  return false;
}
