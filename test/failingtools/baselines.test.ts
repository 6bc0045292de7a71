import { describe, expect, it } from "vitest";
import { generateScenarios } from "../../envs/failingtools/scenarios/generate.js";
import type { Setting } from "../../envs/failingtools/scenarios/schema.js";
import { ftEnv, play } from "./helpers.js";

// The checks: the oracle solves every scenario on Base (so every scenario is solvable), the naive agent
// does well without injection and badly with it (so the failures bite), and the careful agent lands in between.
const all = generateScenarios();

function meanAccuracy(policy: string, setting: Setting): number {
  const env = ftEnv({ setting });
  let acc = 0;
  for (const s of all) acc += Number(play(env, policy, s.id).metrics.accuracy);
  return acc / all.length;
}

describe("Failing Tools baselines", () => {
  it("oracle scores 100% on Base for every scenario", () => {
    const env = ftEnv({ setting: "base" });
    const failed = all.filter((s) => play(env, "oracle", s.id).metrics.score !== 1).map((s) => s.id);
    expect(failed).toEqual([]);
  });
  it("oracle also scores 100% on Clean and Relaxed", () => {
    expect(meanAccuracy("oracle", "clean")).toBe(1);
    expect(meanAccuracy("oracle", "relaxed")).toBe(1);
  });
  it("naive is high on Clean and low on Base", () => {
    const naiveClean = meanAccuracy("naive", "clean");
    const naiveRelaxed = meanAccuracy("naive", "relaxed");
    const naiveBase = meanAccuracy("naive", "base");
    expect(naiveClean).toBeGreaterThan(0.75);
    expect(naiveBase).toBeLessThan(0.2);
    expect(naiveRelaxed).toBeGreaterThan(naiveBase);
  });
  it("careful lands between naive and oracle on Base, by real margins, and misses for the documented reason", () => {
    const env = ftEnv({ setting: "base" });
    const missed = all.filter((s) => play(env, "careful", s.id).metrics.accuracy !== 1);
    const carefulBase = 1 - missed.length / all.length;
    const naiveBase = meanAccuracy("naive", "base");
    expect(carefulBase).toBeGreaterThan(naiveBase + 0.5);
    // At least 1% of the set (3 scenarios) below the oracle's 100%...
    expect(missed.length).toBeGreaterThanOrEqual(Math.ceil(all.length * 0.01));
    // ...all of them implicitly stale reads: careful cannot know "now", so an outdated value without a warning
    // flag fools it, and the run is labelled as accepting stale data.
    for (const s of missed) {
      expect([s.id, s.source, s.visibility]).toEqual([s.id, "data_staleness", "implicit"]);
      expect(play(env, "careful", s.id).metrics.failureMode, s.id).toBe("stale_or_corrupt_acceptance");
    }
  });
  it("random rarely succeeds", () => {
    const env = ftEnv({ setting: "base" });
    const acc = all.slice(0, 60).reduce((a, s) => a + Number(play(env, "random", s.id).metrics.accuracy), 0) / 60;
    expect(acc).toBeLessThan(0.1);
  });
});
