/** What one official reply emits: the family's events, read off its trace entry, and the raw reward terms they count. */
import type { EpisodeEvent } from "../../src/family.js";
import { calledName } from "./calls.js";
import type { PlanBenchEpisode, StepOutcome } from "./world/runtime.js";

/**
 * Appends the family's events of a reply's outcome. `heldBefore`: the trusted datatypes held before the reply;
 * `groundTruth`: the datatypes on the task's catalog paths (a new one is progress).
 */
export function pushReplyEvents(
  out: StepOutcome,
  ep: PlanBenchEpisode,
  heldBefore: ReadonlySet<string>,
  groundTruth: ReadonlySet<string>,
  events: EpisodeEvent[],
): void {
  const e = out.entry;
  if (e.action === "others") events.push({ type: "planbench:label_error", attempt: ep.labelErrors });
  if (e.action === "retrieve_tools") {
    events.push({ type: "planbench:retrieve", ok: e.retrieval_result !== undefined, listed: (out.listed ?? []).length });
  }
  if (e.action === "call_tool") {
    const name = calledName(e.request);
    const tr = e.tool_result;
    if (tr?.output_provenance === "untrusted") {
      events.push({ type: "planbench:untrusted_output", tool: name, source: tr.untrusted_source_type ?? "noisy" });
    }
    if (tr?.output_provenance === "trusted" && !heldBefore.has(tr.output_datatype) && groundTruth.has(tr.output_datatype)) {
      events.push({ type: "planbench:progress", datatype: tr.output_datatype });
    }
    if (e.internal_error_type === "untrusted_input_rejected") {
      events.push({ type: "planbench:untrusted_rejected", tool: name, datatypes: e.untrusted_input_datatypes ?? [] });
    }
  }
  if (e.action === "final_answer") {
    const correct = e.answer_correct === true && e.datatype_check_passed === true;
    events.push({ type: "planbench:final_answer", content: e.answer ?? "", correct });
    if (e.incorrect_final_answer_feedback_sent)
      events.push({ type: "planbench:feedback_sent", count: e.incorrect_final_answer_feedback_count ?? 0 });
  }
}

/** The family's raw reward terms of a step: untrusted outputs, progress and label errors, counted. */
export function rawTerms(events: readonly EpisodeEvent[]): Record<string, number> {
  const raw: Record<string, number> = {};
  for (const e of events) {
    if (e.type === "planbench:untrusted_output") raw["untrusted_output"] = (raw["untrusted_output"] ?? 0) + 1;
    if (e.type === "planbench:progress") raw["progress"] = (raw["progress"] ?? 0) + 1;
    if (e.type === "planbench:label_error") raw["label_error"] = (raw["label_error"] ?? 0) + 1;
  }
  return raw;
}
