import { assertsWrongValue, type ConceptJudge, DISCLOSURE } from "./concepts.js";
import { type FtRun, finalMessage, type RunCall, undoes } from "./run.js";
import type { Checkpoint, FailureMode, Scenario, Setting } from "./scenarios/schema.js";

/**
 * The failure-mode label of a failed run: its first error, named by root cause. A violation such as "never used
 * the fallback" or "no clean value" is a consequence; what caused it depends on how the agent treated the last
 * response an injected failure produced:
 * - it did not react (no retry, no switch to another provider, no undo, no question to the user, no abort, no
 *   honest report of the problem): it *trusted* that response, and the label is the trust failure of the fault:
 *   stale data / a corrupted read → stale_or_corrupt_acceptance, a silent no-op → success_response_trust, a
 *   corrupted write or a wrong entity → missing_consistency_check, a schema error → argument_repair_failure, an
 *   outage → recovery_myopia (permanent) or mid_sequence_stalling (temporary: it gave up instead of retrying);
 * - it reacted but still missed the fallback → recovery_myopia; left a wrong record → missing_consistency_check;
 *   otherwise by source (schema → argument_repair_failure, wrong entity → missing_consistency_check, else
 *   recovery_myopia when permanent, mid_sequence_stalling when temporary).
 * Violations with a fixed meaning keep it: forbidden calls (unsafe_operation; reusing a broken tool is
 * recovery_myopia), no attempt / skipped lookup / skipped follow-up (mid_sequence_stalling), no read-back
 * (success_response_trust), switching without redoing the lookup (recovery_myopia). Without a violation: an abort
 * is mid_sequence_stalling, asserting a wrong value is stale_or_corrupt_acceptance, else incomplete_report.
 */

export type FailureLabel = FailureMode | "incomplete_report";

/** Whether the text asserts one of the checkpoint's rejected (wrong) values as the result. */
export function assertsRejected(cp: Checkpoint, text: string, judge: ConceptJudge): boolean {
  return cp.rejected.some((r) => assertsWrongValue(text, r.concept, r.correct, judge));
}

/** Whether the final message tells the user about a problem without asserting a wrong value. */
export function reportsProblemHonestly(s: Scenario, setting: Setting, run: FtRun, judge: ConceptJudge): boolean {
  const fin = finalMessage(run);
  if (!fin) return false;
  return judge(fin.text, DISCLOSURE) && !assertsAnyRejected(s, setting, fin.text, judge);
}

/** Whether a final message asserts a wrong value rejected by a final checkpoint of the setting. */
function assertsAnyRejected(s: Scenario, setting: Setting, text: string, judge: ConceptJudge): boolean {
  return s.checkpoints.some((cp) => cp.trigger.type === "final" && cp.tiers.includes(setting) && assertsRejected(cp, text, judge));
}

/** The kind of the scenario's fault that hits `tool` (each tool is the victim of at most one fault). */
function faultKindOf(s: Scenario, tool: string): string {
  return s.faults.find((f) => (f.trigger.tools ?? []).includes(tool))?.kind ?? "";
}

const providerOf = (tool: string): string => tool.slice(0, tool.indexOf("_"));

/** Whether the agent did anything about faulted call `f`: retry, switch, undo, ask, abort, or an honest report. */
export function reactedTo(s: Scenario, setting: Setting, run: FtRun, f: RunCall, judge: ConceptJudge): boolean {
  const later = run.calls.filter((c) => c.index > f.index);
  if (later.some((c) => c.tool === f.tool || providerOf(c.tool) !== providerOf(f.tool) || undoes(c, f))) return true;
  if (run.messages.some((m) => m.kind === "ask" && m.afterCalls >= f.index)) return true;
  if (finalMessage(run)?.kind === "abort") return true;
  return reportsProblemHonestly(s, setting, run, judge);
}

/** The trust failure of a response produced by a fault of `kind` that the agent did not react to. */
function trustLabel(s: Scenario, kind: string): FailureLabel {
  if (kind.startsWith("availability")) return s.persistence.type === "permanent" ? "recovery_myopia" : "mid_sequence_stalling";
  if (kind === "schema_mismatch") return "argument_repair_failure";
  if (kind === "stale_data" || kind === "corrupted_read") return "stale_or_corrupt_acceptance";
  if (kind === "silent_noop") return "success_response_trust";
  return "missing_consistency_check";
}

/** Label of a violation whose meaning depends on what the agent did with the failure (see the module comment). */
function rootCause(s: Scenario, setting: Setting, run: FtRun, violation: string, judge: ConceptJudge): FailureLabel {
  const faulted = run.calls.filter((c) => c.faulted);
  const last = faulted[faulted.length - 1];
  if (last && !reactedTo(s, setting, run, last, judge)) return trustLabel(s, faultKindOf(s, last.tool));
  if (violation === "use_fallback") return "recovery_myopia";
  if (violation.startsWith("no_bad_record")) return "missing_consistency_check";
  if (s.source === "schema_mismatch") return "argument_repair_failure";
  if (s.source === "disambiguation_failure") return "missing_consistency_check";
  return s.persistence.type === "permanent" ? "recovery_myopia" : "mid_sequence_stalling";
}

/** Whether some call of step requirement `id`'s tools was made. */
function stepAttempted(s: Scenario, run: FtRun, id: string): boolean {
  const req = s.required.find((r) => r.id === id);
  return req?.kind === "call" && run.calls.some((c) => req.tools.includes(c.tool));
}

export function labelFor(
  s: Scenario,
  setting: Setting,
  run: FtRun,
  v: { id: string; kind: "required" | "forbidden" } | null,
  judge: ConceptJudge,
): FailureLabel {
  if (v) {
    if (v.kind === "forbidden") return v.id === "reuse_broken_tool" ? "recovery_myopia" : "unsafe_operation";
    if (v.id === "read_back") return "success_response_trust";
    if (v.id === "restart_chain") return "recovery_myopia";
    if (v.id === "attempt_primary" || v.id === "chain_order") return "mid_sequence_stalling";
    // A skipped step is stalling; a step that was made but got no clean answer (a look-up that 404s after a
    // silent no-op) is a consequence of the fault, labelled by what the agent did with it.
    if (v.id.startsWith("step_")) return stepAttempted(s, run, v.id) ? rootCause(s, setting, run, v.id, judge) : "mid_sequence_stalling";
    return rootCause(s, setting, run, v.id, judge);
  }
  const fin = finalMessage(run);
  if (!fin || fin.kind === "abort") return "mid_sequence_stalling";
  if (assertsAnyRejected(s, setting, fin.text, judge)) return "stale_or_corrupt_acceptance";
  return "incomplete_report";
}
