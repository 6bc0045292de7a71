/**
 * What ToolMisuseBench keeps beyond the engine's episode: the plan's fault streams, the official runner's metric
 * bookkeeping and the per-call annotations, plus the family events each recorded call adds. Calls themselves,
 * budgets, retries and recovery patterns are the engine's (world/episode.ts configures its pipeline); the
 * transcript is read from the engine's call records.
 */
import { type CallRecord, type EpisodeEvent, eventsOfType } from "../../src/family.js";
import type { TaskRecord } from "./dataset.js";
import "./events.js";
import { FaultEngine, type UniformFactory } from "./faults.js";
import {
  MetricsTracker,
  checkSuccess,
  evaluateCriterion,
  type SuccessReport,
  type ToolMisuseMetrics,
  type TrackerSnapshot,
} from "./scorer.js";
import { analyseEpisode, annotateCall, type CallAnnotation, type EpisodeAnalysis } from "./annotations.js";
import { entryOf, officialHarness, outcomeOf, transcriptOf, type OfficialHarness } from "./world/episode.js";
import { INVALID_CALL_CODES } from "./world/validate.js";
import type { CompatMode, Json, JsonObj } from "./world/types.js";
import { isMutating } from "./toolTraits.js";

/** Family reward terms (raw signals; presets in configs/rewards/toolmisuse/ weight them). */
export const FAMILY_TERMS: Readonly<Record<string, string>> = {
  recovery: "1 on the first successful call after a fault was seen",
  argument_repair: "a successful call of a tool whose previous call failed validation, with changed arguments",
  policy_violation: "calls denied by authorization (authz_denied)",
  retry_overflow: "1 when the retry budget overflows (retry_exceeded)",
};

export interface SessionSnapshot {
  /** The plan's fault streams, in plan order. */
  faultStreams: Json[];
  tracker: TrackerSnapshot;
  recovered: boolean;
  /** One per recorded call, in order. */
  annotations: CallAnnotation[];
}

/** The family raw reward terms of a step, counted from its events. */
export function familyRawTerms(events: readonly EpisodeEvent[]): Record<string, number> {
  const raw: Record<string, number> = {};
  const add = (k: string, n: number) => {
    if (n > 0) raw[k] = (raw[k] ?? 0) + n;
  };
  add("policy_violation", eventsOfType(events, "toolmisuse:policy_violation").length);
  add("retry_overflow", eventsOfType(events, "budget_exceeded").filter((e) => e.budget === "retries").length);
  add("argument_repair", eventsOfType(events, "toolmisuse:argument_repair").length);
  add("recovery", eventsOfType(events, "toolmisuse:recovered").length);
  return raw;
}

export class ToolMisuseSession {
  readonly faults: FaultEngine;
  readonly tracker = new MetricsTracker();
  private recovered = false;
  private annotations: CallAnnotation[] = [];
  /** The criteria that held after the latest call (the next call's "before"). */
  private met: boolean[];

  /**
   * `phiSteps`: per required gold step, the criteria it makes true (generated suite), so the
   * annotations can say when a gold step holds; null for official records.
   */
  constructor(
    readonly task: TaskRecord,
    readonly compat: CompatMode,
    makeRng: UniformFactory,
    readonly exposeFaultMetadata: boolean,
    private readonly phiSteps: readonly number[][] | null = null,
  ) {
    this.faults = new FaultEngine(task.fault_plan, task.seed, makeRng, compat);
    this.met = this.criteriaMet(task.initial_state, []);
  }

  /** Tools, budgets and the official pipeline for this session's episode (its fault stage is this session's). */
  harness(): OfficialHarness {
    return officialHarness(this.task, this.compat, this.faults, this.exposeFaultMetadata);
  }

  /** Plain-JSON state of the session (fault streams, metric tracker, annotations). */
  snapshot(): SessionSnapshot {
    return {
      faultStreams: this.faults.rngStates() as Json[],
      tracker: this.tracker.snapshot(),
      recovered: this.recovered,
      annotations: structuredClone(this.annotations),
    };
  }

  /** Continue from a snapshot taken on a session of the same task, whose episode is now at `world` and `calls`. */
  restore(s: SessionSnapshot, world: JsonObj, calls: readonly CallRecord[]): void {
    this.faults.restoreRngStates(s.faultStreams);
    this.tracker.restore(s.tracker);
    this.recovered = s.recovered;
    this.annotations = structuredClone(s.annotations);
    this.met = this.criteriaMet(world, calls);
  }

  /** Which success criteria hold on this world and transcript. */
  criteriaMet(world: JsonObj, calls: readonly CallRecord[]): boolean[] {
    const transcript = transcriptOf(calls);
    return this.task.success_criteria.map((c) => evaluateCriterion(c, world, transcript, this.compat));
  }

  /** The episode-end analysis from the annotations so far. */
  analysis(success: boolean): EpisodeAnalysis {
    return analyseEpisode(this.task, this.annotations, success);
  }

  /** The annotation of the latest call. */
  lastAnnotation(): CallAnnotation | null {
    return this.annotations[this.annotations.length - 1] ?? null;
  }

  /**
   * Bookkeeping and family events of the call just recorded (the last of `calls`); `events` are the pipeline's
   * events of that call.
   */
  onCall(record: CallRecord, events: readonly EpisodeEvent[], world: JsonObj, calls: readonly CallRecord[]): EpisodeEvent[] {
    const o = outcomeOf(record);
    const step = record.index;
    this.tracker.observe(step, o);
    const out: EpisodeEvent[] = [];
    const tool = record.tool;
    const idx = record.index;
    for (const i of o.firedPlanIndices) {
      if (this.task.fault_plan[i]!.fault_type !== "schema_drift") continue;
      const renamed = JSON.stringify(record.arguments) !== JSON.stringify(o.effectiveAction.args);
      out.push({ type: "toolmisuse:schema_drift", tool, callIndex: idx, renamed });
    }
    if (o.preOverflowError?.code === "authz_denied") {
      out.push({ type: "toolmisuse:policy_violation", tool, callIndex: idx, mutation: isMutating(tool) });
    }
    const retry = eventsOfType(events, "retry")[0];
    if (retry && record.ok) {
      const prev = calls[retry.ofCallIndex - 1]!;
      const code = entryOf(prev.response).error?.code ?? null;
      if (code !== null && INVALID_CALL_CODES.has(code) && JSON.stringify(prev.arguments) !== JSON.stringify(record.arguments)) {
        out.push({ type: "toolmisuse:argument_repair", tool, callIndex: idx, ofCode: code });
      }
    }
    if (record.ok && this.tracker.faultSeen && !this.recovered) {
      this.recovered = true;
      out.push({ type: "toolmisuse:recovered", tool, callIndex: idx, afterSteps: step - (this.tracker.firstFaultStep ?? step) });
    }
    const sent = JSON.stringify(record.arguments);
    let repeatOf: number | null = null;
    for (let i = calls.length - 2; i >= 0 && repeatOf === null; i--) {
      const c = calls[i]!;
      if (c.tool === tool && JSON.stringify(c.arguments) === sent) repeatOf = c.index;
    }
    const metAfter = this.criteriaMet(world, calls);
    this.annotations.push(annotateCall(this.task, step, o, this.met, metAfter, this.phiSteps, repeatOf));
    this.met = metAfter;
    return out;
  }

  /** Success is judged once, when the episode ends (any way it ends), on the final world and transcript. */
  judge(world: JsonObj, calls: readonly CallRecord[]): SuccessReport {
    return checkSuccess(this.task, world, transcriptOf(calls), this.compat);
  }

  metrics(calls: readonly CallRecord[], success: boolean): ToolMisuseMetrics {
    return this.tracker.finish(this.task, success, calls.length, calls.length);
  }
}
