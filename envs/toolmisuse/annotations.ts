/**
 * Ground-truth annotations of ToolMisuseBench episodes (issue 8): per tool call, what fired
 * (fault type, transient or persistent), whether the call made progress (a success criterion or
 * a required gold step newly holds), whether it was an invalid call or a policy violation; at the
 * end of the episode, the primary fault, whether and how fast the agent recovered, and a failure
 * category. The env puts them in `info.hidden` (never in observations); `analyzeToolMisuseTrajectory`
 * is the registry's `analyzeTrajectory` and reads them back from a collected trajectory.
 */
import type { JsonObject, JsonValue, Trajectory } from "../../src/family.js";
import type { FaultSpec, TaskRecord } from "./dataset.js";
import type { CallOutcome } from "./world/episode.js";
import { INVALID_CALL_CODES } from "./world/validate.js";

export type FaultLabel = "transient" | "persistent";

/** One fault that fired on a call. */
export interface FiredFault {
  faultType: FaultSpec["fault_type"];
  planIndex: number;
  persistence: FaultLabel;
  /** The payload's `recoverability` label when the record has one (`transient_denial`, `persistent_quota`, ...). */
  label: string | null;
  severity: FaultSpec["severity"];
}

/** Per tool call: `info.hidden` of that step. */
export interface CallAnnotation {
  step: number;
  callIndex: number;
  tool: string;
  ok: boolean;
  /** The code the agent saw (after retry-overflow replacement); null on success. */
  errorCode: string | null;
  /** The code before an adversarial rewrite or a retry overflow replaced it; null when nothing did. */
  originalErrorCode: string | null;
  /** The latest earlier step with the same tool and the same (agent-sent) arguments; null if none. */
  repeatOfStep: number | null;
  /** Where the outcome came from: ok | budget | injected | validation | simulator. */
  phase: CallOutcome["phase"];
  faults: FiredFault[];
  /** Official invalid call: unknown tool, missing / unknown argument, wrong type. */
  invalidCall: boolean;
  /** Official policy violation: an invalid call or an authorization denial. */
  policyViolation: boolean;
  /** A success criterion (or a required gold step) holds after this call that did not before. */
  progress: boolean;
  /** `check_{i}:{op}` keys of the criteria this call made true. */
  newlyMet: string[];
  /** Required gold steps whose criteria all hold after the call (generated suite only, else null). */
  goldStepsDone: number | null;
}

/** Documented keys of the ToolMisuseBench `info.hidden` (the core `hidden` info key holds them). */
export const HIDDEN_KEYS: Readonly<Record<string, string>> = {
  taskIndex: "reset and end: index of the task in its split",
  split: "reset and end: the task's split",
  domain: "reset and end: crud | retrieval | files | scheduling",
  difficulty: "reset and end: easy | medium | hard",
  faultPlan: "reset and end: the task's full fault plan (triggers and payloads)",
  successCriteria: "reset and end: the task's success criteria",
  budget: "reset and end: the task's budget",
  gold: "reset and end: the validated gold actions (generated suite; parsed gold_summary for official records, else null)",
  template: "reset and end (generated suite): the task template",
  faultClass: "reset and end (generated suite): clean | timeout | schema_drift | authz | rate_limit | adversarial_error",
  persistent: "reset and end (generated suite): whether the task's fault is persistent",
  blind: "reset and end (generated suite): solvable without reading the instruction",
  budgetProfile: "reset and end (generated suite): tight | standard | relaxed",
  solvable: "reset and end (paper profile only): false when a persistent fault makes the task unsolvable",
  call:
    "every tool-call step: CallAnnotation (step, callIndex, tool, ok, errorCode, " +
    "originalErrorCode, repeatOfStep, phase, faults[{faultType, planIndex, persistence: " +
    "transient|persistent, label, severity}], invalidCall, policyViolation, progress, " +
    "newlyMet, goldStepsDone)",
  checks: "end: the success report, check_{i}:{op} -> bool",
  analysis:
    "end: EpisodeAnalysis (primaryFault, primaryFaultLabel, faultFired, firstFaultStep, " +
    "recovered, timeToRecovery, recoveryStrategy, failureCategory, progressCalls, " +
    "nonProgressCalls, invalidCalls, policyViolations, faultSteps)",
};

/** Whether an identical retry can get past a fault: the payload label decides, else the trigger. */
export function faultLabel(spec: FaultSpec): FaultLabel {
  const label = spec.payload.recoverability;
  if (typeof label === "string") {
    if (label.startsWith("transient")) return "transient";
    if (label.startsWith("persistent")) return "persistent";
  }
  const t = spec.trigger;
  if (t.on_nth_call !== undefined && t.on_nth_call !== null) return "transient";
  const prob = t.prob;
  const p = typeof prob === "object" && prob !== null && !Array.isArray(prob) ? prob.p : prob;
  return typeof p === "number" && p < 1 ? "transient" : "persistent";
}

function firedFaults(task: TaskRecord, planIndices: readonly number[]): FiredFault[] {
  return planIndices.map((i) => {
    const spec = task.fault_plan[i]!;
    const label = spec.payload.recoverability;
    const persistence = faultLabel(spec);
    return {
      faultType: spec.fault_type,
      planIndex: i,
      persistence,
      label: typeof label === "string" ? label : null,
      severity: spec.severity,
    };
  });
}

/** Annotate one call from its outcome and the criteria met before and after it. */
export function annotateCall(
  task: TaskRecord,
  step: number,
  o: CallOutcome,
  metBefore: readonly boolean[],
  metAfter: readonly boolean[],
  phiSteps: readonly number[][] | null,
  repeatOfStep: number | null,
): CallAnnotation {
  const pre = o.preOverflowError;
  const shown = o.error;
  const invalid = pre !== null && INVALID_CALL_CODES.has(pre.code);
  const rewritten = typeof pre?.details.original_error_code === "string" ? pre.details.original_error_code : null;
  const original = rewritten ?? (pre && shown && pre.code !== shown.code ? pre.code : null);
  const newlyMet = task.success_criteria.flatMap((c, i) => (metAfter[i] && !metBefore[i] ? [`check_${i}:${String(c.op)}`] : []));
  const done = (met: readonly boolean[]) => (phiSteps ? phiSteps.filter((crit) => crit.every((i) => met[i])).length : null);
  const doneBefore = done(metBefore);
  const doneAfter = done(metAfter);
  return {
    step,
    callIndex: o.callIndex,
    tool: o.effectiveAction.tool_name,
    ok: shown === null,
    errorCode: shown?.code ?? null,
    originalErrorCode: original,
    repeatOfStep,
    phase: o.phase,
    faults: firedFaults(task, o.firedPlanIndices),
    invalidCall: invalid,
    policyViolation: invalid || pre?.code === "authz_denied",
    progress: newlyMet.length > 0 || (doneAfter ?? 0) > (doneBefore ?? 0),
    newlyMet,
    goldStepsDone: doneAfter,
  };
}

export const FAILURE_CATEGORIES = ["none", "format_error", "no_traction", "irrecoverable_drift", "weak_recovery", "incomplete"] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];
/**
 * The first successful call at or after the first fault: retry (identical to the faulted call),
 * repair (same tool, other arguments), switch (another tool); skip: no successful call followed,
 * but the goal was met anyway (the faulted step was optional).
 */
export type RecoveryStrategy = "retry" | "repair" | "switch" | "skip";

export interface EpisodeAnalysis {
  success: boolean;
  primaryFault: string;
  primaryFaultLabel: FaultLabel | null;
  /** Some fault fired on a call (also when a retry overflow hid it from the official `fault_seen`). */
  faultFired: boolean;
  firstFaultStep: number | null;
  /** A fault fired and the task still succeeded. */
  recovered: boolean;
  /** Steps from the first fault to the first successful call at or after it; null if none. */
  timeToRecovery: number | null;
  /** See RecoveryStrategy; null without a fault, or when nothing succeeded after it and the task failed. */
  recoveryStrategy: RecoveryStrategy | null;
  failureCategory: FailureCategory;
  progressCalls: number;
  nonProgressCalls: number;
  invalidCalls: number;
  policyViolations: number;
  faultSteps: number[];
}

/**
 * Failure category (the paper's taxonomy, adapted to this family), first match wins:
 * `none` (success); `format_error` (≥ 3 invalid calls, the official catastrophic threshold, or
 * every call invalid); `no_traction` (no call made progress); `irrecoverable_drift` (a fault
 * fired and no progress came after it); `weak_recovery` (progress after the fault, still failed);
 * `incomplete` (progress, no fault, but the agent stopped or ran out of budget first).
 */
export function analyseEpisode(task: TaskRecord, calls: readonly CallAnnotation[], success: boolean): EpisodeAnalysis {
  const faultSteps = calls.filter((c) => c.faults.length > 0).map((c) => c.step);
  const first = calls.find((c) => c.faults.length > 0) ?? null;
  const recoveryCall = first ? (calls.find((c) => c.step >= first.step && c.ok) ?? null) : null;
  let strategy: RecoveryStrategy | null = null;
  if (first && recoveryCall) {
    if (recoveryCall.step === first.step)
      strategy = "retry"; // the fault rode on a successful call (drift)
    else if (recoveryCall.tool !== first.tool) strategy = "switch";
    // Identical to the faulted call: its latest identical predecessor is the faulted call or later.
    else strategy = recoveryCall.repeatOfStep !== null && recoveryCall.repeatOfStep >= first.step ? "retry" : "repair";
  } else if (first && success) strategy = "skip";
  const invalidCalls = calls.filter((c) => c.invalidCall).length;
  const progressCalls = calls.filter((c) => c.progress).length;
  let failureCategory: FailureCategory;
  if (success) failureCategory = "none";
  else if (invalidCalls >= 3 || (calls.length > 0 && invalidCalls === calls.length)) failureCategory = "format_error";
  else if (progressCalls === 0) failureCategory = "no_traction";
  else if (first) failureCategory = calls.some((c) => c.step > first.step && c.progress) ? "weak_recovery" : "irrecoverable_drift";
  else failureCategory = "incomplete";
  const primary = task.fault_plan[0];
  return {
    success,
    primaryFault: primary?.fault_type ?? "clean",
    primaryFaultLabel: primary ? faultLabel(primary) : null,
    faultFired: first !== null,
    firstFaultStep: first?.step ?? null,
    recovered: first !== null && success,
    timeToRecovery: first && recoveryCall ? recoveryCall.step - first.step : null,
    recoveryStrategy: strategy,
    failureCategory,
    progressCalls,
    nonProgressCalls: calls.length - progressCalls,
    invalidCalls,
    policyViolations: calls.filter((c) => c.policyViolation).length,
    faultSteps,
  };
}

const obj = (x: unknown): JsonObject | null => (typeof x === "object" && x !== null && !Array.isArray(x) ? (x as JsonObject) : null);

/**
 * The registry's `analyzeTrajectory`: the env's end-of-episode analysis (`hidden.analysis`) plus
 * the steps (trajectory `t`) on which faults fired. A file recorded with `hiddenInfo: false` has
 * no annotations; then only what the official metrics give is reported, category `unknown`.
 */
export function analyzeToolMisuseTrajectory(t: Trajectory): JsonObject {
  const a = obj(obj(t.hidden)?.["analysis"]);
  const m = t.metrics;
  const faultStepIndices = t.steps.flatMap((s) => {
    const call = obj(obj(s.hidden)?.["call"]);
    return call && Array.isArray(call["faults"]) && call["faults"].length > 0 ? [s.t] : [];
  });
  if (a) return { ...a, terminationReason: t.terminationReason, faultStepIndices } as JsonObject;
  return {
    success: t.success,
    primaryFault: (m["primary_fault"] as JsonValue) ?? "clean",
    faultFired: m["fault_seen"] === 1,
    recovered: m["recovery_success"] === 1,
    timeToRecovery: (m["time_to_recovery"] as JsonValue) ?? null,
    failureCategory: t.success ? "none" : "unknown",
    terminationReason: t.terminationReason,
    faultStepIndices,
  };
}
