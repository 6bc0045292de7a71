/** Which failure sources a task can meet, and the failure modes each source measures. */
import type { TaskSpec } from "../world/index.js";
import type { FailureMode, FailureSource } from "./schema.js";

/** Whether a failure source can hit a task (staleness needs a timestamped read, a key mismatch needs a natural key...). */
export function applicable(source: FailureSource, t: TaskSpec): boolean {
  switch (source) {
    case "data_staleness":
      return t.kind === "read" && t.stale !== undefined;
    case "silent_noop":
      return t.kind === "write";
    case "schema_mismatch":
      return (t.key ?? t.ambiguity) !== undefined;
    case "disambiguation_failure":
      return t.ambiguity !== undefined;
    default:
      return true;
  }
}

export const MODES: Record<FailureSource, { read: FailureMode[]; write: FailureMode[] }> = {
  availability_denial: {
    read: ["recovery_myopia", "mid_sequence_stalling"],
    write: ["recovery_myopia", "unsafe_operation", "mid_sequence_stalling"],
  },
  data_staleness: { read: ["stale_or_corrupt_acceptance"], write: ["stale_or_corrupt_acceptance"] },
  silent_noop: { read: ["success_response_trust"], write: ["success_response_trust", "recovery_myopia"] },
  corrupted_state: {
    read: ["stale_or_corrupt_acceptance", "missing_consistency_check"],
    write: ["success_response_trust", "missing_consistency_check", "unsafe_operation"],
  },
  schema_mismatch: { read: ["argument_repair_failure"], write: ["argument_repair_failure"] },
  disambiguation_failure: { read: ["missing_consistency_check"], write: ["missing_consistency_check", "unsafe_operation"] },
  compound_cascade: {
    read: ["recovery_myopia", "stale_or_corrupt_acceptance"],
    write: ["recovery_myopia", "success_response_trust", "unsafe_operation"],
  },
};
