import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make } from "../../src/index.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import { PlanExecutor } from "../../envs/toolmaze/baselines.js";
import type { ToolMazeEnv } from "../../envs/toolmaze/env.js";
import { aggregateRows, cellStats, type MetricRow, scoreEpisode } from "../../envs/toolmaze/scorer.js";

function play(env: ToolMazeEnv, seed: number, mode: "happy" | "careful" | "oracle") {
  const p = new PlanExecutor(mode);
  let [obs, info] = env.reset({ seed });
  p.reset(obs, info);
  for (;;) {
    const action = p.act(obs as ToolObservation, info);
    const [o, , term, trunc, i] = env.step(action);
    obs = o; info = i;
    if (term || trunc) return { metrics: i.metrics as Record<string, number>, ended: action.type };
  }
}
const run = (env: ToolMazeEnv, seed: number, mode: "happy" | "careful" | "oracle") => play(env, seed, mode).metrics;

describe("ToolMaze scorer", () => {
  it("computes C_rec = 1 - c*/max(c, c*) for successful exposed episodes, 1 for failures", () => {
    const env = make("ToolMaze-v0", { perturbation: "P2", complexity: "C2" }) as unknown as ToolMazeEnv;
    let checked = 0;
    for (let seed = 0; seed < 30; seed++) {
      const m = run(env, seed, "careful");
      expect(m.exposed).toBe(1);
      if (m.success === 1) {
        // The heuristic wastes one futile retry on a permanent error before switching.
        expect(m.c).toBe(m.cStar + 1);
        expect(m.cRec).toBeCloseTo(1 - m.cStar / m.c, 12);
        checked++;
      } else expect(m.cRec).toBe(1);
      expect(m.rc).toBe(m.cRec);
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("rescoring the call log reproduces info.metrics (success, exposure, recovery, c, c*, rc)", () => {
    const env = make("ToolMaze-v0") as unknown as ToolMazeEnv;
    const seen = new Set<string>();
    // 40 stratified seeds: every level and mode, successes and failures, answers and aborts.
    for (let seed = 0; seed < 40; seed++) {
      for (const mode of ["careful", "happy"] as const) {
        const { metrics: m, ended } = play(env, seed, mode);
        const { task, profile } = env.current();
        const termination = ended === "abort" ? "abort" : ended === "answer" ? "answer" : "truncated";
        const again = scoreEpisode({ task, profile, calls: env.callLog(), termination });
        for (const k of ["success", "exposed", "recovered", "c", "cStar", "cRec", "rc", "poisonedUses", "unsafeActions", "forbiddenCalls"] as const) {
          expect(again[k], `${seed} ${mode} ${k}`).toBe(m[k]);
        }
        seen.add(`${ended}/${m.success}`);
      }
    }
    expect([...seen]).toEqual(expect.arrayContaining(["abort/1", "answer/0", "answer/1"]));
  });

  it("counts a never-encountered fault as unexposed (no PRR, no RC)", () => {
    const rows: MetricRow[] = [
      { complexity: "C2", perturbation: "P1", success: 1, exposed: 0, recovered: null, rc: 0 },
      { complexity: "C2", perturbation: "P1", success: 1, exposed: 1, recovered: 1, rc: 0.5 },
      { complexity: "C2", perturbation: "P1", success: 0, exposed: 1, recovered: 0, rc: 1 },
      { complexity: "C2", perturbation: "NP", success: 1, exposed: 0, recovered: null, rc: 0 },
    ];
    const s = cellStats(rows);
    expect(s.tsr).toBe(0.75);
    expect(s.prr).toBe(0.5);
    expect(s.rc).toBe(0.5);
    expect(s.avg).toBeCloseTo((0.75 + 0.5 + 0.5) / 3, 12);
    const agg = aggregateRows(rows);
    expect(agg.metrics.TSR).toBe(0.75);
    expect(agg.metrics.PRR_P1).toBe(0.5);
    expect(agg.breakdown.map((b) => b.title)).toHaveLength(5);
    // v0 rows carry the success-conditioned recovery as `recovered`, so PRR_success equals PRR; a v1 row's own
    // `recoveredOnSuccess` (recovered by the paper's rule, but failed) is what PRR_success reads when present.
    expect(agg.metrics.PRR_success).toBe(0.5);
    const v1 = aggregateRows(rows.map((r) => (r.recovered === 0 ? { ...r, recovered: 1, recoveredOnSuccess: 0 }
      : { ...r, recoveredOnSuccess: r.recovered })));
    expect([v1.metrics.PRR, v1.metrics.PRR_success]).toEqual([1, 0.5]);
    expect(agg.breakdown[0]!.columns).toEqual(["C", "NP", "P1", "All"]);
    expect(agg.breakdown[1]!.rows[0]).toEqual(["C2", "-", 50, 50]);
  });
});
