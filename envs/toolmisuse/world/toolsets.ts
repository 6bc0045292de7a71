/**
 * The four ToolMisuseBench toolsets: closed schemas plus deterministic simulators over
 * plain-data state. Behaviour follows the official environments (reference §2); the only
 * deliberate difference is `list_dir("/")` on absolute paths, fixed unless compat is "official".
 */
import type { CompatMode, Json, JsonObj, OfficialToolSchema, SimResult, ToolError } from "./types.js";
import { deepCopy, isObj } from "./types.js";
import { pyStr, pyTruthy } from "./pyvalue.js";

/** Python `str(x)` (re-exported: simulators, fault payloads and baselines share one definition). */
export { pyStr };

export type ToolsetId = "crud_v1" | "retrieval_v1" | "files_v1" | "scheduler_v1";
export const TOOLSET_IDS: readonly ToolsetId[] = ["crud_v1", "retrieval_v1", "files_v1", "scheduler_v1"];

/** The domain each toolset serves; the official runner picks the environment by domain. */
export const DOMAIN_TOOLSET: Record<"crud" | "retrieval" | "files" | "scheduling", ToolsetId> = {
  crud: "crud_v1",
  retrieval: "retrieval_v1",
  files: "files_v1",
  scheduling: "scheduler_v1",
};

type Sim = (state: JsonObj, args: JsonObj, compat: CompatMode) => SimResult;

export interface ToolSpec {
  schema: OfficialToolSchema;
  /** Human description, used only for OpenAI-style function rendering (not in the official schema). */
  description: string;
  /** Whether the tool changes state; hidden metadata used by the policy-aware baseline and rewards. */
  mutates: boolean;
  run: Sim;
}

export interface Toolset {
  id: ToolsetId;
  tools: ToolSpec[];
}

const ok = (output: JsonObj): SimResult => ({ output, error: null });
const err = (code: string, message: string): SimResult => ({ output: null, error: mkError(code, message) });

export function mkError(code: string, message: string, details: JsonObj = {}): ToolError {
  return { code, message, details };
}

function schema(
  name: string,
  props: Record<string, OfficialToolSchema["properties"][string]["type"]>,
  required: string[],
): OfficialToolSchema {
  const properties: OfficialToolSchema["properties"] = {};
  for (const [k, t] of Object.entries(props)) properties[k] = { type: t };
  return { name, properties, required, additionalProperties: false };
}

function ensureObj(state: JsonObj, key: string): JsonObj {
  const cur = state[key];
  if (isObj(cur)) return cur;
  const fresh: JsonObj = {};
  if (cur === undefined) state[key] = fresh;
  return cur === undefined ? fresh : ({} as JsonObj);
}

function ensureList(state: JsonObj, key: string): Json[] {
  const cur = state[key];
  if (Array.isArray(cur)) return cur;
  const fresh: Json[] = [];
  if (cur === undefined) state[key] = fresh;
  return fresh;
}

// ---------------------------------------------------------------- crud_v1
const crud: Toolset = {
  id: "crud_v1",
  tools: [
    {
      schema: schema("get_account", { id: "string" }, ["id"]),
      description: "Fetch one account record by id.",
      mutates: false,
      run: (state, args) => {
        const accounts = ensureObj(state, "accounts");
        const acc = accounts[pyStr(args.id)];
        if (acc === undefined || acc === null) return err("not_found", "Account not found.");
        return ok({ account: deepCopy(acc) });
      },
    },
    {
      schema: schema("update_account", { id: "string", patch: "object" }, ["id", "patch"]),
      description: "Shallow-merge a patch object into an existing account.",
      mutates: true,
      run: (state, args) => {
        const accounts = ensureObj(state, "accounts");
        const id = pyStr(args.id);
        const acc = accounts[id];
        if (!Object.hasOwn(accounts, id) || !isObj(acc)) return err("not_found", "Account not found.");
        const patch = isObj(args.patch) ? args.patch : {};
        for (const [k, v] of Object.entries(patch)) acc[k] = deepCopy(v);
        return ok({ account: deepCopy(acc) });
      },
    },
    {
      schema: schema("create_account", { fields: "object" }, ["fields"]),
      description: "Create an account from a fields object (id optional; status defaults to active).",
      mutates: true,
      run: (state, args) => {
        const accounts = ensureObj(state, "accounts");
        const fields: JsonObj = isObj(args.fields) ? deepCopy(args.fields) : {};
        const id = pyTruthy(fields.id) ? pyStr(fields.id) : `acct_${Object.keys(accounts).length + 1}`;
        if (Object.hasOwn(accounts, id)) return err("already_exists", "Account already exists.");
        fields.id = pyTruthy(fields.id) ? (fields.id as Json) : id;
        if (!Object.hasOwn(fields, "status")) fields.status = "active";
        accounts[id] = fields;
        return ok({ account: deepCopy(fields) });
      },
    },
    {
      schema: schema("close_account", { id: "string", reason: "string" }, ["id", "reason"]),
      description: "Close an account, recording the reason.",
      mutates: true,
      run: (state, args) => {
        const accounts = ensureObj(state, "accounts");
        const acc = accounts[pyStr(args.id)];
        if (acc === undefined || acc === null || !isObj(acc)) return err("not_found", "Account not found.");
        acc.status = "closed";
        acc.closed_reason = deepCopy(args.reason ?? null);
        return ok({ account: deepCopy(acc) });
      },
    },
  ],
};

// ---------------------------------------------------------------- retrieval_v1
/** Non-overlapping occurrence count, as Python's `str.count`. */
function countOccurrences(text: string, term: string): number {
  let n = 0;
  let at = text.indexOf(term);
  while (at !== -1) {
    n++;
    at = text.indexOf(term, at + term.length);
  }
  return n;
}

const retrieval: Toolset = {
  id: "retrieval_v1",
  tools: [
    {
      schema: schema("search_docs", { query: "string", top_k: "integer" }, ["query", "top_k"]),
      description: "Keyword search over documents; returns up to top_k hits with a score.",
      mutates: false,
      run: (state, args, compat) => {
        const docs = ensureList(state, "docs");
        const query = String(args.query).trim().toLowerCase();
        const topK = Math.max(1, Number(args.top_k));
        const terms = query.split(/\s+/).filter((t) => t.length > 0);
        const fieldText = (v: Json | undefined): string =>
          v === undefined ? "" : compat === "official" ? pyStr(v) : v === null ? "" : pyStr(v);
        const scored = docs.filter(isObj).map((doc, order) => {
          const text = `${fieldText(doc.title)} ${fieldText(doc.text)}`.toLowerCase();
          let score = 0;
          for (const t of terms) score += countOccurrences(text, t);
          return { score, id: doc.id === undefined ? "" : pyStr(doc.id), doc, order };
        });
        scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.order - b.order));
        const results: Json[] = scored
          .slice(0, topK)
          .filter((r) => r.score > 0)
          .map((r) => ({ id: r.doc.id ?? null, title: r.doc.title ?? null, score: r.score }));
        return ok({ results });
      },
    },
    {
      schema: schema("get_doc", { doc_id: "string" }, ["doc_id"]),
      description: "Fetch the full document with the given id.",
      mutates: false,
      run: (state, args) => {
        const docs = ensureList(state, "docs");
        for (const d of docs) if (isObj(d) && d.id === args.doc_id) return ok({ doc: deepCopy(d) });
        return err("not_found", "Document not found.");
      },
    },
  ],
};

// ---------------------------------------------------------------- files_v1
/** Python `len(str)` counts code points, not UTF-16 units. */
function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const files: Toolset = {
  id: "files_v1",
  tools: [
    {
      schema: schema("read_file", { path: "string" }, ["path"]),
      description: "Read a file's content by its full path.",
      mutates: false,
      run: (state, args) => {
        const fs = ensureObj(state, "files");
        const path = String(args.path);
        if (!Object.hasOwn(fs, path)) return err("not_found", "File not found.");
        return ok({ path, content: fs[path] ?? null });
      },
    },
    {
      schema: schema("write_file", { path: "string", content: "string" }, ["path", "content"]),
      description: "Create or overwrite a file.",
      mutates: true,
      run: (state, args) => {
        const fs = ensureObj(state, "files");
        const path = String(args.path);
        const content = String(args.content);
        fs[path] = content;
        return ok({ path, bytes_written: pyLen(content) });
      },
    },
    {
      schema: schema("list_dir", { path: "string" }, ["path"]),
      description: "List the immediate entries under a folder path.",
      mutates: false,
      run: (state, args, compat) => {
        const fs = ensureObj(state, "files");
        const given = String(args.path);
        const stripped = given.replace(/\/+$/, "");
        let prefix = stripped === "" || stripped === "/" ? "" : `${stripped}/`;
        // Official quirk: at the root the prefix is "" so "/a/b" yields the empty segment "".
        if (compat === "fixed" && prefix === "" && given.startsWith("/")) prefix = "/";
        const entries = new Set<string>();
        for (const p of Object.keys(fs)) {
          if (!p.startsWith(prefix)) continue;
          const rest = p.slice(prefix.length);
          if (rest.length === 0) continue;
          entries.add(rest.split("/", 1)[0] ?? "");
        }
        return ok({ path: given, entries: [...entries].sort() });
      },
    },
  ],
};

// ---------------------------------------------------------------- scheduler_v1
/** The official cron rule: five fields, each `*` or an integer 0–59 (no ranges/lists/steps). */
export function isValidCron(cron: string): boolean {
  const parts = cron
    .trim()
    .split(/\s+/)
    .filter((p) => p.length > 0);
  if (parts.length !== 5) return false;
  return parts.every((t) => t === "*" || (/^[0-9]+$/.test(t) && Number(t) <= 59));
}

const scheduler: Toolset = {
  id: "scheduler_v1",
  tools: [
    {
      schema: schema("create_job", { name: "string", cron: "string", command: "string" }, ["name", "cron", "command"]),
      description: "Register a scheduled job; the cron expression must be valid and the name unused.",
      mutates: true,
      run: (state, args) => {
        const jobs = ensureList(state, "jobs");
        const name = String(args.name);
        const cron = String(args.cron);
        if (!isValidCron(cron)) return err("invalid_cron", "Cron expression is invalid.");
        if (jobs.some((j) => isObj(j) && j.name === name)) return err("already_exists", "Job already exists.");
        const job: JsonObj = { name, cron, command: String(args.command) };
        jobs.push(job);
        // Stable sort by name, as Python's list.sort.
        const sorted = jobs
          .map((j, i) => ({ j, i }))
          .sort((a, b) => {
            const an = isObj(a.j) ? pyStr(a.j.name) : "";
            const bn = isObj(b.j) ? pyStr(b.j.name) : "";
            return an < bn ? -1 : an > bn ? 1 : a.i - b.i;
          });
        for (let i = 0; i < sorted.length; i++) jobs[i] = sorted[i]!.j;
        return ok({ job: deepCopy(job) });
      },
    },
    {
      schema: schema("validate_cron", { cron: "string" }, ["cron"]),
      description: "Check whether a cron expression is valid (never fails).",
      mutates: false,
      run: (_state, args) => ok({ cron: args.cron ?? null, valid: isValidCron(String(args.cron)) }),
    },
    {
      schema: schema("list_jobs", {}, []),
      description: "List all scheduled jobs.",
      mutates: false,
      run: (state) => ok({ jobs: deepCopy(ensureList(state, "jobs")) }),
    },
  ],
};

export const TOOLSETS: Record<ToolsetId, Toolset> = {
  crud_v1: crud,
  retrieval_v1: retrieval,
  files_v1: files,
  scheduler_v1: scheduler,
};

export function getToolset(id: string): Toolset | undefined {
  return Object.hasOwn(TOOLSETS, id) ? TOOLSETS[id as ToolsetId] : undefined;
}

/** The official schemas for a toolset, as shown to agents (a fresh copy each time). */
export function officialSchemas(id: ToolsetId): OfficialToolSchema[] {
  return TOOLSETS[id].tools.map((t) => structuredClone(t.schema));
}
