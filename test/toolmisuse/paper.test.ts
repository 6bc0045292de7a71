import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import "../../envs/index.js";
import { make, stableStringify } from "../../src/index.js";
import { OptionsError } from "../../src/core/errors.js";
import { checkEnv } from "../../src/checker.js";
import type { Action } from "../../src/engine/actions.js";
import type { ToolEnv } from "../../src/engine/toolEnv.js";
import { generatePaperSplit, generatePaperTask } from "../../envs/toolmisuse/paper.js";
import { ReplayAgent } from "../../envs/toolmisuse/goldAgents.js";
import { type generateToolMisuseBench, toCanonicalJsonl, uniqueness, type SplitSummary } from "../../envs/toolmisuse/suiteOutput.js";
import { loadTaskRecords, type Split } from "../../envs/toolmisuse/dataset.js";
import { execNode, failure } from "../helpers/cli.js";
import { runEpisode } from "../../envs/toolmisuse/runner.js";
import { BASELINE_NAMES, makeBaseline, type BaselineName } from "../../envs/toolmisuse/baselines.js";
import { aggregateToolMisuse } from "../../envs/toolmisuse/scorer.js";

/** sha256 of each split's JSONL for seed 42, paper profile (generator rg-toolmisuse-paper-1); docs quote the prefixes. */
const PINNED_PAPER: Record<string, [number, string]> = {
  train: [5000, "c643938969e5"],
  dev: [800, "edc027196040"],
  test_public: [1000, "7a42a07bb395"],
};

const tasks = generatePaperSplit("test_public");

function table(name: BaselineName, compat: "fixed" | "official" = "fixed") {
  return aggregateToolMisuse(tasks.map((t) => runEpisode(t.record, makeBaseline(name), { compat }).metrics));
}

describe("ToolMisuseBench paper profile", () => {
  it("same format and split sizes, deterministic (cached = from scratch), pinned hashes, class/domain mix", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tmbpaper-"));
    // In a child process, as generator.test.ts does: seconds of synchronous work would starve vitest's worker RPC.
    const opts: Parameters<typeof generateToolMisuseBench>[0] = { outDir: dir, seed: 42, profile: "paper", cache: false };
    const script = `import { generateToolMisuseBench } from "./envs/toolmisuse/suiteOutput.ts";
      process.stdout.write(JSON.stringify(generateToolMisuseBench(${JSON.stringify(opts)})));`;
    const child = await execNode(["--input-type=module", "-e", script], { timeoutMs: 170_000 });
    expect(child.status, failure(child)).toBe(0);
    const m = JSON.parse(child.stdout) as ReturnType<typeof generateToolMisuseBench>;
    expect(m.generator).toBe("rg-toolmisuse-paper-1");
    const splits = m.splits as unknown as Record<string, SplitSummary>;
    for (const [split, s] of Object.entries(splits)) {
      const text = readFileSync(path.join(dir, s.file), "utf8");
      expect([s.count, s.sha256.slice(0, 12)]).toEqual(PINNED_PAPER[split]);
      expect(createHash("sha256").update(text).digest("hex")).toBe(s.sha256);
      // Every record passes the strict official-format loader (same format as the default suite).
      expect(loadTaskRecords(dir, split as Split).length).toBe(s.count);
      for (const c of Object.values(s.by_fault_class)) expect(Math.abs(c - s.count / 4)).toBeLessThanOrEqual(1);
      for (const c of Object.values(s.by_domain)) expect(Math.abs(c - s.count / 4)).toBeLessThanOrEqual(2);
      expect(s.unsolvable).toBe(s.count / 2);
    }
    expect(toCanonicalJsonl(tasks)).toBe(readFileSync(path.join(dir, "test_public/tasks.jsonl"), "utf8"));
    rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it("transient faults are keyed by the global call index; persistent authz / rate limits make the task unsolvable and say so", () => {
    for (const t of tasks) {
      const [f] = t.record.fault_plan;
      expect(t.record.fault_plan).toHaveLength(1);
      if (t.solvable) {
        expect(f!.trigger).toEqual({ on_tool: (t.record.success_criteria[0] as { tool_name: string }).tool_name, on_nth_call: 1 });
        expect(["timeout", "schema_drift"]).toContain(f!.fault_type);
        // The gold meets the fault on its first call and recovers by an identical retry.
        for (const compat of ["fixed", "official"] as const) {
          const run = runEpisode(t.record, new ReplayAgent(t.gold), { compat });
          expect(run.report.success && run.metrics.fault_seen === 1).toBe(true);
        }
      } else {
        expect(["authz", "rate_limit"]).toContain(f!.fault_type);
        expect(f!.trigger.on_nth_call).toBeUndefined();
        expect(f!.payload.solvable).toBe(false);
        expect(t.record.gold_summary).toBeNull();
      }
    }
  }, 60_000);

  it("reproduces the paper's baseline table within ±0.05 (success, recovery, per-fault success, flat S(k), AUC)", () => {
    const paper: Record<string, { success: number; recovery: number }> = {
      heuristic: { success: 0.25, recovery: 0 },
      "schema-repair": { success: 0.25, recovery: 0.25 },
      "policy-aware": { success: 0.25, recovery: 0.25 },
    };
    for (const name of ["heuristic", "schema-repair", "policy-aware"] as const) {
      for (const compat of ["fixed", "official"] as const) {
        const a = table(name, compat);
        expect(Math.abs(a.success - paper[name]!.success), `${name} success`).toBeLessThanOrEqual(0.05);
        expect(Math.abs(a.recovery_success - paper[name]!.recovery), `${name} recovery`).toBeLessThanOrEqual(0.05);
        expect(Math.abs(a.by_fault.timeout!.success - 0.5)).toBeLessThanOrEqual(0.05);
        expect(Math.abs(a.by_fault.schema_drift!.success - 0.5)).toBeLessThanOrEqual(0.05);
        expect(a.by_fault.authz!.success).toBe(0);
        expect(a.by_fault.rate_limit!.success).toBe(0);
        const s = Object.values(a.budgeted_success);
        expect(Math.max(...s) - Math.min(...s)).toBeLessThanOrEqual(0.01);
        expect(Math.abs(a.auc - 0.25)).toBeLessThanOrEqual(0.05);
      }
    }
    // Repair-based recovery shows up exactly where the paper puts it: timeout and drift.
    const sr = table("schema-repair");
    expect(Math.abs(sr.by_fault.timeout!.recovery - 0.5)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(sr.by_fault.schema_drift!.recovery - 0.5)).toBeLessThanOrEqual(0.05);
    // An instruction-reading agent solves every solvable task and nothing else: the walls are the faults.
    expect(table("instruction-parser").success).toBe(0.5);
    expect(BASELINE_NAMES).toContain("oracle");
  }, 120_000);

  it("instruction / initial-state uniqueness close to the paper's 0.56 / 0.75", () => {
    expect(Math.abs(uniqueness(tasks.map((t) => t.record.instruction)) - 0.56)).toBeLessThanOrEqual(0.03);
    expect(Math.abs(uniqueness(tasks.map((t) => stableStringify(t.record.initial_state))) - 0.75)).toBeLessThanOrEqual(0.03);
  });

  it("env option profile: paper tasks through the Gym env, flagged in info.hidden; bad profile names the field", () => {
    const env = make("ToolMisuseBench-v0", { profile: "paper", split: "dev" }) as unknown as ToolEnv<unknown>;
    const [, info] = env.reset({ seed: 3 }) as unknown as [unknown, { taskId: string; hidden: { solvable: boolean; faultClass: string } }];
    const g = generatePaperTask("dev", 3);
    expect(info.taskId).toBe(g.record.task_id);
    expect(info.hidden.solvable).toBe(g.solvable);
    expect(info.hidden.faultClass).toBe(g.faultClass);
    // The Gym contract holds on the paper profile too (documented info keys, spaces, replay of a state snapshot).
    checkEnv(make("ToolMisuseBench-v0", { profile: "paper" }) as never, { episodes: 3, maxSteps: 8 });
    const [obs] = env.reset({ seed: 7 });
    const snap = env.getState();
    const action: Action = { type: "tool_call", name: obs.visibleTools[0]!, arguments: {} };
    const a = env.step(action);
    env.setState(snap);
    expect(env.step(action)).toEqual(a);
    env.close();
    expect(() => make("ToolMisuseBench-v0", { profile: "v01" })).toThrow(OptionsError);
    expect(() => make("ToolMisuseBench-v0", { profile: "v01" })).toThrow(/profile/);
  });
});
