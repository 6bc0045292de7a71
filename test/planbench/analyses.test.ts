/**
 * Hand-made trajectories on the 3-step mini release: the noisy-value poisoning rule as the evaluator counts it, the
 * §8 report fields, and the paper's failure categories and termination styles (scorer.ts `analyseEpisode`).
 */
import { describe, expect, it } from "vitest";
import { createWorld, PlanBenchEpisode, type PlanBenchReply } from "../../envs/planbench/world/index.js";
import { loadPreset, mergeSettings } from "../../envs/planbench/settings.js";
import { aggregateMetrics, groundTruthDatatypes, scoreEpisode, analyseEpisode } from "../../envs/planbench/scorer.js";
import type { PlanBenchRelease, ToolRecord } from "../../envs/planbench/releaseFormat.js";
import { miniRelease } from "./mini.js";
import { paperAnalyses, pathAndSelectionCounts } from "../../envs/planbench/paperAnalyses.js";

const RETRIEVE_TICKET: PlanBenchReply = { kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["ticket_id"] } };
const RETRIEVE_ORDER: PlanBenchReply = { kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["order_id"] } };
const RETRIEVE_PAYMENT: PlanBenchReply = { kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["payment_id"] } };
const call = (name: string, args: Record<string, string>): PlanBenchReply => ({ kind: "call", payload: { name, arguments: args } });
const ORDER_TRUSTED = call("get_order_from_ticket", { ticket_ref: "tk_1" });
const ORDER_NOISY = call("get_order_from_ticket_cache", { ticket_ref: "tk_1" });
const answer = (content: string): PlanBenchReply => ({ kind: "answer", content });

function play(replies: readonly PlanBenchReply[], rel: PlanBenchRelease = miniRelease(), maxSteps?: number) {
  const world = createWorld(
    rel,
    mergeSettings(loadPreset("default"), maxSteps === undefined ? undefined : { runtime: { max_steps: maxSteps } }),
  );
  const q = rel.queries[0]!;
  const ep = new PlanBenchEpisode(world, q);
  for (const r of replies) if (!ep.done) ep.step(r);
  expect(ep.done, "the hand-made trajectory must end the episode").toBe(true);
  const cat = rel.catalog.get(q.task_id)!;
  const ctx = { toolByName: rel.toolByName };
  const result = ep.result!;
  return { ep, result, m: scoreEpisode(result, q, cat, ctx), a: analyseEpisode(result, q, groundTruthDatatypes(cat, ctx), ctx) };
}

describe("noisy-value poisoning (untrusted value reused)", () => {
  it("a value known only from a noisy tool is rejected when passed on, and the rejection counts in UIRR, not ITCR", () => {
    const { ep, m, a } = play([
      RETRIEVE_TICKET,
      ORDER_NOISY,
      ORDER_TRUSTED,
      RETRIEVE_ORDER,
      call("get_payment_from_order", { order_ref: "ord_bad" }),
      answer("no idea"),
    ]);
    const rejected = ep.trace.find((e) => e.internal_error_type === "untrusted_input_rejected")!;
    expect(rejected.untrusted_input_datatypes).toEqual(["order_id"]);
    expect(m.untrustedRejections).toBe(1);
    expect(m.invalidCalls).toBe(0);
    expect(m.callTurns).toBe(3);
    expect(m.noisyCalls).toBe(1);
    const rep = aggregateMetrics([m]);
    expect(rep.uirr).toBe(1 / 3);
    expect(rep.itcr).toBe(0);
    expect(rep.combinedInvalidUntrustedRate).toBe(1 / 3);
    // The noisy call was the first failure signal and the trusted order call progressed after it.
    expect(a.failure).toBe("weak_recovery");
  });

  it("the untrusted verdict takes precedence over a missing datatype, and the same value obtained trustedly is accepted", () => {
    const rel = miniRelease();
    // A stale sibling that returns the true order id: untrusted until a baseline call returns it too.
    const stale = { ...rel.toolByName.get("get_order_from_ticket_cache")!, return_value: "ord_1" } as ToolRecord;
    rel.toolByName.set(stale.name, stale);
    rel.noisyTools = [stale];
    const pay = call("get_payment_from_order", { order_ref: "ord_1" });
    const { ep, m } = play([RETRIEVE_TICKET, RETRIEVE_ORDER, ORDER_NOISY, pay, ORDER_TRUSTED, pay, answer("x")], rel);
    const calls = ep.trace.filter((e) => e.action === "call_tool");
    expect(calls[1]!.internal_error_type).toBe("untrusted_input_rejected");
    expect(calls[1]!.missing_input_datatypes).toEqual(["order_id"]);
    expect(calls[3]!.tool_result!.output_provenance).toBe("trusted");
    expect(m.untrustedRejections).toBe(1);
    expect(m.invalidCalls).toBe(0);
  });

  it("an answer matching a noisy value of the target fails even when the target was reached trustedly (reference §7 quirk)", () => {
    const rel = miniRelease();
    const t3 = rel.toolByName.get("get_refund_status_from_payment")!;
    const cache: ToolRecord = {
      ...t3,
      name: "get_refund_status_from_payment_cache",
      tool_type: "noisy_misleading",
      noise_type: "stale",
      return_value: "approved",
      baseline_tool_name: t3.name,
      description: "Reads an older cache snapshot of the refund status.",
    };
    rel.toolByName.set(cache.name, cache);
    rel.noisyTools = [...rel.noisyTools, cache];
    const { result, m, a } = play(
      [
        RETRIEVE_TICKET,
        ORDER_TRUSTED,
        RETRIEVE_ORDER,
        call("get_payment_from_order", { order_ref: "ord_1" }),
        RETRIEVE_PAYMENT,
        call("get_refund_status_from_payment_cache", { payment_ref: "pay_1" }),
        call("get_refund_status_from_payment", { payment_ref: "pay_1" }),
        answer("approved"),
      ],
      rel,
    );
    expect(result.failure_reason_detail).toBe("target_datatype_not_reached");
    expect(m.success).toBe(0);
    expect(a.termination).toBe("wrong_tool_value");
  });
});

describe("§8 report fields: noisy usage and the combined rate", () => {
  it("mean per query, mean given any, share of queries with a noisy call, combined invalid + untrusted rate", () => {
    const row = (callTurns: number, noisyCalls: number, invalidCalls: number, untrustedRejections: number) => ({
      success: 0,
      turns: callTurns,
      searchTurns: 1,
      callTurns,
      noisyCalls,
      invalidCalls,
      untrustedRejections,
      exploredDatatypes: 0,
      egtPrecision: null,
      egtRecall: 0,
      progressCalls: 0,
    });
    const rep = aggregateMetrics([row(4, 0, 1, 0), row(5, 3, 0, 1), row(2, 0, 0, 0), row(9, 1, 2, 1)]);
    expect(rep.noisyCallsTotal).toBe(4);
    expect(rep.noisyCallsPerQuery).toBe(1);
    expect(rep.queriesWithNoisyCall).toBe(2);
    expect(rep.queriesWithNoisyCallShare).toBe(0.5);
    expect(rep.noisyCallsPerQueryGivenAny).toBe(2);
    expect(rep.noisyCallShare).toBe(4 / 20);
    expect(rep.combinedInvalidUntrustedRate).toBe(5 / 20);
    expect(rep.itcr! + rep.uirr!).toBeCloseTo(rep.combinedInvalidUntrustedRate!, 12);
    const none = aggregateMetrics([row(3, 0, 0, 0)]);
    expect(none.noisyCallsPerQueryGivenAny).toBeNull();
    expect(none.queriesWithNoisyCallShare).toBe(0);
    expect(aggregateMetrics([row(0, 0, 0, 0)]).combinedInvalidUntrustedRate).toBeNull();
  });
});

describe("failure categories and termination styles on hand-made trajectories", () => {
  it("no traction + surrender: no progress call, an answer that repeats no tool value", () => {
    const { a, m } = play([RETRIEVE_TICKET, ORDER_NOISY, answer("I could not find it")]);
    expect([a.failure, a.termination, a.progress]).toEqual(["no_traction", "surrender", 0]);
    expect([m.fail_no_traction, m.term_surrender]).toEqual([1, 1]);
  });

  it("irrecoverable drift + wrong tool value: progress, then a noisy value is answered and nothing progresses after it", () => {
    const { a, m } = play([RETRIEVE_TICKET, ORDER_TRUSTED, ORDER_NOISY, answer("It is ord_bad")]);
    expect([a.failure, a.termination, a.progress]).toEqual(["irrecoverable_drift", "wrong_tool_value", 1]);
    expect([m.fail_irrecoverable_drift, m.term_wrong_tool_value]).toEqual([1, 1]);
  });

  it("weak recovery: a failure signal, then progress, yet the target is never reached", () => {
    const { a, m } = play([
      RETRIEVE_TICKET,
      call("get_order_from_ticket", { ticket: "tk_1" }),
      ORDER_TRUSTED,
      RETRIEVE_ORDER,
      call("get_payment_from_order", { order_ref: "ord_1" }),
      answer("pending?"),
    ]);
    expect([a.failure, a.progress]).toEqual(["weak_recovery", 2]);
    expect(a.termination).toBe("surrender");
    expect(m.fail_weak_recovery).toBe(1);
  });

  it("format error: ended by the label cap, or by a call cap whose last error was a parse failure", () => {
    const labels = play([
      { kind: "text", text: "hmm" },
      { kind: "text", text: "still thinking" },
      { kind: "text", text: "<final_answer>a</final_answer><final_answer>b</final_answer>" },
    ]);
    expect(labels.result.failure_reason_detail).toBe("exceeded_max_label_errors");
    expect([labels.a.failure, labels.a.termination]).toEqual(["format_error", "format_error"]);
    const bad = { kind: "text", text: "<tool_call>{not json</tool_call>" } as const;
    const calls = play([RETRIEVE_TICKET, ORDER_TRUSTED, bad, bad, bad]);
    expect(calls.result.failure_reason_detail).toBe("exceeded_max_tool_call_errors");
    expect([calls.a.failure, calls.a.termination]).toEqual(["format_error", "format_error"]);
    expect([calls.m.fail_format_error, calls.m.term_format_error]).toEqual([1, 1]);
  });

  it("search exhaustion: the step budget, or an error cap reached with well-formed requests", () => {
    const budget = play([RETRIEVE_TICKET, ORDER_TRUSTED, RETRIEVE_ORDER], miniRelease(), 3);
    expect(budget.result.failure_reason_detail).toBe("exceeded_max_steps");
    expect([budget.a.failure, budget.a.termination]).toEqual(["irrecoverable_drift", "search_exhaustion"]);
    const wrong = call("get_order_from_ticket", { ticket: "tk_1" });
    const capped = play([RETRIEVE_TICKET, wrong, wrong, wrong]);
    expect(capped.result.failure_reason_detail).toBe("exceeded_max_tool_call_errors");
    expect([capped.a.failure, capped.a.termination]).toEqual(["no_traction", "search_exhaustion"]);
    expect(capped.m.term_search_exhaustion).toBe(1);
  });

  it("a success has neither a failure category nor a failure termination; shares are over failed episodes", () => {
    const ok = play([
      RETRIEVE_TICKET,
      ORDER_TRUSTED,
      RETRIEVE_ORDER,
      call("get_payment_from_order", { order_ref: "ord_1" }),
      RETRIEVE_PAYMENT,
      call("get_refund_status_from_payment", { payment_ref: "pay_1" }),
      answer("approved"),
    ]);
    expect([ok.a.failure, ok.a.termination, ok.m.success]).toEqual(["none", "success", 1]);
    const drift = play([RETRIEVE_TICKET, ORDER_TRUSTED, ORDER_NOISY, answer("ord_bad")]);
    const rep = aggregateMetrics([ok.m, drift.m]);
    expect(rep["fail_irrecoverable_drift_share"]).toBe(1);
    expect(rep["term_wrong_tool_value_share"]).toBe(1);
  });
});

describe("the paper's analyses as eval tables (paperAnalyses.ts)", () => {
  it("counts retrieval direction, listing recency and sibling selection from the trace", () => {
    const { ep, result } = play([
      RETRIEVE_TICKET,
      ORDER_NOISY,
      ORDER_TRUSTED,
      RETRIEVE_ORDER,
      call("get_payment_from_order", { order_ref: "ord_1" }),
      ORDER_TRUSTED,
      { kind: "retrieve", request: { meta_tool: "by_output_info", output_information: "refund_status" } },
      call("get_refund_status_from_payment", { payment_ref: "pay_1" }),
      answer("approved"),
    ]);
    expect(result.status).toBe("success");
    const rel = miniRelease();
    const c = pathAndSelectionCounts(result, rel.taskById.get("mini_task_1")!, { toolByName: rel.toolByName });
    const first = ep.trace[0]!.retrieval_result!.tools.map((t) => t.name);
    const posNoisy = first.indexOf("get_order_from_ticket_cache");
    const posTrusted = first.indexOf("get_order_from_ticket");
    expect(c).toEqual({
      pathLength: 3,
      retrievalsForward: 2,
      retrievalsBackward: 1,
      retrievalsIo: 0,
      // noisy, trusted, payment, refund from the latest list; the second trusted call from the first list (age 1).
      callsLatestList: 4,
      callsEarlierList: 1,
      retrievalAgeSum: 1,
      // The three order calls had the baseline and its noisy sibling listed together; two chose the baseline.
      selectionChoices: 3,
      selectionBaseline: 2,
      selectionPositioned: 3,
      selectionPositionSum: posNoisy + 2 * posTrusted,
    });
    const rep = paperAnalyses([
      { ...c, success: 1 },
      { ...c, success: 0, pathLength: 5, retrievalsForward: 0 },
    ]);
    expect(rep.metrics["accuracy_L3"]).toBe(1);
    expect(rep.metrics["accuracy_L5"]).toBe(0);
    expect(rep.metrics["forwardBackwardRatio"]).toBe(2 / 2);
    expect(rep.metrics["latestListCallShare"]).toBe(8 / 10);
    expect(rep.metrics["baselineSelectionShare"]).toBe(4 / 6);
    expect(rep.tables.map((t) => t.title)).toEqual([
      "Accuracy by shortest path length L*",
      "Retrieval direction (valid retrievals)",
      "Recency: which listing an executed call's tool came from",
      "Tool selection among same-signature siblings",
    ]);
    expect(rep.tables[0]!.rows).toEqual([
      [3, 1, 1, 1],
      [5, 1, 0, 0],
    ]);
  });
  it("leaves ratios without a denominator out of the metrics", () => {
    const rep = paperAnalyses([{ success: 1, pathLength: 6 }]);
    expect(rep.metrics).toEqual({ accuracy_L6: 1 });
  });
});
