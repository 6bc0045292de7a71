import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make } from "../../src/index.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import { PlanExecutor } from "../../envs/toolmaze/baselines.js";
import type { ToolMazeEnv } from "../../envs/toolmaze/env.js";
import { buildProfile } from "../../envs/toolmaze/faults.js";
import { aggregateRows, cellStats, isUnsolvable, type MetricRow, recoveryCost, scoreEpisode } from "../../envs/toolmaze/scorer.js";
import { slotSolutions } from "../../envs/toolmaze/task/facts.js";
import { canonicalTasks } from "../../envs/toolmaze/tasks.js";
import { Rng } from "../../src/core/rng.js";

function play(env: ToolMazeEnv, seed: number, mode: "happy" | "careful" | "oracle") {
  const p = new PlanExecutor(mode);
  let [obs, info] = env.reset({ seed });
  p.reset(obs, info);
  for (;;) {
    const action = p.act(obs as ToolObservation, info);
    const [o, , term, trunc, i] = env.step(action);
    obs = o;
    info = i;
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
        for (const k of [
          "success",
          "exposed",
          "recovered",
          "c",
          "cStar",
          "cRec",
          "rc",
          "poisonedUses",
          "unsafeActions",
          "forbiddenCalls",
        ] as const) {
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
    const v1 = aggregateRows(
      rows.map((r) => (r.recovered === 0 ? { ...r, recovered: 1, recoveredOnSuccess: 0 } : { ...r, recoveredOnSuccess: r.recovered })),
    );
    expect([v1.metrics.PRR, v1.metrics.PRR_success]).toEqual([1, 0.5]);
    expect(agg.breakdown[0]!.columns).toEqual(["C", "NP", "P1", "All"]);
    expect(agg.breakdown[1]!.rows[0]).toEqual(["C2", "-", 50, 50]);
    expect(agg.metrics.RC_literal).toBeUndefined();
  });

  it("takes the ratio as 1 when c = c* = 0 (nothing left, nothing spent) and never divides by zero", () => {
    expect([recoveryCost(0, 0, true), recoveryCost(0, 0, false)]).toEqual([0, 1]);
    expect([recoveryCost(1, 0, true), recoveryCost(0, 1, true), recoveryCost(3, 2, true), recoveryCost(3, 2, false)]).toEqual([
      1,
      0,
      1 - 2 / 3,
      1,
    ]);
  });

  it("v1 measures RC against an observable policy: proving a dead end permanent costs one retry", () => {
    const env = make("ToolMaze-v1", { complexity: "C1", perturbation: "P2" }) as unknown as ToolMazeEnv;
    let proven = 0;
    for (let seed = 0; seed < 24; seed++) {
      const { metrics: m, ended } = play(env, seed, "careful");
      // The oracle stops at once (c* 0), but an observable policy cannot tell this first error from a transient one.
      expect([m.cStarLiteral, m.cStar], `seed ${seed}`).toEqual([0, 1]);
      expect(m.rcLiteral).toBe(recoveryCost(m.c, 0, m.success === 1));
      expect(m.rc).toBe(recoveryCost(m.c, 1, m.success === 1));
      if (ended === "abort" && m.success === 1) {
        // Retry once, see the same failure, abort: the observable optimum exactly, charged in full by the literal formula.
        expect([m.c, m.rc, m.rcLiteral]).toEqual([1, 0, 1]);
        proven++;
      }
    }
    expect(proven).toBeGreaterThan(10);
    // Where a way around the fault exists, switching at once is right whichever the persistence: c* stays the oracle's.
    const c2 = make("ToolMaze-v1", { complexity: "C2", perturbation: "P2" }) as unknown as ToolMazeEnv;
    for (let seed = 0; seed < 12; seed++) {
      const m = run(c2, seed, "careful");
      expect(m.cStar, `C2 seed ${seed}`).toBe(m.cStarLiteral);
      expect(m.rc).toBe(m.rcLiteral);
    }
    // v0 keeps the literal value alone.
    expect(run(make("ToolMaze-v0", { complexity: "C1", perturbation: "P2" }) as unknown as ToolMazeEnv, 0, "careful")).not.toHaveProperty(
      "cStarLiteral",
    );
  });

  it("charges reaching a dead end that has not fired yet, then the retry that proves it (observable c*)", () => {
    // A C4 task with a second permanent fault moved onto a one-member step every path of its slot needs.
    const task = canonicalTasks("v1").find(
      (t) => t.complexity === "C4" && t.slots.length >= 2 && t.positions[t.slots[1]!.goal]!.members.length === 1,
    )!;
    const base = buildProfile(task, "P2", new Rng(`${task.id}/P2`));
    const goal = task.positions[task.slots[1]!.goal]!;
    const profile = {
      ...base,
      faults: base.faults.map((f) =>
        f.slot !== task.slots[1]!.slot ? f : { ...f, group: goal.cap, position: goal.index, members: goal.members },
      ),
    };
    expect(isUnsolvable(task, profile)).toBe(true);
    const first = profile.faults.find((f) => f.slot === task.slots[0]!.slot)!;
    const calls = [{ tool: first.members[0]!, args: {}, ok: false, perturbed: true, faultId: first.id }];
    const m = scoreEpisode({ task, profile, calls, termination: "abort", recovery: "paper", optimum: "observable" });
    // Every step of the cheapest path of slot 2 leads to its goal: call them all (the goal fails), then retry the goal.
    const shortest = Math.min(...slotSolutions(task)[task.slots[1]!.slot]!.map((p) => p.length));
    expect([m.cStarLiteral, m.cStar]).toEqual([0, shortest + 1]);
  });

  it("aggregates RC_literal beside RC when the rows carry it", () => {
    const rows: MetricRow[] = [
      { complexity: "C1", perturbation: "P2", success: 1, exposed: 1, recovered: 1, rc: 0, rcLiteral: 1 },
      { complexity: "C1", perturbation: "P2", success: 0, exposed: 1, recovered: 0, rc: 1, rcLiteral: 1 },
      { complexity: "C1", perturbation: "NP", success: 1, exposed: 0, recovered: null, rc: 0, rcLiteral: 0 },
    ];
    const agg = aggregateRows(rows);
    expect([agg.metrics.RC, agg.metrics.RC_literal, agg.metrics.RC_P2, agg.metrics.RC_literal_P2]).toEqual([0.5, 1, 0.5, 1]);
    expect(agg.breakdown.map((b) => b.title.split(" ")[0])).toEqual(["TSR", "PRR", "PRR_success", "RC", "RC_literal", "Avg"]);
    // Avg reads the observable RC.
    expect(agg.metrics.Avg).toBeCloseTo((2 / 3 + 0.5 + 0.5) / 3, 12);
  });
});
