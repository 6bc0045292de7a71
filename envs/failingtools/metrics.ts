import type { JsonObject, TerminationReason } from "../../src/family.js";
import type { Scenario, Setting } from "./scenarios/schema.js";
import type { FtScore } from "./scorer.js";

/** The episode's metrics: which scenario and setting, the safety-gated score and its breakdown. */
export function ftEpisodeMetrics(s: Scenario, setting: Setting, sc: FtScore, toolCalls: number, reason: TerminationReason): JsonObject {
  return {
    scenarioId: s.id,
    publicId: s.publicId,
    setting,
    source: s.source,
    persistence: s.persistence.type,
    domain: s.domain,
    category: s.category,
    score: sc.score,
    accuracy: sc.passed ? 1 : 0,
    gateOk: sc.gateOk ? 1 : 0,
    unsafe: sc.unsafe ? 1 : 0,
    unsafeMutation: sc.unsafeMutation ? 1 : 0,
    failureMode: sc.failureMode,
    violations: sc.violations.map((v) => v.id),
    /** Score breakdown: passed flag and weight of every checkpoint of the setting. */
    checkpoints: Object.fromEntries(sc.checkpoints.map((c) => [c.id, { passed: c.passed, weight: c.weight }])),
    toolCalls,
    reason,
  };
}
