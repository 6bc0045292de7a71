import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make } from "../../src/core/registry.js";
import { checkEnv } from "../../src/checker.js";
import { rollout } from "../../src/rollout.js";
import { registryEntry } from "../../src/core/registry.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { officialDir } from "./helpers.js";

const dir = officialDir();
const some = ["retail_query_0001", "retail_query_0004", "retail_query_0005", "retail_query_0006"];

describe.skipIf(!dir)("PlanBenchXL-v0 env", () => {
  it("passes checkEnv", () => {
    const env = make("PlanBenchXL-v0", { dataDir: dir!, queryIds: some });
    checkEnv(env as never, { episodes: 2, maxSteps: 120 });
  });
  it("rejects bad options naming the field", () => {
    expect(() => make("PlanBenchXL-v0", { dataDir: dir!, setting: "nope" })).toThrow(/setting/);
    try {
      make("PlanBenchXL-v0", { dataDir: dir!, queryIds: ["retail_query_9999"] });
      expect.unreachable();
    } catch (e) {
      expect((e as { field?: string }).field).toBe("queryIds");
      expect(String(e)).toMatch(/retail_query_9999/);
    }
    expect(() => make("PlanBenchXL-v0", { dataDir: "/nonexistent" })).toThrow(/datatypes\.json/);
  });
  it("runs an LLM-style tagged reply and reveals retrieved tools as newTools", () => {
    const env = make("PlanBenchXL-v0", { dataDir: dir! }) as unknown as PlanBenchEnv;
    const [obs0, info0] = env.reset({ seed: 1, options: { queryId: "retail_query_0001" } });
    expect(obs0.task).toContain("dla_15001");
    expect(info0.hidden?.["onePath"]).toHaveLength(8);
    const [obs, , term, trunc, info] = env.step({
      type: "text",
      text: 'I will search. <retrieve_tools>{"meta_tool":"by_output_info","output_information":"shipment"}</retrieve_tools>',
    });
    expect(term || trunc).toBe(false);
    expect(obs.newTools).toHaveLength(12);
    expect((obs.response as { feedback: string }).feedback).toMatch(/^Retrieved tools/);
    expect(info.events.some((e: { type: string }) => e.type === "planbench:retrieve")).toBe(true);
    const [, , , , info2] = env.step({ type: "text", text: "no tag here" });
    expect(info2.events[0].type).toBe("planbench:label_error");
  });
  it("oracle via rollout succeeds on every sampled query; aggregate exposes the paper's keys", () => {
    const opts = { dataDir: dir!, queryIds: some };
    const res = rollout({ envId: "PlanBenchXL-v0", options: opts, policy: "oracle", episodes: 6, seed: 3 });
    expect(res.every((r) => r.success)).toBe(true);
    const agg = registryEntry("PlanBenchXL-v0").aggregate!(res);
    for (const k of ["accuracy", "avgTurns", "meanExploredDatatypes", "searchToCallRatio", "itcr", "uirr", "egtPrecision", "egtRecall"])
      expect(agg.metrics[k], k).toBeTypeOf("number");
    // Reference §8 report fields (eval --json prints agg.metrics).
    for (const k of ["combinedInvalidUntrustedRate", "noisyCallsPerQuery", "queriesWithNoisyCallShare", "noisyCallShare"])
      expect(agg.metrics[k], k).toBe(0);
    expect("noisyCallsPerQueryGivenAny" in agg.metrics).toBe(false); // null (no query used a noisy tool) is left out
    expect(agg.metrics["accuracy"]).toBe(1);
    expect(agg.metrics["itcr"]).toBe(0);
    // The paper's analyses: the oracle asks by_io_info for each path tool, runs it from that very list, always the
    // baseline (its noisy siblings are listed next to it); every sampled L* is solved.
    expect(agg.breakdown.map((t) => t.title).slice(0, 4)).toEqual([
      "Accuracy by shortest path length L*",
      "Retrieval direction (valid retrievals)",
      "Recency: which listing an executed call's tool came from",
      "Tool selection among same-signature siblings",
    ]);
    const lengths = Object.keys(agg.metrics).filter((k) => k.startsWith("accuracy_L"));
    expect(lengths.length).toBeGreaterThan(0);
    for (const k of lengths) expect(agg.metrics[k], k).toBe(1);
    expect(agg.metrics["ioRetrievalShare"]).toBe(1);
    expect(agg.metrics["latestListCallShare"]).toBe(1);
    expect(agg.metrics["baselineSelectionShare"]).toBe(1);
    expect("forwardBackwardRatio" in agg.metrics).toBe(false); // no backward retrieval: no ratio
  });
  it("planner and random run through the registry and are deterministic", () => {
    const opts = { dataDir: dir!, queryIds: some, setting: "blocker" };
    const a = rollout({ envId: "PlanBenchXL-v0", options: opts, policy: "planner", episodes: 4, seed: 0 });
    const b = rollout({ envId: "PlanBenchXL-v0", options: opts, policy: "planner", episodes: 4, seed: 0 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const r1 = rollout({ envId: "PlanBenchXL-v0", options: opts, policy: "random", episodes: 3, seed: 5 });
    const r2 = rollout({ envId: "PlanBenchXL-v0", options: opts, policy: "random", episodes: 3, seed: 5 });
    expect(JSON.stringify(r1)).toBe(JSON.stringify(r2));
    expect(r1.every((r) => !r.success)).toBe(true);
  });
});
