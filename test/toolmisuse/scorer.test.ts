import { describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { evaluateCriterion, budgetedSuccess, aggregateToolMisuse, type ToolMisuseMetrics } from "../../envs/toolmisuse/scorer.js";
import { loadTaskRecords, parseTaskRecord, ToolMisuseDatasetError } from "../../envs/toolmisuse/dataset.js";
import type { TranscriptEntry } from "../../envs/toolmisuse/world/types.js";

const tr: TranscriptEntry[] = [
  { tool_name: "get_doc", args: {}, output: { doc: { id: "d1" } }, error: null },
  { tool_name: "get_doc", args: {}, output: null, error: { code: "timeout", message: "", details: {} } },
  { tool_name: "get_doc", args: {}, output: { doc: { id: "d2" } }, error: null },
];
const state = { accounts: { a: { tier: "gold", n: 1 } }, jobs: [{ name: "x" }], s: "hello" };

describe("toolmisuse success criteria (8 ops)", () => {
  const ev = (c: Record<string, unknown>) => evaluateCriterion(c as never, state as never, tr, "fixed");
  it("transcript ops", () => {
    expect(ev({ op: "successful_tool_call", tool_name: "get_doc", min_count: 2 })).toBe(true);
    expect(ev({ op: "successful_tool_call", tool_name: "get_doc", min_count: 3 })).toBe(false);
    expect(ev({ op: "tool_call", tool_name: "get_doc", min_count: 3 })).toBe(true);
    expect(ev({ op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: "d2" })).toBe(true);
    expect(ev({ op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: "d1" })).toBe(false);
    expect(ev({ op: "tool_output_path_exists", tool_name: "get_doc", output_path: "doc.id" })).toBe(true);
    expect(ev({ op: "tool_output_path_exists", tool_name: "get_doc", output_path: "doc.x" })).toBe(false);
  });
  it("state ops", () => {
    expect(ev({ op: "equals", path: "accounts.a.tier", value: "gold" })).toBe(true);
    expect(ev({ op: "equals", path: "accounts.b.tier", value: "gold" })).toBe(false);
    expect(ev({ op: "exists", path: "accounts.a" })).toBe(true);
    expect(ev({ op: "in", path: "jobs", value: { name: "x" } })).toBe(true);
    expect(ev({ op: "in", path: "accounts", value: "a" })).toBe(true);
    expect(ev({ op: "in", path: "s", value: "ell" })).toBe(true);
    expect(ev({ op: "in", path: "s", value: 1 })).toBe(false);
    expect(ev({ op: "map_value_equals", path: "accounts.a", key: "tier", value: "gold" })).toBe(true);
    expect(ev({ op: "map_value_equals", path: "accounts.a", key: "zz", value: null })).toBe(true);
    expect(ev({ op: "map_value_equals", path: "jobs", key: "x", value: 1 })).toBe(false);
    expect(ev({ op: "bogus", path: "s" })).toBe(false);
  });
});

describe("toolmisuse aggregates", () => {
  it("S(k) and normalised AUC", () => {
    const ms = [
      { success: 1, tool_calls: 3 },
      { success: 1, tool_calls: 10 },
      { success: 0, tool_calls: 2 },
      { success: 1, tool_calls: 20 },
    ];
    const b = budgetedSuccess(ms);
    expect(b.s).toEqual({ "S@4": 0.25, "S@8": 0.25, "S@16": 0.5, "S@32": 0.75 });
    expect(b.auc).toBeCloseTo((4 * 0.5 + 8 * 0.75 + 16 * 1.25) / 2 / 28, 12);
    expect(budgetedSuccess([{ success: 1, tool_calls: 1 }]).auc).toBe(1);
  });
  it("per-fault table and time-to-recovery over non-null values", () => {
    const m = (over: Partial<ToolMisuseMetrics>): ToolMisuseMetrics => ({
      task_id: "t",
      domain: "crud",
      difficulty: "easy",
      success: 1,
      steps: 2,
      tool_calls: 2,
      invalid_calls: 0,
      invalid_call_rate: 0,
      policy_violations: 0,
      budget_exceeded: 0,
      fault_seen: 0,
      time_to_recovery: null,
      recovery_success: 0,
      catastrophic_failure: 0,
      primary_fault: "clean",
      fault_types: [],
      ...over,
    });
    const a = aggregateToolMisuse([
      m({}),
      m({ primary_fault: "timeout", fault_seen: 1, recovery_success: 1, time_to_recovery: 2 }),
      m({ primary_fault: "timeout", success: 0, fault_seen: 1 }),
    ]);
    expect(a.by_fault.timeout).toMatchObject({ n: 2, success: 0.5, recovery: 0.5 });
    expect(a.time_to_recovery).toBe(2);
  });
});

describe("toolmisuse dataset loader", () => {
  const good = {
    task_id: "x1",
    split: "dev",
    difficulty: "easy",
    domain: "crud",
    instruction: "i",
    toolset_id: "crud_v1",
    budget: { max_steps: 1, max_tool_calls: 1, max_retries: 0, timeout_ms: 1 },
  };
  it("rejects unknown keys naming the key and the record id", () => {
    expect(() => parseTaskRecord({ ...good, extra_field: 1 })).toThrow(/'x1'.*unknown key 'extra_field'/);
    expect(() => parseTaskRecord({ ...good, budget: { ...good.budget, foo: 1 } })).toThrow(/'x1'.*'budget\.foo'/);
    expect(() => parseTaskRecord({ ...good, fault_plan: [{ fault_type: "timeout", trigger: {}, junk: 1 }] })).toThrow(
      /fault_plan\.0\.junk/,
    );
    try {
      parseTaskRecord({ ...good, split: "nope" });
    } catch (e) {
      expect(e).toBeInstanceOf(ToolMisuseDatasetError);
      expect((e as ToolMisuseDatasetError).field).toBe("split");
    }
  });
  it("loads folder-per-split and flat files filtered by split, JSONL and JSON", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tmb-"));
    mkdirSync(path.join(dir, "dev"));
    writeFileSync(path.join(dir, "dev", "tasks.jsonl"), `${JSON.stringify(good)}\n\n${JSON.stringify({ ...good, task_id: "x2" })}\n`);
    expect(loadTaskRecords(dir, "dev").map((t) => t.task_id)).toEqual(["x1", "x2"]);
    const flat = mkdtempSync(path.join(tmpdir(), "tmb-"));
    writeFileSync(path.join(flat, "all.json"), JSON.stringify([good, { ...good, task_id: "t1", split: "test_public" }]));
    expect(loadTaskRecords(flat, "test_public").map((t) => t.task_id)).toEqual(["t1"]);
    writeFileSync(path.join(flat, "bad.jsonl"), `${JSON.stringify({ ...good, task_id: "b", wat: 1 })}\n`);
    expect(() => loadTaskRecords(flat, "dev")).toThrow(/'b' at .*bad\.jsonl:1: unknown key 'wat'/);
  });
});
