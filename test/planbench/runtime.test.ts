import { describe, expect, it } from "vitest";
import { createWorld, PlanBenchEpisode, extractAction } from "../../envs/planbench/world/index.js";
import { loadPreset, mergeSettings } from "../../envs/planbench/settings.js";
import { miniRelease } from "./mini.js";

const rel = miniRelease();
const q = rel.queries[0]!;
const fresh = (over?: Parameters<typeof mergeSettings>[1]): PlanBenchEpisode =>
  new PlanBenchEpisode(createWorld(rel, mergeSettings(loadPreset("default"), over)), q);

describe("official reply rules", () => {
  it("extracts exactly one tag (case-insensitive, multi-line) and rejects zero or two", () => {
    expect(extractAction("x <FINAL_ANSWER>\n 42 \n</final_answer>")).toEqual({ tag: "final_answer", content: "42" });
    expect(extractAction("no tags")).toBeNull();
    expect(extractAction("<final_answer>1</final_answer><tool_call>{}</tool_call>")).toBeNull();
    expect(extractAction("<final_answer>1</final_answer><final_answer>2</final_answer>")).toBeNull();
  });
  it("ends after 3 label errors in a row; a valid tag resets the count", () => {
    const ep = fresh();
    ep.step({ kind: "text", text: "hmm" });
    ep.step({ kind: "text", text: "hmm" });
    ep.step({ kind: "text", text: '<retrieve_tools>{"meta_tool":"by_inputs","input_information":["ticket_id"]}</retrieve_tools>' });
    expect(ep.labelErrors).toBe(0);
    ep.step({ kind: "text", text: "a" });
    ep.step({ kind: "text", text: "b" });
    const o = ep.step({ kind: "text", text: "c" });
    expect(o.done).toBe(true);
    expect(ep.result!.failure_reason_detail).toBe("exceeded_max_label_errors");
    expect(ep.result!.steps).toBe(6);
    expect(ep.result!.trace.filter((e) => e.action === "others")).toHaveLength(5);
  });
  it("counts retrieval errors until a successful retrieval, then ends at 3", () => {
    const ep = fresh();
    ep.step({ kind: "text", text: "<retrieve_tools>not json</retrieve_tools>" });
    ep.step({ kind: "text", text: '<retrieve_tools>{"meta_tool":"by_magic"}</retrieve_tools>' });
    ep.step({ kind: "text", text: '<tool_call>{"name":"x","arguments":{}}</tool_call>' });
    expect(ep.retrievalErrors).toBe(2);
    const o = ep.step({ kind: "text", text: '<retrieve_tools>{"meta_tool":"by_inputs","input_information":[]}</retrieve_tools>' });
    expect(o.done).toBe(true);
    expect(ep.result!.failure_reason_detail).toBe("exceeded_max_retrieval_errors");
  });
  it("only lets retrieved tools be called, with the tool's own parameter names", () => {
    const ep = fresh();
    expect(ep.step({ kind: "call", payload: { name: "get_order_from_ticket", arguments: { ticket_ref: "tk_1" } } }).entry.error_kind).toBe(
      "not_retrieved",
    );
    ep.step({ kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["ticket_id"] } });
    expect(ep.step({ kind: "call", payload: { name: "get_order_from_ticket", arguments: { ticket_id: "tk_1" } } }).entry.error_kind).toBe(
      "wrong_arguments",
    );
    expect(ep.callErrors).toBe(2);
    const ok = ep.step({ kind: "call", payload: { name: "get_order_from_ticket", arguments: { ticket_ref: "tk_1" } } });
    expect(ok.execution!.outputValue).toBe("ord_1");
    expect(ep.callErrors).toBe(0);
    expect(ep.currentDatatypes.has("order_id")).toBe(true);
  });
  it("rejects an input known only from an untrusted tool, and a datatype not yet held", () => {
    const ep = fresh();
    ep.step({ kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["ticket_id"] } });
    ep.step({ kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["order_id"] } });
    const miss = ep.step({ kind: "call", payload: { name: "get_payment_from_order", arguments: { order_ref: "ord_1" } } });
    expect(miss.entry.internal_error_type).toBe("missing_required_input");
    const noisy = ep.step({ kind: "call", payload: { name: "get_order_from_ticket_cache", arguments: { ticket_ref: "anything" } } });
    expect(noisy.entry.tool_result!.output_provenance).toBe("untrusted");
    expect(ep.currentDatatypes.has("order_id")).toBe(false);
    ep.step({ kind: "call", payload: { name: "get_order_from_ticket", arguments: { ticket_ref: "tk_1" } } });
    const rej = ep.step({ kind: "call", payload: { name: "get_payment_from_order", arguments: { order_ref: "ord_bad" } } });
    expect(rej.entry.internal_error_type).toBe("untrusted_input_rejected");
    // A trusted value of the same datatype is fine; a "no result" lookup is a successful execution.
    const none = ep.step({ kind: "call", payload: { name: "get_payment_from_order", arguments: { order_ref: "ord_404" } } });
    expect(none.entry.tool_result!.output_provenance).toBe("none");
    expect(none.feedback).toMatch(/^Error: no result exists for the provided input\(s\): order_ref="ord_404"\./);
    expect(ep.callErrors).toBe(0);
  });
  it("rejects a correct answer when the target was not reached by a trusted call", () => {
    const ep = fresh();
    const o = ep.step({ kind: "answer", content: "Approved" });
    expect(o.entry.answer_correct).toBe(true);
    expect(o.entry.datatype_check_passed).toBe(false);
    expect(ep.result!.failure_reason_detail).toBe("target_datatype_not_reached");
  });
  it("sends enforced-exploration feedback up to the budget, then ends", () => {
    const ep = fresh({ runtime: { enable_incorrect_final_answer_feedback: true, incorrect_final_answer_feedback_budget: 2 } });
    expect(ep.step({ kind: "answer", content: "x" }).done).toBe(false);
    expect(ep.step({ kind: "answer", content: "y" }).done).toBe(false);
    const o = ep.step({ kind: "answer", content: "z" });
    expect(o.done).toBe(true);
    expect(ep.result!.final_answer).toBe("z");
    expect(ep.result!.trace.filter((e) => e.incorrect_final_answer_feedback_sent)).toHaveLength(2);
  });
  it("stops at the step budget and is deterministic", () => {
    const run = (): string => {
      const ep = fresh({ runtime: { max_steps: 4 } });
      for (let i = 0; i < 4; i++)
        ep.step({
          kind: "retrieve",
          request: { meta_tool: "by_output_info", output_information: ["order", "refund", "payment", "x"][i]! },
        });
      expect(ep.result!.failure_reason_detail).toBe("exceeded_max_steps");
      return JSON.stringify(ep.result);
    };
    expect(run()).toBe(run());
  });
});
