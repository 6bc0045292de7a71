import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make, recordEpisodes, resolveRewardSpec, returnsUnder, type ToolEnv } from "../../src/index.js";

const DIR = join(import.meta.dirname, "../../configs/rewards/toolmaze");
// Seeds spread over the canonical suite: every level and every perturbation mode.
const SEEDS = Array.from({ length: 30 }, (_, i) => (i * 67 + 3) % 2000);

describe("ToolMaze reward presets (issue 8)", () => {
  const terms = (make("ToolMaze-v0") as unknown as ToolEnv<unknown>).knownTerms();

  it("ships sparse, shaped, potential-only and one ablation per shaped term, all valid", () => {
    const names = readdirSync(DIR)
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.replace(/\.json$/, ""))
      .sort();
    const shaped = resolveRewardSpec("shaped", "toolmaze", terms);
    const expected = ["potential-only", "shaped", "sparse", ...Object.keys(shaped.terms).map((t) => `shaped-no-${t}`)].sort();
    expect(names).toEqual(expected);
    for (const n of names) {
      const spec = resolveRewardSpec(n, "toolmaze", terms);
      if (n.startsWith("shaped-no-")) {
        const zeroed = Object.entries(spec.terms)
          .filter(([, t]) => t.weight === 0)
          .map(([k]) => k);
        expect(zeroed).toEqual([n.slice("shaped-no-".length)]);
      }
    }
    const po = resolveRewardSpec("potential-only", "toolmaze", terms);
    expect(Object.keys(po.terms)).toEqual(["potential"]);
  });

  it("potential shaping obeys the identity: shaped − unshaped return = w·(γ^T Φ(s_T) − Φ(s_0)), γ = 1", () => {
    const shaped = resolveRewardSpec("shaped", "toolmaze", terms);
    const base = resolveRewardSpec("shaped-no-potential", "toolmaze", terms);
    const only = resolveRewardSpec("potential-only", "toolmaze", terms);
    const w = shaped.terms.potential!.weight;
    expect(shaped.gamma).toBe(1);
    let checked = 0;
    for (const policy of ["heuristic", "oracle", "random", "adversary:call-everything"]) {
      const eps = recordEpisodes("ToolMaze-v0", {}, policy, SEEDS, 30);
      const a = returnsUnder(shaped, eps);
      const b = returnsUnder(base, eps);
      const p = returnsUnder(only, eps);
      eps.forEach((e, i) => {
        const phiT = e.steps[e.steps.length - 1]!.phi!;
        expect(e.phi0).not.toBeNull();
        expect(a[i]! - b[i]!).toBeCloseTo(w * (phiT - e.phi0!), 10);
        expect(p[i]!).toBeCloseTo(phiT - e.phi0!, 10);
        // Φ = −(calls still needed): at most 0 (0 from the start only on an unsolvable task), 0 once done.
        expect(e.phi0!).toBeLessThanOrEqual(0);
        if (e.success) expect(phiT).toBe(0);
        checked++;
      });
    }
    expect(checked).toBe(4 * SEEDS.length);
  });
});
