import { describe, expect, it } from "vitest";
import { ADVERSARIES, make, recordEpisodes, resolveRewardSpec, returnsUnder, Rng } from "../../src/index.js";
import type { Action } from "../../src/engine/actions.js";
import type { ToolEnv } from "../../src/engine/toolEnv.js";
import { potentialShapingGaps } from "../helpers/potentialIdentity.js";
import { evaluateCriterion } from "../../envs/toolmisuse/scorer.js";
import { generateSplit } from "../../envs/toolmisuse/tasks.js";

const ID = "ToolMisuseBench-v0";
const SEEDS = Array.from({ length: 24 }, (_, i) => 300 + i);
const POLICIES = ["instruction-parser", "oracle", "heuristic", "schema-repair", ...Object.keys(ADVERSARIES).map((a) => `adversary:${a}`)];

describe("ToolMisuseBench potential Φ = −(required gold calls left)", () => {
  it("Φ(s_0) = −(required gold steps) on every test_public task, since no step's criteria hold initially", () => {
    for (const t of generateSplit("test_public")) {
      const met = t.record.success_criteria.map((c) => evaluateCriterion(c, t.record.initial_state, [], "fixed"));
      expect(t.phiSteps.filter((crit) => crit.some((i) => !met[i])).length).toBe(t.phiSteps.length);
      expect(t.phiSteps.length).toBeGreaterThan(0);
    }
  });

  it("potential-only return equals Φ(s_T) − Φ(s_0) for baselines, adversaries and random play (γ = 1)", () => {
    const spec = resolveRewardSpec("potential-only", "toolmisuse", (make(ID) as unknown as ToolEnv<unknown>).knownTerms());
    for (const policy of POLICIES) {
      const eps = recordEpisodes(ID, {}, policy, SEEDS, 200);
      const returns = returnsUnder(spec, eps);
      eps.forEach((e, i) => {
        const phiT = e.steps[e.steps.length - 1]!.phi as number;
        expect(returns[i]).toBeCloseTo(phiT - (e.phi0 as number), 12);
        if (e.success) expect(phiT).toBe(0);
      });
    }
    // Live, with random actions and a discount: Σ γ^t r_t = γ^T Φ(s_T) − Φ(s_0) (non-trivial even when Φ never
    // moves, since each step then pays (γ − 1)Φ).
    const gamma = 0.9;
    const env = make(ID, {
      reward: { name: "pot-0.9", gamma, terms: { potential: { weight: 1, kind: "potential" } } },
    }) as unknown as ToolEnv<unknown>;
    for (const seed of SEEDS) {
      const rng = new Rng(seed).derive("random-play");
      const [, info0] = env.reset({ seed });
      let g = 0;
      let t = 0;
      let phi = info0.phi as number;
      for (; !env.isDone(); t++) {
        const [, r, , , info] = env.step(
          rng.bool(0.15) ? ({ type: "answer", content: "x" } as Action) : (env.actionSpace.sample(rng) as Action),
        );
        g += gamma ** t * r;
        phi = info.phi as number;
      }
      expect(info0.phi as number).toBeLessThan(0);
      expect(g).toBeCloseTo(gamma ** t * phi - (info0.phi as number), 12);
    }
  });

  it("shaped return − shaped-without-potential return = 0.1 · (Φ(s_T) − Φ(s_0)) on the careful baseline's episodes", () => {
    const terms = (make(ID) as unknown as ToolEnv<unknown>).knownTerms();
    const eps = recordEpisodes(ID, {}, "instruction-parser", SEEDS, 200);
    let progressed = 0;
    for (const { got, want, delta } of potentialShapingGaps("toolmisuse", terms, eps)) {
      if (delta > 0) progressed++;
      expect(got).toBeCloseTo(want, 12);
    }
    expect(progressed).toBeGreaterThan(SEEDS.length / 2);
  });
});
