import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { formatGoldSummary, parseGoldSummary, ReplayAgent } from "../../envs/toolmisuse/goldAgents.js";
import { generateToolMisuseBench, type SplitSummary } from "../../envs/toolmisuse/suiteOutput.js";
import { generateSplit, generateSplitUncached, generateTask } from "../../envs/toolmisuse/tasks.js";
import { loadTaskRecords } from "../../envs/toolmisuse/dataset.js";
import { runEpisode } from "../../envs/toolmisuse/runner.js";
import { checkSuccess } from "../../envs/toolmisuse/scorer.js";
import type { OfficialAction } from "../../envs/toolmisuse/world/types.js";
import { GEN_DOMAINS, TEMPLATES } from "../../envs/toolmisuse/templates.js";
import { execNode, failure } from "../helpers/cli.js";

/** Manifest sha256 of each split for seed 42 (generator rg-toolmisuse-1); docs/toolmisusebench.md quotes the prefixes. */
const PINNED_SHA256: Record<string, [number, string]> = {
  train: [5000, "bd05cb0afb6cf1888ffe9877f35d465bf135a4546257f80f0409237fe5d776d0"],
  dev: [800, "b6471fc58871e52e53b297f07c103a1b1050c7bff651a9c7270dfdf6dfc1c350"],
  test_public: [1000, "0b04b28a3718000b7094e082ea537de503681392a9e86bf9170db3da91ae70e0"],
};

describe("toolmisuse generator", () => {
  // One from-scratch build of the whole suite (no per-process cache involved), checked for the
  // paper's counts and balance and pinned byte for byte: a change to generated data must update
  // PINNED_SHA256 deliberately (and the prefixes in the docs). The build runs in a child process: in-process it
  // would hold this worker's event loop for seconds (tens under load) and starve vitest's worker RPC.
  it("the full 6,800-task suite, built from scratch: 5,000 / 800 / 1,000 balanced tasks with the pinned sha256 per split", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tmbpin-"));
    const opts: Parameters<typeof generateToolMisuseBench>[0] = { outDir: dir, seed: 42, cache: false };
    const script = `import { generateToolMisuseBench } from "./envs/toolmisuse/suiteOutput.ts";
      process.stdout.write(JSON.stringify(generateToolMisuseBench(${JSON.stringify(opts)})));`;
    const run = await execNode(["--input-type=module", "-e", script], { timeoutMs: 170_000 });
    expect(run.status, failure(run)).toBe(0);
    const m = JSON.parse(run.stdout) as ReturnType<typeof generateToolMisuseBench>;
    const splits = m.splits as unknown as Record<string, SplitSummary>;
    expect(m.total).toBe(6800);
    for (const [split, s] of Object.entries(splits)) {
      const n = s.count;
      expect(n).toBe(PINNED_SHA256[split]![0]);
      for (const c of Object.values(s.by_domain)) expect(Math.abs(c - n / 4)).toBeLessThanOrEqual(1);
      for (const c of Object.values(s.by_fault_class)) expect(Math.abs(c - n / 6)).toBeLessThanOrEqual(1);
      for (const c of Object.values(s.by_difficulty)) expect(Math.abs(c - n / 3)).toBeLessThanOrEqual(1);
      expect(Object.keys(s.by_budget_profile).sort()).toEqual(["relaxed", "standard", "tight"]);
      if (split === "train") {
        expect(s.instruction_uniqueness).toBeGreaterThanOrEqual(0.5);
        expect(s.initial_state_uniqueness).toBeGreaterThanOrEqual(0.7);
      }
      const text = readFileSync(path.join(dir, s.file));
      expect(createHash("sha256").update(text).digest("hex")).toBe(s.sha256);
      const ids = text
        .toString("utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { task_id: string }).task_id);
      expect(new Set(ids).size).toBe(n);
    }
    expect(Object.fromEntries(Object.entries(splits).map(([k, v]) => [k, [v.count, v.sha256]]))).toEqual(PINNED_SHA256);
    rmSync(dir, { recursive: true, force: true });
  }, 180_000); // ~5 s on an idle machine; generous for a loaded one

  it("every test_public task: gold succeeds within budget in both compat modes; goal not met initially", () => {
    for (const t of generateSplit("test_public")) {
      for (const compat of ["fixed", "official"] as const) {
        const r = runEpisode(t.record, new ReplayAgent(parseGoldSummary(t.record.gold_summary)!), { compat });
        expect(r.metrics.success, t.record.task_id).toBe(1);
        expect(r.metrics.budget_exceeded).toBe(0);
      }
      expect(checkSuccess(t.record, structuredClone(t.record.initial_state), [], "fixed").success).toBe(false);
    }
  });

  it("medium and hard tasks come from several multi-step templates per domain (3-5 gold calls, mixed ops)", () => {
    const tasks = generateSplit("dev");
    for (const domain of GEN_DOMAINS) {
      const multi = TEMPLATES[domain].filter((t) => t.calls >= 3);
      expect(multi.length).toBeGreaterThanOrEqual(3);
      expect(new Set(multi.map((t) => t.calls)).size).toBeGreaterThanOrEqual(2);
      const used = new Set(tasks.filter((t) => t.record.domain === domain && t.record.difficulty !== "easy").map((t) => t.template));
      for (const t of TEMPLATES[domain].filter((x) => x.calls >= 2)) expect(used.has(t.name)).toBe(true);
    }
    for (const t of tasks.filter((x) => x.record.difficulty !== "easy")) {
      const tpl = Object.values(TEMPLATES)
        .flat()
        .find((x) => x.name === t.template)!;
      expect(tpl.calls).toBeGreaterThanOrEqual(2);
      // Every required gold step owns at least one criterion, so Φ steps down once per step.
      for (const crit of t.phiSteps) expect(crit.length).toBeGreaterThan(0);
    }
    // Ops mix: the suite exercises every state and transcript op our templates use.
    const ops = new Set(tasks.flatMap((t) => t.record.success_criteria.map((c) => String(c.op))));
    for (const op of [
      "equals",
      "exists",
      "in",
      "map_value_equals",
      "successful_tool_call",
      "tool_output_path_equals",
      "tool_output_path_exists",
    ])
      expect(ops.has(op)).toBe(true);
    const lengths = tasks.map((t) => t.gold.length);
    for (const n of [3, 4, 5]) expect(lengths.filter((l) => l === n).length).toBeGreaterThan(48);
  });

  it("has transient and persistent faults, labelled in hidden payloads", () => {
    const tasks = generateSplit("dev");
    const labels = new Set(tasks.flatMap((t) => t.record.fault_plan.map((f) => String(f.payload.recoverability))));
    expect(labels).toEqual(new Set(["transient", "transient_denial", "persistent", "persistent_quota"]));
    expect(tasks.some((t) => t.persistent)).toBe(true);
  });

  it("a single task is independent of the others and reproducible", () => {
    const a = generateTask("dev", 123);
    expect(generateTask("dev", 123)).toEqual(a);
    expect(generateSplit("dev")[123]).toEqual(a);
    expect(generateTask("dev", 123, 7).record).not.toEqual(a.record);
    expect(() => generateTask("dev", 800)).toThrow(/taskIndex 800 out of range/);
  });

  it("gold summaries round-trip", () => {
    const acts: OfficialAction[] = [
      { tool_name: "write_file", args: { path: "/a b.md", content: 'x; y"' } },
      { tool_name: "list_jobs", args: {} },
    ];
    expect(parseGoldSummary(formatGoldSummary(acts))).toEqual(acts);
    expect(parseGoldSummary("not a call")).toBeNull();
  });

  it("writes canonical JSONL + sha256 manifest; same seed ⇒ identical bytes (cached vs from scratch); loadable", () => {
    const sizes = { train: 60, dev: 24, test_public: 36 };
    const d1 = mkdtempSync(path.join(tmpdir(), "tmbgen-"));
    const d2 = mkdtempSync(path.join(tmpdir(), "tmbgen-"));
    const m1 = generateToolMisuseBench({ outDir: d1, seed: 42, sizes });
    const m2 = generateToolMisuseBench({ outDir: d2, seed: 42, sizes, cache: false });
    for (const f of ["train/tasks.jsonl", "dev/tasks.jsonl", "test_public/tasks.jsonl", "manifest.json"]) {
      expect(readFileSync(path.join(d1, f))).toEqual(readFileSync(path.join(d2, f)));
    }
    expect(m2).toEqual(m1);
    expect(m1.total).toBe(120);
    const recs = loadTaskRecords(d1, "dev");
    expect(recs.length).toBe(24);
    expect(recs[0]).toEqual(generateSplit("dev", 42, 24)[0]!.record);
    expect(generateSplitUncached("dev", 42, 24)).not.toBe(generateSplit("dev", 42, 24));
  });
});
