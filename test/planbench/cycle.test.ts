import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make } from "../../src/core/registry.js";
import { rollout } from "../../src/rollout.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { cycleIndex } from "../../envs/planbench/queryPool.js";
import { officialDir } from "./helpers.js";

const dir = officialDir();

/** The query a reset plays (info.taskId is the query id). */
function queryOf(env: PlanBenchEnv, seed?: number): string {
  const [, info] = env.reset(seed === undefined ? {} : { seed });
  return String(info["taskId"]);
}

describe("PlanBenchXL-v0 `cycle`: each query once", () => {
  it("maps seed s to pool[s mod n] in queries.json order (queryIds filter, not their order); unseeded resets continue", () => {
    const probe = make("PlanBenchXL-v0", { world: "builtin" }) as unknown as PlanBenchEnv;
    const fileOrder = probe.release.queries.slice(0, 5).map((q) => q.query_id);
    const env = make("PlanBenchXL-v0", { world: "builtin", cycle: true, queryIds: [...fileOrder].reverse() }) as unknown as PlanBenchEnv;
    const seen = Array.from({ length: 10 }, (_, s) => queryOf(env, s));
    expect(seen).toEqual([...fileOrder, ...fileOrder]);
    env.reset({ seed: 3 });
    const next = [0, 1, 2].map(() => queryOf(env));
    expect(next).toEqual([fileOrder[4], fileOrder[0], fileOrder[1]]);
    // An explicit queryId still wins.
    env.reset({ seed: 0, options: { queryId: fileOrder[2]! } });
    expect(env.session!.query.query_id).toBe(fileOrder[2]);
  }, 60_000);

  it("cycleIndex: seed and continuation arithmetic (negative seeds wrap, foreign paths fall back to a draw)", () => {
    expect(cycleIndex("7", 5)).toBe(2);
    expect(cycleIndex("-1", 5)).toBe(4);
    expect(cycleIndex("7/next:4", 5)).toBe(1);
    expect(cycleIndex("fork/x", 5)).toBeNull();
  });

  it("rejects a non-boolean cycle naming the option", () => {
    expect(() => make("PlanBenchXL-v0", { world: "builtin", cycle: "yes" })).toThrow(/cycle/);
  });

  it.skipIf(!dir)(
    "official subset: `--episodes n --opt cycle=true` plays every query exactly once (oracle)",
    () => {
      const env = make("PlanBenchXL-v0", { dataDir: dir! }) as unknown as PlanBenchEnv;
      const n = env.release.queries.length;
      const res = rollout({ envId: "PlanBenchXL-v0", options: { dataDir: dir!, cycle: true }, policy: "oracle", episodes: n, seed: 0 });
      expect(res.map((r) => r.taskId)).toEqual(env.release.queries.map((q) => q.query_id));
      expect(res.every((r) => r.success)).toBe(true);
    },
    60_000,
  );
});
