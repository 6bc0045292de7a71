import { describe, expect, it } from "vitest";
import { ReplayAgent } from "../../envs/toolmisuse/goldAgents.js";
import { generateSplit, type GeneratedTask } from "../../envs/toolmisuse/tasks.js";
import { runEpisode } from "../../envs/toolmisuse/runner.js";
import { ONCE_HORIZON, oncePool, specDraws } from "../../envs/toolmisuse/oncetrigger.js";
import { engineFaultSpec } from "../../envs/toolmisuse/faults.js";
import { parseTaskRecord, type TaskRecord } from "../../envs/toolmisuse/dataset.js";
import type { OfficialAction } from "../../envs/toolmisuse/world/types.js";

const tasks = generateSplit("test_public");
const COMPATS = ["fixed", "official"] as const;

/** The same task with room for extra calls, so a detour cannot run out of budget. */
const roomy = (t: GeneratedTask): TaskRecord =>
  parseTaskRecord({ ...structuredClone(t.record), budget: { max_steps: 30, max_tool_calls: 30, max_retries: 30, timeout_ms: 1000 } });
/** A call that matches no fault trigger (unknown tool): it only shifts the global call index. */
const detour: OfficialAction = { tool_name: "no_such_tool", args: {} };

describe("transient faults fire on the first call of their step, wherever it comes", () => {
  it("every once-seed fires on the first matching draw and on none of the next ONCE_HORIZON - 1, in both streams", () => {
    for (const index of [0, 1]) {
      for (const { seed, p } of oncePool(index)) {
        for (const compat of COMPATS) {
          const d = specDraws(seed, index, compat);
          expect(d[0]!).toBeLessThan(p);
          for (const x of d.slice(1, ONCE_HORIZON)) expect(x).toBeGreaterThanOrEqual(p);
        }
      }
    }
  });

  it("transient tasks: no on_nth_call; the gold meets the fault even after detours, and an identical retry recovers", () => {
    const transient = tasks.filter((t) => t.faultClass !== "clean" && !t.persistent);
    expect(transient.length).toBeGreaterThan(400);
    for (const t of transient) {
      for (const f of t.record.fault_plan) {
        expect(f.trigger.on_nth_call, t.record.task_id).toBeUndefined();
        expect(engineFaultSpec(f, 0).persistence).toEqual({ type: "transient", byTrigger: true });
      }
      for (const compat of COMPATS) {
        for (const prefix of [[], [detour], [detour, detour, detour]]) {
          const r = runEpisode(roomy(t), new ReplayAgent([...prefix, ...t.gold]), { compat });
          expect(r.metrics.fault_seen, `${t.record.task_id} ${compat} +${prefix.length}`).toBe(1);
          expect(r.metrics.success).toBe(1);
        }
      }
      // Exactly one gold call failed because of the fault, and the gold's next call repeats it.
      const run = runEpisode(t.record, new ReplayAgent(t.gold), { compat: "fixed" });
      const failed = run.transcript.map((e, i) => (e.error ? i : -1)).filter((i) => i >= 0);
      expect(failed.length, t.record.task_id).toBe(1);
      expect(t.gold[failed[0]! + 1]).toEqual(t.gold[failed[0]!]);
    }
  });

  it("persistent faults stay persistent (no once-seed) and are labelled so", () => {
    for (const t of tasks.filter((x) => x.persistent)) {
      for (const f of t.record.fault_plan) {
        expect(f.trigger.prob).toBeUndefined();
        expect(engineFaultSpec(f, 0).persistence).toEqual({ type: "permanent" });
      }
    }
  });
});

describe("hard rate_limit: a call quota that binds on the gold path", () => {
  const quota = tasks.filter((t) => t.faultClass === "rate_limit" && t.persistent);

  it("the gold hits rate_limited on a step it needs, routes around or skips it, and still succeeds", () => {
    expect(quota.length).toBeGreaterThan(50);
    let withEarlierUse = 0;
    for (const t of quota) {
      const spec = t.record.fault_plan[0]!;
      expect(spec.payload.recoverability).toBe("persistent_quota");
      const tool = String(spec.trigger.on_tool);
      const n = Number(spec.payload.after_n_calls);
      for (const compat of COMPATS) {
        const r = runEpisode(t.record, new ReplayAgent(t.gold), { compat });
        expect(r.metrics.success, t.record.task_id).toBe(1);
        expect(r.metrics.fault_seen).toBe(1);
        const limited = r.transcript.findIndex((e) => e.error?.code === "rate_limited");
        expect(limited, t.record.task_id).toBe(n); // the (n+1)-th call is the first one past the quota
        expect(r.transcript[limited]!.tool_name).toBe(tool);
        // Routed or skipped: the gold never calls the exhausted tool again.
        expect(r.transcript.slice(limited + 1).some((e) => e.tool_name === tool)).toBe(false);
      }
      if (t.gold.slice(0, n).some((a) => a.tool_name === tool)) withEarlierUse += 1;
    }
    // A real quota on part of the suite: the tool answered earlier in the episode, then ran out.
    expect(withEarlierUse).toBeGreaterThan(0);
  });

  it("every faulted test_public task exposes the oracle to its fault (Table II rows are real encounters)", () => {
    for (const t of tasks.filter((x) => x.faultClass !== "clean")) {
      const r = runEpisode(t.record, new ReplayAgent(t.gold), { compat: "fixed" });
      expect(r.metrics.fault_seen, t.record.task_id).toBe(1);
    }
  });
});
