import { describe, expect, it } from "vitest";
import "../../envs/failingtools/index.js";
import { analyzeFailingToolsTrajectory } from "../../envs/failingtools/analyze.js";
import { listRewardPresets, resolveRewardSpec } from "../../src/rewards/presets.js";
import { recordEpisodes, returnsUnder } from "../../src/ablation.js";
import { registryEntry } from "../../src/core/registry.js";
import type { RewardSpec } from "../../src/rewards/spec.js";
import type { Trajectory } from "../../src/core/trajectory.js";
import { ftEnv, play } from "./helpers.js";

const SEEDS = Array.from({ length: 24 }, (_, i) => 300 + i);

describe("Failing Tools reward presets (issue 8)", () => {
  const env = ftEnv();
  const terms = env.knownTerms();
  const shaped = resolveRewardSpec("shaped", "failingtools", terms);
  it("ships sparse, shaped, potential-only and one ablation per shaped term, all valid", () => {
    const names = listRewardPresets("failingtools");
    for (const n of ["sparse", "shaped", "potential-only"]) expect(names).toContain(n);
    for (const term of Object.keys(shaped.terms)) {
      const name = `shaped-no-${term}`;
      expect(names, name).toContain(name);
      const spec = resolveRewardSpec(name, "failingtools", terms);
      expect(spec.terms[term].weight).toBe(0);
      for (const [k, t] of Object.entries(shaped.terms)) if (k !== term) expect(spec.terms[k]).toEqual(t);
    }
    const po = resolveRewardSpec("potential-only", "failingtools", terms);
    expect(Object.values(po.terms).map((t) => t.kind)).toEqual(["potential"]);
  });
  it("names careful as the bar for the anti-hacking test", () => {
    expect(registryEntry("FailingTools-v0").carefulPolicy).toBe("careful");
  });
});

describe("potential shaping identity: shaped − base return = γ^T Φ(s_T) − Φ(s_0)", () => {
  const base: RewardSpec = { name: "base", gamma: 1, terms: { final_score: { weight: 1, kind: "terminal" } } };
  const withPhi: RewardSpec = {
    name: "phi",
    gamma: 1,
    terms: { final_score: { weight: 1, kind: "terminal" }, potential: { weight: 1, kind: "potential" } },
  };
  for (const policy of ["careful", "naive", "random"]) {
    it(`holds on every ${policy} episode, and Φ really moves`, () => {
      const eps = recordEpisodes("FailingTools-v0", {}, policy, SEEDS, 40);
      const a = returnsUnder(withPhi, eps);
      const b = returnsUnder(base, eps);
      let moved = 0;
      eps.forEach((e, i) => {
        const phiT = e.steps[e.steps.length - 1].phi as number;
        expect(e.phi0).not.toBeNull();
        expect(e.phi0 as number).toBeLessThan(0);
        expect(a[i] - b[i]).toBeCloseTo(phiT - (e.phi0 as number), 9);
        if (phiT !== e.phi0) moved += 1;
      });
      if (policy !== "random") expect(moved).toBeGreaterThan(SEEDS.length / 2);
    });
  }
  it("Φ = −(remaining required calls): 0 once the oracle has done everything the setting requires", () => {
    const r = play(ftEnv({ setting: "base" }), "oracle", "ft-payments.send-corrupted-state-perm-zelle");
    expect(r.final.phi).toBe(0);
  });
});

describe("analyzeTrajectory (written by recovery-gym collect)", () => {
  it("labels the run with its first error and returns the score breakdown", () => {
    const env = ftEnv({ setting: "base" });
    const r = play(env, "naive", "ft-payments.send-corrupted-state-perm-zelle");
    const steps = [
      {
        t: 0,
        action: {},
        observation: {},
        reward: 0,
        terminated: true,
        truncated: false,
        rewardTerms: {},
        rawTerms: {},
        phi: null,
        events: (r.final.events as Trajectory["steps"][number]["events"]) ?? [],
      },
    ];
    const traj = { metrics: r.metrics, steps } as unknown as Trajectory;
    const a = analyzeFailingToolsTrajectory(traj);
    expect(a.failureMode).toBe(r.metrics.failureMode);
    expect(a.failureMode).not.toBeNull();
    expect(a.outcome).not.toBe("full_score");
    const bd = a.breakdown as { checkpoints: Record<string, { passed: boolean }>; violations: string[] };
    expect(Object.keys(bd.checkpoints)).toContain("final_answer");
    expect(bd.violations.length).toBeGreaterThan(0);
    const ok = play(env, "oracle", "ft-payments.send-corrupted-state-perm-zelle");
    expect(analyzeFailingToolsTrajectory({ metrics: ok.metrics, steps: [] } as unknown as Trajectory)).toMatchObject({
      failureMode: null,
      outcome: "full_score",
      score: 1,
    });
  });
});
