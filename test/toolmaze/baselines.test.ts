import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { registryEntry, rollout } from "../../src/index.js";

const agg = (policy: string, options: Record<string, unknown> = {}, episodes = 2000) => {
  const results = rollout({ envId: "ToolMaze-v0", policy, episodes, seed: 0, options });
  return registryEntry("ToolMaze-v0").aggregate!(results).metrics;
};

describe("ToolMaze baselines: the sanity pattern", () => {
  const oracle = agg("oracle");
  const happy = agg("happy-path");
  const heuristic = agg("heuristic");

  it("oracle: TSR = 100%, PRR = 100%, RC = 0 on the whole canonical suite", () => {
    expect(oracle.episodes).toBe(2000);
    expect(oracle.TSR).toBe(1);
    expect(oracle.PRR).toBe(1);
    expect(oracle.RC).toBe(0);
  });

  it("happy-path: solves NP, PRR = 0 under P2/P4 with alternatives (C2–C4)", () => {
    expect(happy.TSR_NP).toBe(1);
    for (const c of ["C2", "C3", "C4"]) {
      for (const p of ["P2", "P4"]) {
        const m = agg("happy-path", { complexity: c, perturbation: p }, 100);
        expect(m[`PRR_${p}`]).toBe(0);
        expect(m.TSR).toBe(0);
      }
    }
    expect(happy.PRR).toBe(0);
  });

  it("heuristic lies strictly between happy-path and oracle", () => {
    expect(heuristic.TSR).toBeGreaterThan(happy.TSR);
    expect(heuristic.TSR).toBeLessThan(oracle.TSR);
    expect(heuristic.PRR).toBeGreaterThan(happy.PRR);
    expect(heuristic.PRR).toBeLessThan(oracle.PRR);
    expect(heuristic.RC).toBeGreaterThan(oracle.RC);
    expect(heuristic.RC).toBeLessThan(happy.RC);
    // Implicit faults are harder than explicit ones for an observation-only agent.
    expect((heuristic.PRR_P1! + heuristic.PRR_P2!) / 2).toBeGreaterThan((heuristic.PRR_P3! + heuristic.PRR_P4!) / 2);
  });

  it("random policy stays near the floor", () => {
    const random = agg("random", {}, 300);
    expect(random.TSR).toBeLessThan(heuristic.TSR);
    expect(random.TSR_NP ?? 0).toBeLessThan(0.05);
  });
});
