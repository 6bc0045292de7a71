/**
 * One ToolMisuseBench episode as the Gym env drives it: the official pipeline (episode.ts),
 * the runner's metric bookkeeping, the official stop/truncation rules, and the typed events
 * and raw reward terms derived from each step. Independent of the Env base class so it can be
 * tested and benchmarked on its own.
 */
import { type EpisodeEvent, type FaultPersistenceType, type PatternRules, recoveryPatterns } from "../../src/family.js";
import type { TaskRecord } from "./dataset.js";
import "./events.js";
import type { UniformFactory } from "./faults.js";
import { MetricsTracker, checkSuccess, evaluateCriterion, type SuccessReport, type ToolMisuseMetrics, type TrackerSnapshot } from "./scorer.js";
import { analyseEpisode, annotateCall, type CallAnnotation, type EpisodeAnalysis } from "./annotations.js";
import { ToolMisuseEpisode, stripError, type EpisodeSnapshot, type StepOutcome } from "./world/episode.js";
import { INVALID_CALL_CODES } from "./world/validate.js";
import type { CompatMode, JsonObj, OfficialAction, OfficialObservation, TranscriptEntry } from "./world/types.js";
import { isMutating } from "./templates.js";

/** The benchmark's recovery patterns: a retry or switch reacts to an error only, a switch leaves the previous call. */
const PATTERN_RULES: PatternRules = { failure: "error", switchFrom: "previous_call" };

/** Family reward terms (raw signals; presets in configs/rewards/toolmisuse/ weight them). */
export const FAMILY_TERMS: Readonly<Record<string, string>> = {
  recovery: "1 on the first successful call after a fault was seen",
  argument_repair: "a successful call of a tool whose previous call failed validation, with changed arguments",
  policy_violation: "calls denied by authorization (authz_denied)",
  retry_overflow: "1 when the retry budget overflows (retry_exceeded)",
};

/** Tools that can stand in for each other when one fails persistently (their `meta.group`). */
export const ALT_GROUP: Readonly<Record<string, string>> = { close_account: "account_close", update_account: "account_close" };
const groupOf = (tool: string): string | undefined => ALT_GROUP[tool];

export interface SessionSnapshot {
  episode: EpisodeSnapshot;
  tracker: TrackerSnapshot;
  calls: CallInfo[];
  recovered: boolean;
  stepIndex: number;
  annotations: CallAnnotation[];
}

interface CallInfo {
  index: number;
  step: number;
  /** The tool the agent named (the effective one differs only under drift, which never renames tools). */
  tool: string;
  args: JsonObj;
  ok: boolean;
  code: string | null;
  faultIds: string[];
  persistence: FaultPersistenceType | null;
}

export interface SessionStep {
  outcome: StepOutcome;
  /** Ground truth about this call (for `info.hidden.call`). */
  annotation: CallAnnotation;
  events: EpisodeEvent[];
  familyRaw: Record<string, number>;
  /** Ended by the pipeline (budget or retry overflow). */
  terminated: boolean;
  /** Ended by the official runner's step limit. */
  truncated: boolean;
}

export class ToolMisuseSession {
  readonly episode: ToolMisuseEpisode;
  readonly tracker = new MetricsTracker();
  private calls: CallInfo[] = [];
  private recovered = false;
  private stepIndex = 0;
  private annotations: CallAnnotation[] = [];

  /**
   * `phiSteps`: per required gold step, the criteria it makes true (generated suite), so the
   * annotations can say when a gold step holds; null for official records.
   */
  constructor(
    readonly task: TaskRecord, readonly compat: CompatMode, makeRng: UniformFactory, readonly exposeFaultMetadata: boolean,
    private readonly phiSteps: readonly number[][] | null = null,
  ) {
    this.episode = new ToolMisuseEpisode(task, compat, makeRng);
  }

  /** Plain-JSON state of the session (episode, metric tracker, call history, annotations). */
  snapshot(): SessionSnapshot {
    return {
      episode: this.episode.snapshot(), tracker: this.tracker.snapshot(), calls: structuredClone(this.calls), recovered: this.recovered, stepIndex: this.stepIndex,
      annotations: structuredClone(this.annotations),
    };
  }

  /** Continue from a snapshot taken on a session of the same task. */
  restore(s: SessionSnapshot): void {
    this.episode.restore(s.episode);
    this.tracker.restore(s.tracker);
    this.calls = structuredClone(s.calls);
    this.recovered = s.recovered;
    this.stepIndex = s.stepIndex;
    this.annotations = structuredClone(s.annotations);
  }

  /** Which success criteria hold now (state and transcript). */
  criteriaMet(): boolean[] {
    const ep = this.episode;
    return this.task.success_criteria.map((c) => evaluateCriterion(c, ep.state, ep.transcript, this.compat));
  }

  /** The episode-end analysis from the annotations so far. */
  analysis(success: boolean): EpisodeAnalysis {
    return analyseEpisode(this.task, this.annotations, success);
  }

  get steps(): number {
    return this.stepIndex;
  }

  observation(): OfficialObservation {
    return this.episode.observation(this.exposeFaultMetadata);
  }

  /** The agent-visible transcript entry of the latest call (fault metadata stripped by default). */
  lastEntry(): TranscriptEntry | null {
    const obs = this.episode.transcript[this.episode.transcript.length - 1];
    if (!obs) return null;
    if (this.exposeFaultMetadata) return structuredClone(obs);
    const out = obs.output ? structuredClone(obs.output) : null;
    if (out) delete out.faults;
    return { tool_name: obs.tool_name, args: structuredClone(obs.args), output: out, error: obs.error ? stripError(obs.error) : null };
  }

  step(action: OfficialAction): SessionStep {
    this.stepIndex += 1;
    const metBefore = this.criteriaMet();
    const o = this.episode.step(action);
    this.tracker.observe(this.stepIndex, o);
    const events: EpisodeEvent[] = [];
    const raw: Record<string, number> = {};
    const add = (k: string) => (raw[k] = (raw[k] ?? 0) + 1);
    const tool = o.effectiveAction.tool_name;
    const idx = o.callIndex;
    const ok = o.error === null;
    events.push({ type: "tool_called", tool, callIndex: idx, arguments: structuredClone(action.args), ok });
    if (o.phase === "budget") {
      // Only the call budget can run out here: the step limit truncates the episode first (max_steps >= 1).
      events.push({ type: "budget_exceeded", budget: "tool_calls", limit: this.task.budget.max_tool_calls });
    }
    const faultIds: string[] = [];
    let persistence: FaultPersistenceType | null = null;
    for (const f of o.faultEvents) {
      const spec = this.episode.faultSpec(f.plan_index);
      const p = spec.persistence.type;
      const id = spec.id;
      if (faultIds.includes(id)) continue;
      faultIds.push(id);
      if (persistence === null || p === "permanent") persistence = p;
      events.push({
        type: "fault_injected", tool, callIndex: idx, faultId: id, kind: spec.kind, visibility: spec.visibility, persistence: p,
      });
      if (f.fault_type === "schema_drift") {
        events.push({ type: "toolmisuse:schema_drift", tool, callIndex: idx, renamed: JSON.stringify(action.args) !== JSON.stringify(o.effectiveAction.args) });
      }
    }
    const err = o.preOverflowError;
    if (o.error) {
      const source = o.error.code === "unknown_tool" && o.phase === "validation" ? "unknown_tool" : o.phase === "validation" ? "validation" : o.phase === "injected" ? "fault" : "simulator";
      events.push({ type: "tool_error", tool, callIndex: idx, code: o.error.code, source, message: o.error.message });
    }
    if (err && err.code === "authz_denied") {
      events.push({ type: "toolmisuse:policy_violation", tool, callIndex: idx, mutation: isMutating(tool) });
      add("policy_violation");
    }
    if (o.error?.code === "retry_exceeded") {
      events.push({ type: "budget_exceeded", budget: "retries", limit: this.task.budget.max_retries });
      add("retry_overflow");
    }
    // Retry / alternative switch (the engine's detection, under this benchmark's rules) / argument repair.
    const history = this.calls.map((c) => ({
      index: c.index, tool: c.tool, ok: c.ok, faults: c.faultIds, faultPersistence: c.persistence,
    }));
    const { retry, alternativeSwitch } = recoveryPatterns(history, tool, idx, groupOf, PATTERN_RULES);
    if (retry) {
      events.push(retry);
      const prevSame = this.calls.find((c) => c.index === retry.ofCallIndex)!;
      if (ok && prevSame.code !== null && INVALID_CALL_CODES.has(prevSame.code) && JSON.stringify(prevSame.args) !== JSON.stringify(action.args)) {
        events.push({ type: "toolmisuse:argument_repair", tool, callIndex: idx, ofCode: prevSame.code });
        add("argument_repair");
      }
    }
    if (alternativeSwitch) events.push(alternativeSwitch);
    if (ok && this.tracker.faultSeen && !this.recovered) {
      this.recovered = true;
      events.push({ type: "toolmisuse:recovered", tool, callIndex: idx, afterSteps: this.stepIndex - (this.tracker.firstFaultStep ?? this.stepIndex) });
      add("recovery");
    }
    const sent = JSON.stringify(action.args);
    const repeat = [...this.calls].reverse().find((c) => c.tool === action.tool_name && JSON.stringify(c.args) === sent);
    const annotation = annotateCall(this.task, this.stepIndex, o, metBefore, this.criteriaMet(), this.phiSteps, repeat ? repeat.step : null);
    this.annotations.push(annotation);
    this.calls.push({ index: idx, step: this.stepIndex, tool: action.tool_name, args: structuredClone(action.args), ok, code: o.error?.code ?? null, faultIds, persistence });
    const terminated = o.terminated;
    const truncated = !terminated && this.stepIndex >= this.task.budget.max_steps;
    return { outcome: o, annotation, events, familyRaw: raw, terminated, truncated };
  }

  /** Success is judged once, when the episode ends (any way it ends). */
  judge(): SuccessReport {
    return checkSuccess(this.task, this.episode.state, this.episode.transcript, this.compat);
  }

  metrics(report: SuccessReport): ToolMisuseMetrics {
    return this.tracker.finish(this.task, report.success, this.episode.steps, this.episode.toolCalls);
  }
}
