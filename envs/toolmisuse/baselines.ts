/**
 * Baseline agents over the official observation: heuristic, schema-repair and policy-aware
 * (reference §7), an instruction-parser, and the oracle (replays the validated gold).
 * They implement `OfficialAgent`, so they run both in the fast runner and through the Gym env.
 */
import type { TaskRecord } from "./dataset.js";
import type { OfficialAgent } from "./runner.js";
import { parseGoldSummary } from "./goldAgents.js";
import { isMutating } from "./toolTraits.js";
import { parseClauses, resolvePlanned, type PlannedCall } from "./parser.js";
import type { Json, JsonObj, OfficialAction, OfficialObservation, OfficialToolSchema } from "./world/types.js";
import { pyFloatStrict, pyIntStrict, pyStr, pyTruthy } from "./world/pyvalue.js";

/** Schema default per JSON type, as the official baselines fill missing arguments. */
export function defaultFor(type: string | undefined): Json {
  switch (type) {
    case "string":
      return "value";
    case "integer":
      return 1;
    case "number":
      return 1.0;
    case "boolean":
      return false;
    case "object":
      return {};
    case "array":
      return [];
    default:
      return null;
  }
}

/**
 * Upstream `cast_value` (reference §7): Python `str` / `int` / `float` / `bool` semantics, so
 * `str(True)` is "True", `int(2.5)` is 2 and `int("1.5")` raises (the caller then falls back to
 * the schema default, as upstream catches TypeError/ValueError).
 */
export function castValue(v: Json, target: string): Json {
  if (target === "string") return pyStr(v);
  if (target === "integer") return pyIntStrict(v);
  if (target === "number") return pyFloatStrict(v);
  if (target === "boolean") {
    if (typeof v === "string") {
      const s = v.trim().toLowerCase();
      if (["true", "1", "yes"].includes(s)) return true;
      if (["false", "0", "no"].includes(s)) return false;
    }
    return pyTruthy(v);
  }
  return v;
}

const ALIASES: Record<string, string> = { id: "doc_id", doc_id: "id", account_id: "id" };

function defaultsCall(schema: OfficialToolSchema): OfficialAction {
  const args: JsonObj = {};
  for (const f of schema.required) args[f] = defaultFor(schema.properties[f]?.type);
  return { tool_name: schema.name, args };
}

/** Rebuild the last failed call from its recorded (effective) arguments and the error. */
export function repairLastCall(obs: OfficialObservation): OfficialAction | null {
  const err = obs.last_error;
  const last = obs.transcript[obs.transcript.length - 1];
  if (!err || !last) return null;
  const schema = obs.tool_schemas.find((s) => s.name === last.tool_name);
  if (!schema) return null;
  const args: JsonObj = structuredClone(last.args);
  const d = err.details;
  if (err.code === "unknown_argument" && Array.isArray(d.unknown)) for (const f of d.unknown) delete args[String(f)];
  if (err.code === "missing_required_arg" && Array.isArray(d.missing)) {
    for (const fj of d.missing) {
      const f = String(fj);
      if (f in args) continue;
      const alias = ALIASES[f];
      if (alias !== undefined && alias in args) {
        args[f] = args[alias]!;
        delete args[alias];
      } else args[f] = defaultFor(schema.properties[f]?.type);
    }
  }
  if (err.code === "invalid_argument_type" && typeof d.arg === "string" && typeof d.expected === "string" && d.arg in args) {
    try {
      args[d.arg] = castValue(args[d.arg]!, d.expected);
    } catch {
      args[d.arg] = defaultFor(schema.properties[d.arg]?.type);
    }
  }
  for (const f of schema.required) if (!(f in args)) args[f] = defaultFor(schema.properties[f]?.type);
  return { tool_name: last.tool_name, args };
}

/** Tries each tool once in schema order with default arguments; never repairs. */
export class HeuristicAgent implements OfficialAgent {
  private tried = new Set<string>();
  reset(): void {
    this.tried = new Set();
  }
  act(obs: OfficialObservation): OfficialAction | null {
    const next = obs.tool_schemas.find((s) => !this.tried.has(s.name));
    if (!next) return null;
    this.tried.add(next.name);
    return defaultsCall(next);
  }
}

/** Repairs and re-issues a failed call; otherwise tries the next untried tool with defaults. */
export class SchemaRepairAgent implements OfficialAgent {
  protected tried = new Set<string>();
  reset(_task?: TaskRecord): void {
    this.tried = new Set();
  }
  act(obs: OfficialObservation): OfficialAction | null {
    return repairLastCall(obs) ?? this.fresh(obs);
  }
  protected fresh(obs: OfficialObservation): OfficialAction | null {
    const next = obs.tool_schemas.find((s) => !this.tried.has(s.name));
    if (!next) return null;
    this.tried.add(next.name);
    return defaultsCall(next);
  }
}

/**
 * Schema repair plus an authorization policy: a denied state-changing call is never
 * retried (that would be a repeated policy violation); the agent falls back to an untried
 * read-only tool or stops. Denied read-only calls are retried like any other error.
 */
export class PolicyAwareAgent extends SchemaRepairAgent {
  override act(obs: OfficialObservation): OfficialAction | null {
    const err = obs.last_error;
    const last = obs.transcript[obs.transcript.length - 1];
    if (err && last && err.code === "authz_denied" && isMutating(last.tool_name)) {
      const ro = obs.tool_schemas.find((s) => !this.tried.has(s.name) && !isMutating(s.name));
      if (!ro) return null;
      this.tried.add(ro.name);
      return defaultsCall(ro);
    }
    return super.act(obs);
  }
}

// ------------------------------------------------------------------ instruction parser
const q1 = (s: string): string | null => /'([^']+)'/.exec(s)?.[1] ?? null;

/**
 * Parse the instruction into an ordered list of calls (our templates and the v0.2 phrasings):
 * multi-step instructions (three or more actionable clauses) clause by clause, shorter ones by
 * whole-instruction patterns.
 */
export function parseInstruction(instruction: string, tools: readonly string[]): PlannedCall[] {
  const clauses = parseClauses(instruction, tools);
  if (clauses.length >= 3) return clauses;
  const s = instruction;
  const low = s.toLowerCase();
  const has = (t: string) => tools.includes(t);
  const plan: OfficialAction[] = [];
  if (has("close_account")) {
    const id = /\b([an][tdr]\d{5})\b/.exec(s)?.[1] ?? /account (?:with id )?([A-Za-z0-9_]+)/.exec(s)?.[1] ?? "value";
    const reason = /reason[: ]+([a-z_]+)/i.exec(s)?.[1];
    const tier = /tier(?:=|\s+is\s+|\s+to\s+|\s+)([a-z]+)(?:[.;]|$)/i.exec(s)?.[1] ?? /\bto ([a-z]+)(?: tier)?\.?$/i.exec(s)?.[1];
    if (/\b(look up|check account|review account)\b/.test(low)) plan.push({ tool_name: "get_account", args: { id } });
    if (/\b(clos|archiv|deactivat|shut down)/.test(low))
      plan.push({ tool_name: "close_account", args: { id, reason: reason ?? "user_request" } });
    else if (/\b(add|create|register)\b/.test(low))
      plan.push({ tool_name: "create_account", args: { fields: tier ? { id, tier } : { id } } });
    else if (tier) plan.push({ tool_name: "update_account", args: { id, patch: { tier } } });
    else plan.push({ tool_name: "get_account", args: { id } });
  } else if (has("get_doc")) {
    const id = /\b(d[tdr]\d{5})\b/.exec(s)?.[1];
    const query = q1(s);
    if (query !== null && /\b(search|find|look up)\b/.test(low))
      plan.push({ tool_name: "search_docs", args: { query, top_k: id ? 3 : 1 } });
    else if (!id && /search/.test(low)) plan.push({ tool_name: "search_docs", args: { query: "index", top_k: 1 } });
    if (id) plan.push({ tool_name: "get_doc", args: { doc_id: id } });
  } else if (has("write_file")) {
    const p = /(\/[A-Za-z0-9_\-./]+\.(?:md|txt))/.exec(s)?.[1];
    const folder = /\b(?:list|check the)\s+(\/[A-Za-z0-9_-]+)/i.exec(s)?.[1] ?? /e\.g\. (\/[A-Za-z0-9_-]+)/.exec(s)?.[1];
    const content = q1(s);
    if (folder || (!p && /\b(list|listing|folder|workspace|directory)\b/.test(low)))
      plan.push({ tool_name: "list_dir", args: { path: folder ?? "/" } });
    if (p && content !== null && /\b(write|store|create file|create)\b/.test(low))
      plan.push({ tool_name: "write_file", args: { path: p, content } });
    else if (p) plan.push({ tool_name: "read_file", args: { path: p } });
  } else if (has("create_job")) {
    const cron = q1(s) && /cron|valid/.test(low) && !/command '/.test(low.split(q1(s)!)[0] ?? "") ? q1(s) : null;
    const cronEq = /cron=([^;]+);/.exec(s)?.[1] ?? /schedule '([^']+)'/.exec(s)?.[1] ?? null;
    const name = /job(?: named)?\s+([a-z0-9][a-z0-9-]*)/i.exec(s)?.[1];
    const command = /(?:command|running|run)\s+'([^']+)'/i.exec(s)?.[1];
    const c = cronEq ?? cron ?? "0 * * * *";
    if (/\b(validate|check whether|cron validation|valid)\b/.test(low)) plan.push({ tool_name: "validate_cron", args: { cron: c } });
    if (name && command) plan.push({ tool_name: "create_job", args: { name, cron: c, command } });
    if (plan.length === 0) plan.push({ tool_name: "list_jobs", args: {} });
  }
  return plan;
}

/**
 * Follows the parsed plan in order, repairing failed calls like schema-repair; after two
 * failures of the same step it moves on (the step may be skippable). Stops after the plan.
 */
export class InstructionParserAgent implements OfficialAgent {
  private plan: PlannedCall[] = [];
  private i = 0;
  private fails = 0;
  private started = false;
  reset(): void {
    this.plan = [];
    this.i = 0;
    this.fails = 0;
    this.started = false;
  }
  act(obs: OfficialObservation): OfficialAction | null {
    if (!this.started) {
      this.started = true;
      this.plan = parseInstruction(
        obs.instruction,
        obs.tool_schemas.map((t) => t.name),
      );
      return this.plan[0] ? resolvePlanned(this.plan[0], obs.transcript) : null;
    }
    if (obs.last_error) {
      this.fails += 1;
      if (this.fails < 2 || this.i === this.plan.length - 1)
        return repairLastCall(obs) ?? resolvePlanned(this.plan[this.i]!, obs.transcript);
    }
    this.i += 1;
    this.fails = 0;
    return this.plan[this.i] ? resolvePlanned(this.plan[this.i]!, obs.transcript) : null;
  }
}

/** Replays the hidden gold actions; falls back to the instruction parser when none exist. */
export class OracleAgent implements OfficialAgent {
  private gold: OfficialAction[] | null = null;
  private i = 0;
  private readonly fallback = new InstructionParserAgent();
  constructor(private readonly goldFor?: (task: TaskRecord) => OfficialAction[] | null) {}
  reset(task: TaskRecord): void {
    this.gold = this.goldFor?.(task) ?? parseGoldSummary(task.gold_summary);
    this.i = 0;
    this.fallback.reset();
  }
  act(obs: OfficialObservation): OfficialAction | null {
    if (!this.gold) return this.fallback.act(obs);
    const a = this.gold[this.i++];
    return a ? structuredClone(a) : null;
  }
}

export const BASELINE_NAMES = ["heuristic", "schema-repair", "policy-aware", "instruction-parser", "oracle"] as const;
export type BaselineName = (typeof BASELINE_NAMES)[number];

export function makeBaseline(name: BaselineName): OfficialAgent {
  switch (name) {
    case "heuristic":
      return new HeuristicAgent();
    case "schema-repair":
      return new SchemaRepairAgent();
    case "policy-aware":
      return new PolicyAwareAgent();
    case "instruction-parser":
      return new InstructionParserAgent();
    case "oracle":
      return new OracleAgent();
  }
}

// ------------------------------------------------------------------ registry adapters
/** What the adapters need from the env: the official observation and the current task. */
export interface OfficialView {
  officialObservation(): OfficialObservation;
  currentTask(): TaskRecord | null;
}

/**
 * Wraps an official agent as a registered policy: it reads the env's official observation
 * and maps `null` (the official "stop") to an `answer` action.
 */
export function officialPolicy<Obs extends { step: number }, Act>(
  name: string,
  view: OfficialView,
  agent: OfficialAgent,
): {
  name: string;
  reset(): void;
  act(obs: Obs): Act;
} {
  const start = () => {
    const task = view.currentTask();
    if (task) agent.reset(task);
  };
  return {
    name,
    reset: start,
    act(obs: Obs): Act {
      if (obs.step === 0) start();
      const a = agent.act(view.officialObservation());
      return (a ? { type: "tool_call", name: a.tool_name, arguments: a.args } : { type: "answer", content: "done" }) as Act;
    },
  };
}
