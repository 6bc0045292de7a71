import { describe, expect, it } from "vitest";
import { type Action, type DiscreteToolEnv, type JsonValue, make, type TaskParameter } from "../../src/index.js";
import { CANDIDATE_FEATURES, GLOBAL_FEATURES } from "../../src/engine/discrete/features.js";
import { candidateIndexOf } from "../../src/engine/discrete/replay.js";
import type { ObservableEpisode, SeenAction, SeenCall, SeenTool } from "../../src/engine/discrete/source.js";
import { OUTPUT_FIELD, RETRIEVAL_FEATURES, retrievalFeatures, toolSemantics } from "../../envs/planbench/discrete.js";
import { observableEpisode } from "../helpers/observableEpisode.js";

/** A listed tool that takes `ins` (datatypes) and outputs `out`. */
function tool(name: string, ins: string[], out: string): SeenTool {
  const parameters = Object.fromEntries(ins.map((d) => [`${d}_arg`, d]));
  return {
    name,
    parameters: {
      type: "object",
      properties: Object.fromEntries(ins.map((d) => [`${d}_arg`, { type: "string" }])),
      required: Object.keys(parameters),
    },
    semantics: { parameters, outputs: { [OUTPUT_FIELD]: out } },
  };
}
const QUERY: TaskParameter[] = [
  { name: "order_item_id", type: "order_item_id", value: "orditm_1" },
  { name: "content", type: "refund_time", target: "answer" },
];
const retrieve = (output: string, inputs?: string[]): Action =>
  (inputs
    ? { type: "retrieve", meta_tool: "by_io_info", output_information: output, input_information: inputs }
    : { type: "retrieve", meta_tool: "by_output_info", output_information: output }) as Action;

function episode(tools: SeenTool[], calls: SeenCall[] = [], actions: SeenAction[] = []): ObservableEpisode {
  return { ...observableEpisode(QUERY, tools, calls), actions };
}
function named(ep: ObservableEpisode, a: Action): Record<string, number> {
  const v = retrievalFeatures(ep, a);
  return Object.fromEntries(RETRIEVAL_FEATURES.map((n, i) => [n, v[i]]));
}

describe("PlanBench-XL retrieval features", () => {
  it("tell the asked-for datatype, the backward chain's frontier and the forward step from the newest held datatype", () => {
    const none = episode([]);
    expect(named(none, retrieve("refund_time"))).toMatchObject({ asks_for_answer: 1, asks_for_unlisted_need: 1, output_tool_listed: 0 });
    expect(named(none, retrieve("order_id", ["order_item_id"]))).toMatchObject({
      asks_for_answer: 0,
      asks_for_needed_input: 0,
      uses_newest_held: 1,
    });
    expect(named(none, retrieve("order_item_id"))).toMatchObject({ output_already_held: 1 });

    // The producer of the answer is listed: its input is needed, and retrieving its producer is the frontier.
    const listed = episode([tool("time_of_refund", ["refund_id"], "refund_time")]);
    expect(named(listed, retrieve("refund_time"))).toMatchObject({ asks_for_answer: 1, asks_for_unlisted_need: 0, output_tool_listed: 1 });
    expect(named(listed, retrieve("refund_id"))).toMatchObject({ asks_for_needed_input: 1, asks_for_unlisted_need: 1 });
    expect(named(listed, retrieve("order_id"))).toMatchObject({ asks_for_needed_input: 0, asks_for_unlisted_need: 0 });

    // One level deeper: refund_id's producer takes order_id, which becomes the frontier.
    const deeper = episode([tool("time_of_refund", ["refund_id"], "refund_time"), tool("refund_of_order", ["order_id"], "refund_id")]);
    expect(named(deeper, retrieve("refund_id"))).toMatchObject({ asks_for_needed_input: 1, asks_for_unlisted_need: 0 });
    expect(named(deeper, retrieve("order_id"))).toMatchObject({ asks_for_needed_input: 1, asks_for_unlisted_need: 1 });
  });

  it("after a call, the newest held datatype is its output; repeated requests and empty listings are counted", () => {
    const tools = [tool("order_of_item", ["order_item_id"], "order_id")];
    const made: SeenCall = {
      tool: "order_of_item",
      arguments: { order_item_id_arg: "orditm_1" },
      ok: true,
      response: { toolResult: { output: "ord_1" } },
    };
    const empty: SeenAction = {
      action: retrieve("refund_id", ["order_id"]),
      response: { action: "retrieve_tools", listed: [] } as JsonValue,
      afterCalls: 1,
    };
    const ep = episode(tools, [made], [empty]);
    expect(named(ep, retrieve("refund_id", ["order_id"]))).toMatchObject({
      uses_newest_held: 1,
      times_issued: 0.5,
      issued_listed_nothing: 1,
    });
    expect(named(ep, retrieve("refund_id", ["order_item_id"]))).toMatchObject({ uses_newest_held: 0, times_issued: 0 });
    const full: SeenAction = {
      action: retrieve("refund_id", ["order_id"]),
      response: { action: "retrieve_tools", listed: ["x"] } as JsonValue,
      afterCalls: 1,
    };
    expect(named(episode(tools, [made], [empty, full]), retrieve("refund_id", ["order_id"]))).toMatchObject({
      times_issued: 1,
      issued_listed_nothing: 0,
    });
    expect(retrievalFeatures(ep, { type: "abort" } as Action)).toEqual([]);
  });

  it("a noisy tool whose description admits it is documented with a caveat", () => {
    const base = { surface_argument_to_datatype: { order_item: "order_item_id" }, output_datatype: "order_id" };
    const caveat = toolSemantics({
      ...base,
      description: "This endpoint is retained for older workflows and no longer serves valid data.",
    } as never);
    expect(caveat.caveat).toBe(true);
    expect(toolSemantics({ ...base, description: "Looks up the order of an order item." } as never).caveat).toBeUndefined();
  });

  it("in the env, retrieval candidates differ, and the retrieval of the asked-for datatype is flagged", () => {
    const env = make("PlanBenchXL-v0", { world: "builtin", cycle: true, actionMode: "discrete" }) as unknown as DiscreteToolEnv;
    const g = GLOBAL_FEATURES.length;
    const c = CANDIDATE_FEATURES.length;
    const fam = CANDIDATE_FEATURES.indexOf("family_0");
    const [obs] = env.reset({ seed: 0 });
    const list = env.candidateActions();
    const vectors = new Set<string>();
    list.forEach((a, i) => {
      if (a.type === "retrieve") vectors.add(Array.from(obs.observation.slice(g + i * c + fam, g + i * c + fam + 8)).join(","));
    });
    expect(vectors.size).toBeGreaterThan(2);
    const target = env.inner.observableEpisode()!.parameters.find((p) => p.target === "answer")!.type!;
    const i = candidateIndexOf(env, retrieve(target));
    expect(i).toBeGreaterThanOrEqual(0);
    expect(obs.observation[g + i * c + fam]).toBe(1);
    env.close();
  });
});
