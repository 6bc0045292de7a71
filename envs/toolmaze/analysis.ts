/**
 * Per-episode analysis of a collected ToolMaze trajectory (`recovery-gym collect` writes it next to each episode):
 * how the agent recovered — by retry, by an alternative, by a wise abort, not at all, or never met a fault — and
 * the first error it saw. Computed from the episode's final metrics and step events only, so it works on any
 * recorded file without re-running the env.
 */
import type { JsonObject, JsonValue, Trajectory } from "../../src/family.js";

export const RECOVERY_CATEGORIES = [
  "recovered_by_retry",
  "recovered_by_alternative",
  "wise_abort",
  "not_recovered",
  "not_exposed",
] as const;
export type RecoveryCategory = (typeof RECOVERY_CATEGORIES)[number];

/**
 * Category from the scorer's metrics: the strategy that finished the job wins (retry then switch = alternative).
 * A category names a recovery that worked, so it reads the success-conditioned value: v1's `recoveredOnSuccess`
 * (its `recovered` is the paper's, independent of the outcome), v0's `recovered`.
 */
export function recoveryCategory(metrics: Readonly<Record<string, JsonValue>>): RecoveryCategory {
  if (!metrics.exposed) return "not_exposed";
  const recovered = "recoveredOnSuccess" in metrics ? metrics.recoveredOnSuccess : metrics.recovered;
  if (recovered !== 1) return "not_recovered";
  const strategies = String(metrics.strategies ?? "").split("+");
  if (strategies.includes("abort")) return "wise_abort";
  if (strategies.includes("alternative")) return "recovered_by_alternative";
  return "recovered_by_retry";
}

type Ev = Record<string, JsonValue>;

/** The first error the agent met: an explicit tool error or an injected (possibly silent) fault. */
export function firstError(t: Pick<Trajectory, "steps">): JsonObject | null {
  for (const step of t.steps) {
    const events = step.events as Ev[];
    const fault = events.find((e) => e.type === "fault_injected");
    const error = events.find((e) => e.type === "tool_error");
    if (!fault && !error) continue;
    const out: JsonObject = { step: step.t, tool: (fault ?? error)!.tool ?? null };
    if (fault) {
      out.faultId = fault.faultId ?? null;
      out.kind = fault.kind ?? null;
      out.visibility = fault.visibility ?? null;
      out.persistence = fault.persistence ?? null;
    } else {
      // An error the agent caused itself (bad arguments, unknown tool), not a perturbation.
      out.kind = "agent_error";
      out.visibility = "explicit";
    }
    if (error) {
      out.code = error.code ?? null;
      out.message = error.message ?? null;
    }
    const hidden = step.hidden as JsonObject | undefined;
    if (hidden && typeof hidden === "object" && hidden.corruptedField) out.corruptedField = hidden.corruptedField;
    return out;
  }
  return null;
}

/** The registry's `analyzeTrajectory` for ToolMaze-v0. */
export function analyzeToolMazeTrajectory(t: Trajectory): JsonObject {
  const m = t.metrics;
  return {
    recoveryCategory: recoveryCategory(m),
    strategies: String(m.strategies ?? ""),
    firstError: firstError(t),
    success: t.success,
    complexity: m.complexity ?? null,
    perturbation: m.perturbation ?? null,
  };
}
