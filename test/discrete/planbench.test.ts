import { describe, expect, it } from "vitest";
import { type Action, type DiscreteToolEnv, make } from "../../src/index.js";
import { driveDiscrete } from "../../src/engine/discrete/replay.js";
import { resolveQueryInputs } from "../../envs/planbench/dataset.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { defaultDataDir } from "../../envs/planbench/worldSource.js";
import { queryParameters, suspiciousOutput } from "../../envs/planbench/discrete.js";

const BUILTIN = { world: "builtin", cycle: true, maxCandidates: 256 };

function discrete(options: Record<string, unknown>): { env: DiscreteToolEnv; pb: PlanBenchEnv } {
  const env = make("PlanBenchXL-v0", { ...options, actionMode: "discrete" }) as unknown as DiscreteToolEnv;
  return { env, pb: env.inner.unwrapped as unknown as PlanBenchEnv };
}

describe("PlanBench-XL discrete mode", () => {
  it("task parameters are the query record's inputs and asked-for datatype, never the answer or the path", () => {
    const { env, pb } = discrete(BUILTIN);
    for (let seed = 0; seed < 12; seed++) {
      env.reset({ seed });
      const q = pb.session!.query;
      const params = env.inner.observableEpisode()!.parameters;
      const inputs = Object.fromEntries(params.filter((p) => p.target === undefined).map((p) => [p.type, p.value]));
      expect(inputs).toEqual(resolveQueryInputs(pb.release, q));
      expect(params.filter((p) => p.target === "answer")).toEqual([{ name: "content", type: q.target_datatype, target: "answer" }]);
      expect(params.some((p) => p.value === q.correct_answer)).toBe(false);
    }
    env.close();
  });

  it("offers an unmarked input's literal to every input datatype (the record does not say which it is)", () => {
    const q = {
      query_id: "q",
      task_id: "t",
      query_text: "the attempt `dla_1` at $118.00",
      correct_answer: "x",
      input_datatypes: ["delivery_attempt_id", "unit_price"],
      target_datatype: "account_number",
    };
    expect(
      queryParameters(q)
        .filter((p) => p.target === undefined)
        .map((p) => [p.type, p.value]),
    ).toEqual([
      ["delivery_attempt_id", "dla_1"],
      ["unit_price", "dla_1"],
    ]);
  });

  it("flags implausible typed tool outputs only (the features' suspicious-response bits)", () => {
    expect(suspiciousOutput("output", "##~~##", "order_id")).toBe(true);
    expect(suspiciousOutput("output", "2024-13-40", "order_placed_at")).toBe(true);
    expect(suspiciousOutput("output", "ord_1001", "order_id")).toBe(false);
    expect(suspiciousOutput("feedback", "##~~##", null)).toBe(false);
  });

  it("at reset: abort, then retrievals of the asked-for datatype first; no call or answer before anything is held", () => {
    const { env, pb } = discrete(BUILTIN);
    env.reset({ seed: 5 });
    const target = pb.session!.query.target_datatype;
    const list = env.candidateActions();
    expect(list[0]).toEqual({ type: "abort" });
    expect(list[1]).toEqual({ type: "retrieve", meta_tool: "by_output_info", output_information: target });
    expect(list.every((a) => a.type === "abort" || a.type === "retrieve")).toBe(true);
    expect(list.length).toBeLessThanOrEqual(256);
    env.close();
  });

  it("binds a listed tool's arguments by documented datatype and answers with held values of the asked-for datatype", () => {
    const { env, pb } = discrete(BUILTIN);
    const r = driveDiscrete("PlanBenchXL-v0", BUILTIN, "oracle", 7);
    expect(r.unreachable).toBeNull();
    env.reset({ seed: 7 });
    const inputs = resolveQueryInputs(pb.release, pb.session!.query);
    let sawCall = false;
    for (const i of r.indices) {
      for (const a of env.candidateActions()) {
        if (a.type !== "tool_call") continue;
        const tool = pb.release.toolByName.get((a as Action & { name: string }).name)!;
        const args = (a as Action & { arguments: Record<string, unknown> }).arguments;
        expect(Object.keys(args).sort()).toEqual(Object.keys(tool.surface_argument_to_datatype).sort());
        sawCall = true;
      }
      const [, , done] = env.step(i);
      if (done) break;
    }
    expect(sawCall).toBe(true);
    expect(r.success).toBe(true);
    // The oracle's answer (the last call's output, of the asked-for datatype) was itself a candidate.
    expect(r.actions.at(-1)?.type).toBe("answer");
    expect(r.equivalent).toEqual([]);
    expect(Object.keys(inputs).length).toBeGreaterThan(0);
    env.close();
  });

  // The official subset (measured 100% over all 227 queries at the default K, 256): a sample, skipped without ../shared.
  it.skipIf(defaultDataDir() === null)("reachability on the official subset (sample): the oracle's actions are candidates", () => {
    const seeds = Array.from({ length: 25 }, (_, i) => 1 + 9 * i);
    const options = { cycle: true };
    const reached = seeds.filter((s) => driveDiscrete("PlanBenchXL-v0", options, "oracle", s).unreachable === null);
    expect(reached.length / seeds.length).toBeGreaterThanOrEqual(0.99);
  });
});
