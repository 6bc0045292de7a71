import type { JsonObject, JsonValue } from "../../src/core/json.js";
import type { Trajectory } from "../../src/trajectories/schema.js";

/**
 * Per-episode analysis for `recovery-gym collect`: the run's failure-mode label (its first error), the score
 * breakdown (gate, violated constraints, checkpoint credit), and the steps where the first fault fired and the
 * first forbidden call was made, so a trainer can filter trajectories by how they failed without re-scoring.
 */
export function analyzeFailingToolsTrajectory(t: Trajectory): JsonObject {
  const m = t.metrics as JsonObject;
  const stepOf = (type: string): number | null => {
    const s = t.steps.find((st) => st.events.some((e) => e.type === type));
    return s ? s.t : null;
  };
  const cps = (m.checkpoints ?? {}) as Record<string, { passed: boolean; weight: number }>;
  const total = Object.values(cps).reduce((a, c) => a + c.weight, 0);
  const earned = Object.values(cps).reduce((a, c) => a + (c.passed ? c.weight : 0), 0);
  const out: Record<string, JsonValue> = {
    failureMode: (m.failureMode as JsonValue) ?? null,
    outcome: m.accuracy === 1 ? "full_score" : m.gateOk === 1 ? "partial_credit" : "gate_violation",
    score: (m.score as JsonValue) ?? null,
    breakdown: {
      gateOk: m.gateOk === 1,
      violations: (m.violations as JsonValue) ?? [],
      checkpointCredit: total > 0 ? earned / total : null,
      checkpoints: cps as unknown as JsonValue,
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
