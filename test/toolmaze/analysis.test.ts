import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { RECOVERY_CATEGORIES, analyzeToolMazeTrajectory, recoveryCategory } from "../../envs/toolmaze/analysis.js";
import { make, registryEntry, rollout } from "../../src/index.js";
import { Rng } from "../../src/core/rng.js";
import type { Trajectory } from "../../src/core/trajectory.js";
import type { JsonObject } from "../../src/core/json.js";

/** Plays one canonical instance with a policy and returns it as a (minimal) trajectory. */
function trajectory(taskIndex: number, policy: string): Trajectory {
  const env = make("ToolMaze-v0", { taskIndex });
  const pol = registryEntry("ToolMaze-v0").policies![policy]!.create(env, new Rng(0));
  let [obs, info] = env.reset({ seed: 0 });
  pol.reset?.(obs, info);
  const steps: Trajectory["steps"] = [];
  for (let t = 0; ; t++) {
    const [o, r, term, trunc, i] = env.step(pol.act(obs, info));
    steps.push({
      t,
      action: null,
      observation: null,
      reward: r,
      terminated: term,
      truncated: trunc,
      rewardTerms: {},
      rawTerms: {},
      phi: null,
      events: (i.events ?? []) as unknown as Record<string, never>[],
      ...(i.hidden ? { hidden: i.hidden as JsonObject } : {}),
    });
    obs = o;
    info = i;
    if (term || trunc) break;
  }
  return { steps, metrics: info.metrics as JsonObject, success: info.success === true } as unknown as Trajectory;
}

describe("ToolMaze analyzeTrajectory", () => {
  it("is registered and classifies the recovery of each episode", () => {
    expect(registryEntry("ToolMaze-v0").analyzeTrajectory).toBe(analyzeToolMazeTrajectory);
    // Instance = base * 5 + mode (NP, P1..P4); base 0 is C1, base 100 is C2.
    expect(analyzeToolMazeTrajectory(trajectory(0, "oracle")).recoveryCategory).toBe("not_exposed");
    expect(analyzeToolMazeTrajectory(trajectory(0, "oracle")).firstError).toBeNull();
    const p1 = analyzeToolMazeTrajectory(trajectory(1, "oracle"));
    expect(p1.recoveryCategory).toBe("recovered_by_retry");
    expect((p1.firstError as JsonObject).visibility).toBe("explicit");
    expect((p1.firstError as JsonObject).persistence).toBe("transient");
    expect(analyzeToolMazeTrajectory(trajectory(2, "oracle")).recoveryCategory).toBe("wise_abort");
    expect(analyzeToolMazeTrajectory(trajectory(502, "oracle")).recoveryCategory).toBe("recovered_by_alternative");
    const implicit = analyzeToolMazeTrajectory(trajectory(504, "happy-path"));
    expect(implicit.recoveryCategory).toBe("not_recovered");
    expect((implicit.firstError as JsonObject).visibility).toBe("implicit");
    expect(typeof (implicit.firstError as JsonObject).corruptedField).toBe("string");
  });

  it("covers every category over a run of the heuristic (150 stratified instances)", () => {
    const seen = new Set(
      rollout({ envId: "ToolMaze-v0", policy: "heuristic", episodes: 150, seed: 450 }).map((r) =>
        recoveryCategory(r.metrics as JsonObject),
      ),
    );
    expect([...seen].sort()).toEqual([...RECOVERY_CATEGORIES].sort());
  });
});

describe("the heuristic is observation-only", () => {
  it("plays identically with info.hidden switched off", () => {
    const withHidden = rollout({ envId: "ToolMaze-v0", policy: "heuristic", episodes: 150, seed: 700 });
    const without = rollout({ envId: "ToolMaze-v0", policy: "heuristic", episodes: 150, seed: 700, options: { hiddenInfo: false } });
    expect(registryEntry("ToolMaze-v0").policies!.heuristic!.usesHidden).toBe(false);
    expect(without.map((r) => [r.return, r.metrics.success, r.metrics.calls])).toEqual(
      withHidden.map((r) => [r.return, r.metrics.success, r.metrics.calls]),
    );
  });
});
