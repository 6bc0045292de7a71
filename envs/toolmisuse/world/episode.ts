/**
 * One ToolMisuseBench episode over a task record: budgets, the fixed fault/validation/
 * simulator order, retry accounting and the transcript (reference §3.4, §4). Pure and
 * deterministic: the result is a function of (task, compat, actions).
 */
import { ConfigError, type FaultSpec as EngineFaultSpec } from "../../../src/family.js";
import type { TaskRecord } from "../dataset.js";
import { FaultEngine, officialEvent, type FaultEvent, type UniformFactory } from "../faults.js";
import type { CompatMode, Json, JsonObj, OfficialAction, OfficialObservation, ToolError, TranscriptEntry } from "./types.js";
import { deepCopy } from "./types.js";
import { DOMAIN_TOOLSET, getToolset, officialSchemas, type Toolset, type ToolsetId } from "./toolsets.js";
import { validateCall } from "./validate.js";

/** Where in the pipeline a step's outcome came from. */
export type StepPhase = "ok" | "budget" | "injected" | "validation" | "simulator";

export interface StepOutcome {
  output: JsonObj | null;
  error: ToolError | null;
  terminated: boolean;
  phase: StepPhase;
  /** 1-based global call index of this step. */
  callIndex: number;
  /** Every fault event this step produced, in the order the official engine lists them. */
  faultEvents: FaultEvent[];
  /** The error before retry-overflow replacement (for metrics); null on success. */
  preOverflowError: ToolError | null;
  effectiveAction: OfficialAction;
}

/** Plain-JSON state of a running episode. */
export interface EpisodeSnapshot {
  state: JsonObj;
  transcript: TranscriptEntry[];
  steps: number;
  toolCalls: number;
  retries: number;
  lastError: ToolError | null;
  faultStreams: Json[];
}

/** A task record the simulators cannot run (typed, so callers and the bridge report the field). */
export class EpisodeSetupError extends ConfigError {
  constructor(message: string, field: string) {
    super(field, message);
  }
}

/** Pick the simulator: by domain (official), or by `toolset_id` so `mixed` works (fixed). */
export function resolveToolset(task: TaskRecord, compat: CompatMode): Toolset {
  if (task.domain === "mixed") {
    if (compat === "official") throw new EpisodeSetupError(`task '${task.task_id}': domain 'mixed' has no environment in the official harness`, "domain");
    const ts = getToolset(task.toolset_id);
    if (!ts) throw new EpisodeSetupError(`task '${task.task_id}': unknown toolset_id '${task.toolset_id}'`, "toolset_id");
    return ts;
  }
  return getToolset(DOMAIN_TOOLSET[task.domain])!;
}

export class ToolMisuseEpisode {
  readonly toolset: Toolset;
  state: JsonObj;
  readonly transcript: TranscriptEntry[] = [];
  steps = 0;
  toolCalls = 0;
  retries = 0;
  lastError: ToolError | null = null;
  private readonly engine: FaultEngine;

  constructor(readonly task: TaskRecord, readonly compat: CompatMode, makeRng: UniformFactory) {
    this.toolset = resolveToolset(task, compat);
    this.state = deepCopy(task.initial_state);
    this.engine = new FaultEngine(task.fault_plan, task.seed, makeRng, compat);
  }

  /** Everything that changes during the episode, as plain JSON (fault streams included). */
  snapshot(): EpisodeSnapshot {
    const snap: EpisodeSnapshot = {
      state: this.state,
      transcript: this.transcript,
      steps: this.steps,
      toolCalls: this.toolCalls,
      retries: this.retries,
      lastError: this.lastError,
      faultStreams: this.engine.rngStates() as Json[],
    };
    return structuredClone(snap);
  }

  /** Continue from a snapshot of an episode of the same task (see `snapshot`). */
  restore(snap: EpisodeSnapshot): void {
    const s = structuredClone(snap);
    this.state = s.state;
    this.transcript.splice(0, this.transcript.length, ...s.transcript);
    this.steps = s.steps;
    this.toolCalls = s.toolCalls;
    this.retries = s.retries;
    this.lastError = s.lastError;
    this.engine.restoreRngStates(s.faultStreams);
  }

  /** Plan entry `planIndex` as the engine's fault spec. */
  faultSpec(planIndex: number): EngineFaultSpec {
    return this.engine.engineSpec(planIndex);
  }

  get toolsetId(): ToolsetId {
    return this.toolset.id;
  }

  step(action: OfficialAction): StepOutcome {
    this.steps += 1;
    this.toolCalls += 1;
    const callIndex = this.toolCalls;
    const b = this.task.budget;
    const base = { callIndex, effectiveAction: action };
    if (this.steps > b.max_steps || this.toolCalls > b.max_tool_calls) {
      const error: ToolError = { code: "budget_exceeded", message: "Episode budget exceeded.", details: {} };
      this.record(action, null, error);
      return { ...base, output: null, error, terminated: true, phase: "budget", faultEvents: [], preOverflowError: error };
    }

    const pre = this.engine.beforeCall(action, callIndex);
    const eff = pre.action;
    const drift = pre.driftEvents;
    const dup = this.compat === "official"; // official quirk: adversarial events are listed twice

    if (pre.error) {
      const events = [...drift, pre.failEvent!];
      const injected: ToolError = { ...pre.error, details: { ...pre.error.details, faults: events.map(officialEvent) } };
      const adv = this.engine.transformError(eff, callIndex, injected);
      const advEvents = dup ? [...adv.events, ...adv.events] : adv.events;
      const err = adv.error;
      if (adv.events.length > 0) {
        const prior = Array.isArray(err.details.faults) ? err.details.faults : [];
        err.details.faults = [...prior, ...advEvents.map(officialEvent)];
      }
      return this.handleError(eff, err, "injected", [...events, ...advEvents], callIndex);
    }

    const verr = validateCall(this.toolset, eff, this.compat);
    if (verr) {
      if (drift.length > 0) verr.details.faults = drift.map(officialEvent);
      return this.handleError(eff, verr, "validation", drift, callIndex);
    }

    const tool = this.toolset.tools.find((t) => t.schema.name === eff.tool_name)!;
    const res = tool.run(this.state, eff.args, this.compat);
    if (res.error) {
      const adv = this.engine.transformError(eff, callIndex, res.error);
      const advEvents = dup ? [...adv.events, ...adv.events] : adv.events;
      const err = adv.error;
      const all = [...advEvents, ...drift];
      if (all.length > 0) err.details.faults = all.map(officialEvent);
      return this.handleError(eff, err, "simulator", all, callIndex);
    }
    const output = res.output;
    if (drift.length > 0) output.faults = drift.map(officialEvent);
    this.lastError = null;
    this.record(eff, output, null);
    return { output, error: null, terminated: false, phase: "ok", callIndex, faultEvents: drift, preOverflowError: null, effectiveAction: eff };
  }

  private handleError(eff: OfficialAction, error: ToolError, phase: StepPhase, events: FaultEvent[], callIndex: number): StepOutcome {
    this.retries += 1;
    const max = this.task.budget.max_retries;
    if (this.retries > max) {
      const capped: ToolError = {
        code: "retry_exceeded",
        message: "Retry budget exceeded.",
        details: { max_retries: max, original_error_code: error.code },
      };
      this.lastError = capped;
      this.record(eff, null, capped);
      return { output: null, error: capped, terminated: true, phase, callIndex, faultEvents: events, preOverflowError: error, effectiveAction: eff };
    }
    this.lastError = error;
    this.record(eff, null, error);
    return { output: null, error, terminated: false, phase, callIndex, faultEvents: events, preOverflowError: error, effectiveAction: eff };
  }

  private record(action: OfficialAction, output: JsonObj | null, error: ToolError | null): void {
    this.lastError = error;
    this.transcript.push({
      tool_name: action.tool_name,
      args: deepCopy(action.args),
      output: output ? deepCopy(output) : null,
      error: error ? structuredClone(error) : null,
    });
  }

  /**
   * The agent's view. With `exposeFaultMetadata` false (our default) fault injection details
   * — `faults` lists and an adversarial rewrite's `original_error_code` — are removed.
   */
  observation(exposeFaultMetadata: boolean): OfficialObservation {
    const b = this.task.budget;
    const clean = (e: ToolError | null): ToolError | null => (e && !exposeFaultMetadata ? stripError(e) : e ? structuredClone(e) : null);
    return {
      instruction: this.task.instruction,
      tool_schemas: officialSchemas(this.toolset.id),
      transcript: this.transcript.map((t) => ({
        tool_name: t.tool_name,
        args: deepCopy(t.args),
        output: t.output ? (exposeFaultMetadata ? deepCopy(t.output) : stripOutput(t.output)) : null,
        error: clean(t.error),
      })),
      remaining_budget: {
        steps_left: Math.max(0, b.max_steps - this.steps),
        tool_calls_left: Math.max(0, b.max_tool_calls - this.toolCalls),
        retries_left: Math.max(0, b.max_retries - this.retries),
      },
      last_error: clean(this.lastError),
    };
  }
}

function stripOutput(o: JsonObj): JsonObj {
  const c = deepCopy(o);
  delete c.faults;
  return c;
}

/** Remove injection metadata; keep `original_error_code` on `retry_exceeded`, where it is budget accounting. */
export function stripError(e: ToolError): ToolError {
  const details = deepCopy(e.details);
  delete details.faults;
  if (e.code !== "retry_exceeded") delete details.original_error_code;
  return { code: e.code, message: e.message, details };
}
