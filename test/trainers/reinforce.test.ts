// examples/train-reinforce.ts, the in-process TypeScript trainer: it must learn Demo-v0 in a few seconds (the
// permanent fault makes the first provider useless, so a policy has to learn to switch), bit-identically per seed.
import { describe, expect, it } from "vitest";
import { trainReinforce } from "../../examples/train-reinforce.js";

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("train-reinforce (TypeScript twin of ppo_masked.py)", () => {
  it("improves return and success on Demo-v0 within a few seconds, and its greedy policy solves held-out seeds", () => {
    const evalSeeds = Array.from({ length: 8 }, (_, i) => 9_000 + i);
    const config = { env: "Demo-v0", options: { fault: "permanent" }, episodes: 480, seed: 1, evalSeeds };
    const t0 = performance.now();
    const { curve, heldOut } = trainReinforce(config);
    const seconds = (performance.now() - t0) / 1000;
    const first = curve.slice(0, 5);
    const last = curve.slice(-5);
    expect(mean(last.map((p) => p.meanReturn))).toBeGreaterThan(mean(first.map((p) => p.meanReturn)) + 0.5);
    expect(mean(last.map((p) => p.success))).toBeGreaterThan(mean(first.map((p) => p.success)) + 0.3);
    expect(heldOut.success).toBeGreaterThanOrEqual(0.75);
    expect(seconds).toBeLessThan(60); // a few seconds unloaded; generous for a shared 2-core CI machine
    // Same seed, same run.
    expect(trainReinforce({ ...config, episodes: 48 }).curve).toEqual(trainReinforce({ ...config, episodes: 48 }).curve);
  }, 120_000);
});
