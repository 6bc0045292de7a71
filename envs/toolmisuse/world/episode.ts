/**
 * The official ToolMisuseBench harness (reference §3.4, §4) as a configuration of the engine's call pipeline:
 * budgets charged before anything else, the fault stage before validation (drift → authz → rate limit → timeout),
 * the official validator, the simulators, adversarial rewrites, every error charged to the retry budget, and the
 * transcript entry as each call's recorded response. The env and the scripted runner both run calls through
 * `ToolEpisode.call` with it, so there is one pipeline; the transcript is the engine's call records.
 */
import {
  type BudgetRules,
  type CallPipeline,
  type CallRecord,
  ConfigError,
  type EpisodeBudgets,
  type JsonObject,
  Rng,
  type StageOutcome,
  type ToolDefinition,
  ToolEpisode,
} from "../../../src/family.js";
import type { TaskRecord } from "../dataset.js";
import { FaultEngine, toolError, type UniformFactory } from "../faults.js";
import type { CompatMode, Json, JsonObj, OfficialAction, OfficialObservation, ToolError, TranscriptEntry } from "./types.js";
import { deepCopy } from "./types.js";
import { DOMAIN_TOOLSET, getToolset, officialSchemas, type Toolset, type ToolSpec } from "./toolsets.js";
import { validateCall } from "./validate.js";

/** Where in the pipeline a call's outcome came from. */
export type StepPhase = "ok" | "budget" | "injected" | "validation" | "simulator";

/** One call's outcome in the official terms, read from its engine record. */
export interface CallOutcome {
  output: JsonObj | null;
  error: ToolError | null;
  phase: StepPhase;
  /** 1-based global call index. */
  callIndex: number;
  /** Plan indices of the faults that fired, once each, in the order the official engine lists them. */
  firedPlanIndices: number[];
  /** The error before retry-overflow replacement (for metrics); null on success. */
  preOverflowError: ToolError | null;
  effectiveAction: OfficialAction;
}

/** A call's outcome and whether a budget ended the episode with it. */
export interface StepOutcome extends CallOutcome {
  terminated: boolean;
}

/** Tools that can stand in for each other when one fails persistently (their `meta.group`). */
export const ALT_GROUP: Readonly<Record<string, string>> = { close_account: "account_close", update_account: "account_close" };

/** A task record the simulators cannot run (typed, so callers and the bridge report the field). */
export class EpisodeSetupError extends ConfigError {
  constructor(message: string, field: string) {
    super(field, message);
  }
}

/** Pick the simulator: by domain (official), or by `toolset_id` so `mixed` works (fixed). */
export function resolveToolset(task: TaskRecord, compat: CompatMode): Toolset {
  if (task.domain === "mixed") {
    if (compat === "official")
      throw new EpisodeSetupError(`task '${task.task_id}': domain 'mixed' has no environment in the official harness`, "domain");
    const ts = getToolset(task.toolset_id);
    if (!ts) throw new EpisodeSetupError(`task '${task.task_id}': unknown toolset_id '${task.toolset_id}'`, "toolset_id");
    return ts;
  }
  return getToolset(DOMAIN_TOOLSET[task.domain])!;
}

/** The official budget rules: a call past the budget is charged and recorded; every error costs a retry. */
const BUDGET_RULES: BudgetRules = {
  calls: "record",
  retries: "errors",
  exceeded: { code: "budget_exceeded", message: "Episode budget exceeded.", details: {} },
  retryExceeded: (limit, replaced) => ({
    code: "retry_exceeded",
    message: "Retry budget exceeded.",
    details: { max_retries: limit, original_error_code: replaced.code },
  }),
};

/** The official transcript entry of a call: the arguments the simulator saw, and its output or error. */
function transcriptEntry(tool: string, args: JsonObject, outcome: StageOutcome): TranscriptEntry {
  return {
    tool_name: tool,
    args: deepCopy(args),
    output: outcome.ok ? deepCopy(outcome.output as JsonObj) : null,
    error: outcome.ok ? null : structuredClone(toolError(outcome.error)),
  };
}

/** The agent's view of a transcript entry: without fault metadata unless the env exposes it. */
export function agentEntry(entry: TranscriptEntry, exposeFaultMetadata: boolean): TranscriptEntry {
  if (exposeFaultMetadata) return structuredClone(entry);
  const out = entry.output ? deepCopy(entry.output) : null;
  if (out) delete out.faults;
  return { tool_name: entry.tool_name, args: deepCopy(entry.args), output: out, error: entry.error ? stripError(entry.error) : null };
}

/** What a task's episodes hand to the engine: tools, budgets and the official pipeline. */
export interface OfficialHarness {
  toolset: Toolset;
  /** Shared by every episode with the same toolset, domain and mode, and frozen (see `harnessTools`). */
  tools: readonly ToolDefinition<JsonObj>[];
  /** The tools' names in order (frozen, shared like `tools`). */
  names: readonly string[];
  budgets: EpisodeBudgets;
  pipeline: CallPipeline<JsonObj>;
}

// Per toolset, per "domain\0compat": the key space is the dataset's domain enum × 2 modes, so the cache stays small.
const definitions = new WeakMap<Toolset, Map<string, HarnessTools>>();

/** A toolset's engine definitions and their names, shared by every episode with the same toolset, domain and mode. */
interface HarnessTools {
  tools: readonly ToolDefinition<JsonObj>[];
  names: readonly string[];
}

/**
 * The engine definitions of a toolset's tools for one domain and mode, built once and frozen. A definition's simulator
 * reads the episode's world from `ctx.state` and holds nothing of an episode, so every episode hands out the same
 * objects: the engine's schema views, compiled samplers and a bridge session's already-sent schemas hit by identity.
 */
function harnessTools(toolset: Toolset, domain: string, compat: CompatMode): HarnessTools {
  let byKey = definitions.get(toolset);
  if (byKey === undefined) definitions.set(toolset, (byKey = new Map()));
  const key = `${domain}\u0000${compat}`;
  let entry = byKey.get(key);
  if (entry === undefined) {
    const tools = Object.freeze(toolset.tools.map((t) => toolDefinition(t, domain, compat)));
    entry = Object.freeze({ tools, names: Object.freeze(tools.map((t) => t.name)) });
    byKey.set(key, entry);
  }
  return entry;
}

function toolDefinition(t: ToolSpec, domain: string, compat: CompatMode): ToolDefinition<JsonObj> {
  const group = ALT_GROUP[t.schema.name];
  const def: ToolDefinition<JsonObj> = {
    name: t.schema.name,
    description: t.description,
    parameters: Object.freeze({
      type: "object",
      properties: t.schema.properties,
      required: t.schema.required,
      additionalProperties: false,
    }),
    meta: Object.freeze(group ? { mutates: t.mutates, domain, group } : { mutates: t.mutates, domain }),
    run: (args, ctx) => {
      const r = t.run(ctx.state, args as JsonObj, compat);
      return r.error ? { ok: false, error: r.error } : { ok: true, output: r.output };
    },
  };
  return Object.freeze(def);
}

export function officialHarness(task: TaskRecord, compat: CompatMode, faults: FaultEngine, exposeFaultMetadata: boolean): OfficialHarness {
  const toolset = resolveToolset(task, compat);
  const { tools, names } = harnessTools(toolset, task.domain, compat);
  const b = task.budget;
  return {
    toolset,
    tools,
    names,
    budgets: { steps: b.max_steps, toolCalls: b.max_tool_calls, retries: b.max_retries },
    pipeline: {
      order: "faults_first",
      validate: (tool, _def, args) => validateCall(toolset, { tool_name: tool, args: args as JsonObj }, compat),
      familyFaults: faults,
      // A retry or switch reacts to an error only (drifted calls can succeed); a switch leaves the previous call.
      patternRules: { failure: "error", switchFrom: "previous_call" },
      budgetRules: BUDGET_RULES,
      respond: (call, outcome) => transcriptEntry(call.tool, call.args, outcome),
      view: (response) => agentEntry(entryOf(response), exposeFaultMetadata),
    },
  };
}

/** A recorded response of this pipeline: the call's full transcript entry (see `officialHarness`). */
export function entryOf(response: CallRecord["response"]): TranscriptEntry {
  return response as TranscriptEntry;
}

/** The official transcript: one entry per recorded call. */
export function transcriptOf(calls: readonly CallRecord[]): TranscriptEntry[] {
  return calls.map((c) => entryOf(c.response));
}

const PHASE: Record<string, StepPhase> = { budget: "budget", fault: "injected", simulator: "simulator" };

/** A recorded call in the official terms. */
export function outcomeOf(record: CallRecord): CallOutcome {
  const entry = entryOf(record.response);
  const pre = record.overflowed === undefined ? entry.error : entryOf(record.overflowed).error;
  return {
    output: entry.output,
    error: entry.error,
    phase: record.errorSource === null ? "ok" : (PHASE[record.errorSource] ?? "validation"),
    callIndex: record.index,
    firedPlanIndices: record.faults.map((id) => Number(id.slice(0, id.indexOf(":")))),
    preOverflowError: pre,
    effectiveAction: { tool_name: entry.tool_name, args: entry.args },
  };
}

/** The official observation after `calls` (budgets floored at 0; fault metadata stripped unless exposed). */
export function officialObservation(
  task: TaskRecord,
  toolset: Toolset,
  calls: readonly CallRecord[],
  retries: number,
  exposeFaultMetadata: boolean,
): OfficialObservation {
  const b = task.budget;
  const transcript = transcriptOf(calls);
  const last = transcript[transcript.length - 1];
  const lastError = last?.error ?? null;
  return {
    instruction: task.instruction,
    tool_schemas: officialSchemas(toolset.id),
    transcript: transcript.map((t) => agentEntry(t, exposeFaultMetadata)),
    remaining_budget: {
      steps_left: Math.max(0, b.max_steps - calls.length),
      tool_calls_left: Math.max(0, b.max_tool_calls - calls.length),
      retries_left: Math.max(0, b.max_retries - retries),
    },
    last_error: lastError === null ? null : exposeFaultMetadata ? structuredClone(lastError) : stripError(lastError),
  };
}

/** A `ToolMisuseEpisode` snapshot. */
export interface HarnessSnapshot {
  data: ToolEpisode<JsonObj>["data"];
  faultStreams: Json[];
}

/**
 * One episode of the official harness without the Gym env (the scripted runner, gold validation, tests): the
 * engine's call pipeline under `officialHarness`, one call per step. The caller enforces the step limit, as the
 * official runner's loop does.
 */
export class ToolMisuseEpisode {
  readonly toolset: Toolset;
  readonly engine: ToolEpisode<JsonObj>;
  private readonly faults: FaultEngine;

  constructor(
    readonly task: TaskRecord,
    readonly compat: CompatMode,
    makeRng: UniformFactory,
    private readonly exposeFaultMetadata = false,
  ) {
    this.faults = new FaultEngine(task.fault_plan, task.seed, makeRng, compat);
    const harness = officialHarness(task, compat, this.faults, exposeFaultMetadata);
    this.toolset = harness.toolset;
    const { tools, names: visible, budgets, pipeline } = harness;
    // The official tools never draw from the call streams: the engine's stream is a fixed placeholder.
    const rng = new Rng("toolmisuse-harness");
    this.engine = new ToolEpisode<JsonObj>({ tools, visible, world: deepCopy(task.initial_state), rng, budgets, pipeline });
  }

  get state(): JsonObj {
    return this.engine.data.world;
  }
  get transcript(): TranscriptEntry[] {
    return transcriptOf(this.engine.data.calls);
  }
  get steps(): number {
    return this.engine.data.calls.length;
  }
  get toolCalls(): number {
    return this.engine.data.calls.length;
  }
  get retries(): number {
    return this.engine.data.retries;
  }

  /** Everything that changes during the episode, as plain JSON: the engine's episode data and the fault streams. */
  snapshot(): HarnessSnapshot {
    return structuredClone({ data: this.engine.data, faultStreams: this.faults.rngStates() as Json[] });
  }

  /** Continue from a snapshot of an episode of the same task (see `snapshot`). */
  restore(snap: HarnessSnapshot): void {
    this.engine.data = structuredClone(snap.data);
    this.faults.restoreRngStates(snap.faultStreams);
  }

  step(action: OfficialAction): StepOutcome {
    const r = this.engine.call(action.tool_name, action.args, this.steps + 1);
    return { ...outcomeOf(r.record!), terminated: r.end !== null };
  }

  observation(exposeFaultMetadata = this.exposeFaultMetadata): OfficialObservation {
    return officialObservation(this.task, this.toolset, this.engine.data.calls, this.engine.data.retries, exposeFaultMetadata);
  }
}

/** Remove injection metadata; keep `original_error_code` on `retry_exceeded`, where it is budget accounting. */
export function stripError(e: ToolError): ToolError {
  const details = deepCopy(e.details);
  delete details.faults;
  if (e.code !== "retry_exceeded") delete details.original_error_code;
  return { code: e.code, message: e.message, details };
}
