import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make, registryEntry, Rng } from "../../src/index.js";
import type { Info } from "../../src/core/env.js";
import type { JsonObject } from "../../src/core/json.js";
import type { Trajectory } from "../../src/core/trajectory.js";
import {
  FAILURE_CATEGORIES,
  HIDDEN_KEYS,
  analyzeToolMisuseTrajectory,
  type CallAnnotation,
  type EpisodeAnalysis,
} from "../../envs/toolmisuse/annotations.js";
import { generateSplit, type GeneratedTask } from "../../envs/toolmisuse/tasks.js";
import type { OfficialAction } from "../../envs/toolmisuse/world/types.js";

const ID = "ToolMisuseBench-v0";
const tasks = generateSplit("test_public");

interface Played {
  infos: Info[];
  calls: CallAnnotation[];
  analysis: EpisodeAnalysis;
  final: Info;
  trajectory: Trajectory;
}

/** Plays task `i` with a registered policy or a fixed action list (then answers), recording every info. */
function play(i: number, who: string | OfficialAction[], options: JsonObject = {}): Played {
  const env = make(ID, { taskIndex: i, ...options });
  let [obs, info] = env.reset({ seed: 0 });
  const infos: Info[] = [info];
  const pol = typeof who === "string" ? registryEntry(ID).policies![who]!.create(env, new Rng(0)) : null;
  pol?.reset?.(obs, info);
  const steps: Trajectory["steps"] = [];
  let k = 0;
  for (;;) {
    const a = pol
      ? pol.act(obs, info)
      : k < (who as OfficialAction[]).length
        ? (who as OfficialAction[])[k++]
        : { type: "answer", content: "done" };
    const r = env.step(a as never);
    [obs, , , , info] = r;
    infos.push(info);
    const ended = r[2] || r[3];
    steps.push({
      t: steps.length,
      action: null,
      observation: null,
      reward: r[1],
      terminated: r[2],
      truncated: r[3],
      rewardTerms: {},
      rawTerms: {},
      phi: null,
      events: [],
      ...(info.hidden && !ended ? { hidden: info.hidden as JsonObject } : {}),
    });
    if (ended) break;
  }
  const h = (info.hidden ?? {}) as Record<string, unknown>;
  const calls = infos
    .map((x) => (x.hidden as { call?: CallAnnotation } | undefined)?.call)
    .filter((c): c is CallAnnotation => c !== undefined);
  const trajectory = {
    steps,
    hidden: info.hidden,
    metrics: info.metrics,
    success: info.success === true,
    terminationReason: String(info.terminationReason),
  } as unknown as Trajectory;
  return { infos, calls, analysis: h.analysis as EpisodeAnalysis, final: info, trajectory };
}

const find = (f: (t: GeneratedTask) => boolean): number => tasks.findIndex(f);

describe("ToolMisuseBench hidden annotations (issue 8)", () => {
  it("every info.hidden key, at reset, per step and at the end, is documented", () => {
    const seen = new Set<string>();
    for (const policy of ["heuristic", "instruction-parser", "oracle"]) {
      for (let i = 0; i < 60; i++)
        for (const inf of play(i, policy).infos) for (const k of Object.keys((inf.hidden ?? {}) as object)) seen.add(k);
    }
    for (const k of seen) expect(HIDDEN_KEYS, k).toHaveProperty(k);
    for (const k of ["call", "analysis", "checks", "faultPlan", "gold"]) expect(seen.has(k), k).toBe(true);
  });

  it("every call is annotated: fault fired (type, transient/persistent), progress, invalid call, policy violation", () => {
    // A transient timeout: the faulted call fails, makes no progress; the identical retry succeeds and does.
    const ti = find((t) => t.faultClass === "timeout" && t.record.difficulty === "easy");
    const t = tasks[ti]!;
    const { calls, analysis } = play(ti, "oracle");
    expect(calls.length).toBe(t.gold.length);
    const f = calls.findIndex((c) => c.faults.length > 0);
    expect(calls[f]).toMatchObject({
      ok: false,
      errorCode: "timeout",
      phase: "injected",
      progress: false,
      invalidCall: false,
      policyViolation: false,
      faults: [{ faultType: "timeout", persistence: "transient", label: "transient", planIndex: 0 }],
    });
    expect(calls[f + 1]).toMatchObject({ ok: true, progress: true, repeatOfStep: calls[f]!.step, faults: [] });
    expect(calls.at(-1)!.goldStepsDone).toBe(t.phiSteps.length);
    expect(analysis).toMatchObject({
      success: true,
      primaryFault: "timeout",
      primaryFaultLabel: "transient",
      faultFired: true,
      recovered: true,
      timeToRecovery: 1,
      recoveryStrategy: "retry",
      failureCategory: "none",
    });

    // A persistent authz denial: a policy violation, not an invalid call; the gold routes around or skips it.
    const ai = find((t) => t.faultClass === "authz" && t.persistent);
    const pa = play(ai, "oracle");
    const denied = pa.calls.find((c) => c.errorCode === "authz_denied")!;
    expect(denied).toMatchObject({
      policyViolation: true,
      invalidCall: false,
      progress: false,
      faults: [{ faultType: "authz", persistence: "persistent", label: "persistent" }],
    });
    expect(["switch", "skip"]).toContain(pa.analysis.recoveryStrategy);

    // An adversarial rewrite: the agent sees the fake code, the annotation keeps the real one.
    const vi = find((t) => t.faultClass === "adversarial_error" && !t.persistent);
    const adv = play(vi, "oracle").calls.find((c) => c.faults.length > 0)!;
    expect(adv.faults.map((x) => x.faultType).sort()).toEqual(
      ["adversarial_error", ...[tasks[vi]!.record.fault_plan[1]!.fault_type]].sort(),
    );
    expect(adv.originalErrorCode).toBe(
      { timeout: "timeout", authz: "authz_denied", rate_limit: "rate_limited" }[tasks[vi]!.record.fault_plan[1]!.fault_type as string],
    );
    expect(adv.errorCode).toBe(tasks[vi]!.record.fault_plan[0]!.payload.code);

    // An invalid call (missing argument) is both an invalid call and a policy violation.
    const ci = find((t) => t.faultClass === "clean" && t.gold[0]!.tool_name === "close_account");
    const bad = play(ci, [{ tool_name: "close_account", args: { reason: "x" } }]).calls[0]!;
    expect(bad).toMatchObject({
      ok: false,
      errorCode: "missing_required_arg",
      phase: "validation",
      invalidCall: true,
      policyViolation: true,
      progress: false,
      faults: [],
    });
  });

  it("episode-end analysis: failure categories from scripted episodes", () => {
    const ci = find((t) => t.faultClass === "clean" && t.gold.length >= 3 && t.phiSteps.length >= 2);
    const gold = tasks[ci]!.gold;
    const firstProgress = gold.findIndex((_, k) => play(ci, gold.slice(0, k + 1)).calls[k]!.progress);
    expect(play(ci, gold.slice(0, firstProgress + 1)).analysis.failureCategory).toBe("incomplete");
    expect(play(ci, []).analysis.failureCategory).toBe("no_traction");
    const junk: OfficialAction = { tool_name: "no_such_tool", args: {} };
    expect(play(ci, [junk, junk, junk]).analysis.failureCategory).toBe("format_error");
    // A transient fault on a required step after some progress, with required steps left after it:
    // stop at the fault (irrecoverable drift), or retry it and stop before the end (weak recovery).
    const faultAt = (i: number) => play(i, "oracle").calls.findIndex((c) => c.faults.length > 0);
    const ti = tasks.findIndex((t, i) => {
      if (t.faultClass !== "timeout" || t.persistent) return false;
      const k = faultAt(i);
      if (k < 1) return false;
      const p = play(i, t.gold.slice(0, k + 2));
      return p.calls.slice(0, k).some((c) => c.progress) && p.calls[k + 1]?.progress === true && p.final.success === false;
    });
    expect(ti).toBeGreaterThanOrEqual(0);
    const tg = tasks[ti]!.gold;
    const f = faultAt(ti);
    const drift = play(ti, tg.slice(0, f + 1));
    expect(drift.analysis).toMatchObject({
      failureCategory: "irrecoverable_drift",
      faultFired: true,
      recovered: false,
      recoveryStrategy: null,
    });
    const weak = play(ti, tg.slice(0, f + 2));
    expect(weak.analysis).toMatchObject({
      failureCategory: "weak_recovery",
      recoveryStrategy: "retry",
      timeToRecovery: 1,
      recovered: false,
    });
  });

  it("baselines over test_public reach every failure category; the oracle always recovers", () => {
    const cats = new Set<string>();
    for (const policy of ["heuristic", "instruction-parser"])
      for (let i = 0; i < tasks.length; i += 2) cats.add(play(i, policy).analysis.failureCategory);
    expect([...cats].sort()).toEqual([...FAILURE_CATEGORIES].sort());
    for (let i = 0; i < tasks.length; i += 7) {
      const a = play(i, "oracle").analysis;
      expect(a.failureCategory).toBe("none");
      expect(a.recovered).toBe(tasks[i]!.faultClass !== "clean");
    }
  });

  it("analyzeTrajectory is registered and reads the analysis back (metrics-only fallback without hidden info)", () => {
    expect(registryEntry(ID).analyzeTrajectory).toBe(analyzeToolMisuseTrajectory);
    const ti = find((t) => t.faultClass === "timeout" && t.record.difficulty === "easy");
    const p = play(ti, "oracle");
    const out = analyzeToolMisuseTrajectory(p.trajectory);
    expect(out).toMatchObject({ ...(p.analysis as unknown as JsonObject), terminationReason: "success" });
    expect((out.faultStepIndices as number[]).length).toBe(1);
    const blind = play(ti, "oracle", { hiddenInfo: false });
    expect(analyzeToolMisuseTrajectory(blind.trajectory)).toMatchObject({
      success: true,
      primaryFault: "timeout",
      faultFired: true,
      recovered: true,
      failureCategory: "none",
    });
  });
});
