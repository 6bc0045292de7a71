import { describe, expect, it } from "vitest";
import { ConfigError, type Env, RewardComputer, type ToolObservation, discountedReturn, make, parseRewardSpec, recomputeRewards, rollout } from "../../src/index.js";
import type { Action, RawTerms } from "../../src/index.js";

describe("RewardSpec", () => {
  it("rejects bad specs naming the term", () => {
    expect(() => parseRewardSpec({ name: "x", terms: { retry_after_fault: { weight: 1, kind: "event" } } }, null)).toThrow(/cap/);
    expect(() => parseRewardSpec({ name: "x", terms: { success: { weight: "1", kind: "terminal" } } }, null)).toThrow(/terms.success.weight/);
    expect(() => parseRewardSpec({ name: "x", terms: { foo: { weight: 1, kind: "terminal" } } }, ["success"])).toThrow(ConfigError);
  });

  it("caps event terms per episode so they cannot be farmed", () => {
    const rc = new RewardComputer(parseRewardSpec({ name: "x", terms: { verification: { weight: 0.1, kind: "event", cap: 0.25 } } }, null));
    rc.reset(null);
    const rewards = [1, 1, 1, 1].map(() => rc.step({ verification: 1 }, null).reward);
    expect(rewards.map((r) => Math.round(r * 100) / 100)).toEqual([0.1, 0.1, 0.05, 0]);
  });

  it("potential shaping telescopes: shaped − base = γ^T Φ(s_T) − Φ(s_0)", () => {
    const env = make("Demo-v0", { fault: "permanent", reward: { name: "p", terms: { potential: { weight: 1, kind: "potential" } } } }) as unknown as Env<ToolObservation, Action>;
    for (const seed of [1, 2, 3]) {
      const results = rollout({ envId: "Demo-v0", options: { fault: "permanent", reward: { name: "p", terms: { potential: { weight: 1, kind: "potential" } } } }, policy: "careful", episodes: 1, seed });
      const [, info0] = env.reset({ seed });
      expect(info0.phi).toBe(-3);
      expect(results[0].return).toBeCloseTo(0 - -3, 9);
    }
  });

  it("rewards recomputed offline from rawTerms equal a live run under that spec", () => {
    const spec = { name: "alt", terms: { success: { weight: 2, kind: "terminal" }, tool_call: { weight: -0.1, kind: "cost" }, potential: { weight: 0.5, kind: "potential" } } };
    const live = make("Demo-v0", { fault: "transient", reward: spec }) as unknown as Env<ToolObservation, Action>;
    const base = make("Demo-v0", { fault: "transient" }) as unknown as Env<ToolObservation, Action>;
    const actions: Action[] = [
      { type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } },
      { type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } },
      { type: "abort" },
    ];
    const [, i0] = base.reset({ seed: 9 });
    live.reset({ seed: 9 });
    const steps: { rawTerms: RawTerms; phi: number | null }[] = [];
    const liveRewards: number[] = [];
    for (const a of actions) {
      const [, , , , info] = base.step(a);
      steps.push({ rawTerms: info.rawTerms as RawTerms, phi: info.phi as number });
      liveRewards.push(live.step(a)[1]);
    }
    const re = recomputeRewards(parseRewardSpec(spec, null), i0.phi as number, steps);
    expect(re).toEqual(liveRewards);
    expect(discountedReturn([1, 1, 1], 0.5)).toBeCloseTo(1.75);
  });
});
