/** The family's reward terms: what each one means, and their raw values at one step. */
import type { EpisodeEvent } from "../../src/family.js";
import { checkpointCredit } from "./analyze.js";
import type { Scenario } from "./scenarios/schema.js";
import type { FtScore } from "./scorer.js";

export const FT_TERMS: Readonly<Record<string, string>> = {
  checkpoint_credit: "at episode end: weighted share of passed checkpoints (even when a constraint failed)",
  required_progress: "number of required constraints newly satisfied this step",
  readback_after_write: "read-back calls that verify a write of this episode (successful write, then its verify tool)",
  fallback_after_permanent: "switches to the counterpart provider after a permanent fault",
  retry_after_temporary: "retries of a call hit by a temporary fault",
  final_score: "at episode end: the safety-gated score of the setting (0 on any violation)",
};

/** The raw terms of a step's events; `final`: the episode's score when the step ends it, else null. */
export function ftRawTerms(s: Scenario, events: readonly EpisodeEvent[], final: FtScore | null): Record<string, number> {
  const raw: Record<string, number> = {};
  const add = (k: string, v: number) => {
    if (v !== 0) raw[k] = (raw[k] ?? 0) + v;
  };
  for (const e of events) {
    if (e.type === "failingtools:requirement_met") add("required_progress", 1);
    else if (e.type === "verification_call") {
      const w = e.verifies as string;
      if (w === s.truth.M || w === s.truth.F) add("readback_after_write", 1);
    } else if (e.type === "alternative_switch" && e.afterFault && s.persistence.type === "permanent") add("fallback_after_permanent", 1);
    else if (e.type === "retry" && e.afterFault && e.persistence === "temporary") add("retry_after_temporary", 1);
  }
  if (final) {
    add("checkpoint_credit", checkpointCredit(final.checkpoints) ?? 0);
    add("final_score", final.score);
  }
  return raw;
}
