import { describe, expect, it } from "vitest";
import { createWorld, PlanBenchEpisode } from "../../envs/planbench/world/index.js";
import { loadPreset } from "../../envs/planbench/settings.js";
import { aggregateMetrics, scoreEpisode } from "../../envs/planbench/scorer.js";
import { miniRelease } from "./mini.js";

describe("official metrics", () => {
  it("reproduces the paper's Figure 9 worked example (Acc 100%, EGT-P 100%, 10 turns, 3 explored, S/C 0.50, ITCR = UIRR = 16.7%)", () => {
    const rel = miniRelease();
    const world = createWorld(rel, loadPreset("default"));
    const q = rel.queries[0]!;
    const ep = new PlanBenchEpisode(world, q);
    const steps = [
      '<retrieve_tools>{"meta_tool":"by_inputs","input_information":["ticket_id"]}</retrieve_tools>',
      '<tool_call>{"name":"get_order_from_ticket_cache","arguments":{"ticket_ref":"tk_1"}}</tool_call>',
      '<tool_call>{"name":"get_order_from_ticket","arguments":{"ticket":"tk_1"}}</tool_call>',
      '<tool_call>{"name":"get_order_from_ticket","arguments":{"ticket_ref":"tk_1"}}</tool_call>',
      '<retrieve_tools>{"meta_tool":"by_inputs","input_information":["order_id"]}</retrieve_tools>',
      '<tool_call>{"name":"get_payment_from_order","arguments":{"order_ref":"ord_bad"}}</tool_call>',
      '<tool_call>{"name":"get_payment_from_order","arguments":{"order_ref":"ord_1"}}</tool_call>',
      '<retrieve_tools>{"meta_tool":"by_io_info","output_information":"refund_status","input_information":["payment_id"]}</retrieve_tools>',
      '<tool_call>{"name":"get_refund_status_from_payment","arguments":{"payment_ref":"pay_1"}}</tool_call>',
      "The status is <final_answer>approved</final_answer>",
    ];
    const errors: Array<string | undefined> = [];
    for (const text of steps) errors.push(ep.step({ kind: "text", text }).entry.error_kind);
    expect(errors).toEqual([
      undefined,
      undefined,
      "wrong_arguments",
      undefined,
      undefined,
      "untrusted_input_rejected",
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const r = ep.result!;
    expect(r.status).toBe("success");
    const m = scoreEpisode(r, q, rel.catalog.get(q.task_id)!, { toolByName: rel.toolByName });
    const rep = aggregateMetrics([m]);
    expect(rep.accuracy).toBe(1);
    expect(rep.egtPrecision).toBe(1);
    expect(rep.avgTurns).toBe(10);
    expect(rep.meanExploredDatatypes).toBe(3);
    expect(rep.searchToCallRatio).toBe(0.5);
    expect(rep.itcr).toBeCloseTo(1 / 6, 10);
    expect(rep.uirr).toBeCloseTo(1 / 6, 10);
    expect(Number((rep.itcr! * 100).toFixed(1))).toBe(16.7);
    expect(rep.egtRecall).toBe(0.75);
    expect(m.noisyCalls).toBe(1);
    expect(m.progressCalls).toBe(3);
  });

  it("uses ratios of sums across episodes and counts a noisy value in the answer as a failure", () => {
    const rel = miniRelease();
    const world = createWorld(rel, loadPreset("default"));
    const q = rel.queries[0]!;
    const ep = new PlanBenchEpisode(world, q);
    ep.step({ kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["ticket_id"] } });
    ep.step({ kind: "call", payload: { name: "get_order_from_ticket_cache", arguments: { ticket_ref: "tk_1" } } });
    ep.step({ kind: "answer", content: "ord_bad" });
    const m = scoreEpisode(ep.result!, q, rel.catalog.get(q.task_id)!, { toolByName: rel.toolByName });
    expect(m.success).toBe(0);
    expect(m.egtPrecision).toBeNull();
    expect(m.term_wrong_tool_value).toBe(1);
    const rep = aggregateMetrics([m, { ...m, searchTurns: 3, callTurns: 3 }]);
    expect(rep.searchToCallRatio).toBe(4 / 4);
  });
});
