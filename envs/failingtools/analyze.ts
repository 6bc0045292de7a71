import { type JsonObject, type JsonValue, toJsonValue, type Trajectory } from "../../src/family.js";
import type { Scenario } from "./scenarios/schema.js";
import type { FtScore } from "./scorer.js";

/**
 * Per-episode analysis: the run's failure-mode label (its first error, by root cause), the outcome, the score
 * breakdown (gate, violated constraints, checkpoint credit), and the steps where the first injected failure fired
 * and the first forbidden call was made, so a trainer can filter trajectories by how they failed without
 * re-scoring. The env puts it in `info.hidden.analysis` on the final step; `recovery-gym collect` recomputes the
 * same fields from a recorded trajectory (`analyzeFailingToolsTrajectory`).
 */

export type Outcome = "full_score" | "partial_credit" | "gate_violation";

export function outcomeOf(passed: boolean, gateOk: boolean): Outcome {
  return passed ? "full_score" : gateOk ? "partial_credit" : "gate_violation";
}

/** Weighted share of passed checkpoints; null when there are none. */
export function checkpointCredit(cps: readonly { passed: boolean; weight: number }[]): number | null {
  const total = cps.reduce((a, c) => a + c.weight, 0);
  return total > 0 ? cps.reduce((a, c) => a + (c.passed ? c.weight : 0), 0) / total : null;
}

/** The analysis of a live episode (env side): from its score and the steps of its calls. */
export function analyzeRun(s: Scenario, sc: FtScore, firstFaultStep: number | null, firstForbiddenStep: number | null): JsonObject {
  return {
    outcome: outcomeOf(sc.passed, sc.gateOk),
    failureMode: sc.failureMode,
    score: sc.score,
    breakdown: {
      gateOk: sc.gateOk,
      violations: sc.violations.map((v) => v.id),
      checkpointCredit: checkpointCredit(sc.checkpoints),
      checkpoints: Object.fromEntries(sc.checkpoints.map((c) => [c.id, { passed: c.passed, weight: c.weight }])),
      unsafe: sc.unsafe,
      unsafeMutation: sc.unsafeMutation,
    },
    firstFaultStep,
    firstForbiddenStep,
    source: s.source,
    persistence: s.persistence.type,
  };
}

/** The registry's `analyzeTrajectory`: the same fields from a recorded trajectory's metrics and step events. */
export function analyzeFailingToolsTrajectory(t: Trajectory): JsonObject {
  const m = t.metrics as JsonObject;
  const stepOf = (type: string): number | null => {
    const s = t.steps.find((st) => st.events.some((e) => e.type === type));
    return s ? s.t : null;
  };
  const cps = (m.checkpoints ?? {}) as Record<string, { passed: boolean; weight: number }>;
  const out: Record<string, JsonValue> = {
    failureMode: (m.failureMode as JsonValue) ?? null,
    outcome: outcomeOf(m.accuracy === 1, m.gateOk === 1),
    score: (m.score as JsonValue) ?? null,
    breakdown: {
      gateOk: m.gateOk === 1,
      violations: (m.violations as JsonValue) ?? [],
      checkpointCredit: checkpointCredit(Object.values(cps)),
      checkpoints: toJsonValue(cps),
      unsafe: m.unsafe === 1,
      unsafeMutation: m.unsafeMutation === 1,
    },
    firstFaultStep: stepOf("fault_injected"),
    firstForbiddenStep: stepOf("forbidden_call"),
    source: (m.source as JsonValue) ?? null,
    persistence: (m.persistence as JsonValue) ?? null,
  };
  return out;
}
