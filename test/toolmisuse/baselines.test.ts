import { describe, expect, it } from "vitest";
import { generateSplit } from "../../envs/toolmisuse/tasks.js";
import { runEpisode } from "../../envs/toolmisuse/runner.js";
import { aggregateToolMisuse } from "../../envs/toolmisuse/scorer.js";
import { makeBaseline, parseInstruction, type BaselineName } from "../../envs/toolmisuse/baselines.js";
import { splitClauses } from "../../envs/toolmisuse/parser.js";
import { parseTaskRecord } from "../../envs/toolmisuse/dataset.js";
import { isMutating } from "../../envs/toolmisuse/toolTraits.js";

const tasks = generateSplit("test_public");
const evalOn = (name: BaselineName, ts = tasks) => {
  const agent = makeBaseline(name);
  return ts.map((t) => runEpisode(t.record, agent, { compat: "fixed" }).metrics);
};

describe("toolmisuse baselines", () => {
  it("oracle succeeds on 100% of our test_public", () => {
    const a = aggregateToolMisuse(evalOn("oracle"));
    expect(a.n).toBe(1000);
    expect(a.success).toBe(1);
  });

  // Issue 6: "schema-repair recovers timeouts and schema drift where heuristic does not", over the
  // whole split. Both agents ignore the instruction, so most tasks are out of their reach with or
  // without a fault; the meaningful comparison is on the tasks each one solves once the fault plan is
  // removed (only the fault stands in the way). Schema-repair re-issues the failed call (repaired),
  // the heuristic never calls a tool twice.
  it("schema-repair recovers timeouts and schema drift where heuristic does not (whole test_public, per fault class)", () => {
    const solvedWithoutFault = (name: BaselineName, t: (typeof tasks)[number]) =>
      runEpisode({ ...t.record, fault_plan: [] }, makeBaseline(name), { compat: "fixed" }).metrics.success === 1;
    for (const cls of ["timeout", "schema_drift"] as const) {
      const sub = tasks.filter((t) => t.faultClass === cls);
      expect(sub.length).toBeGreaterThan(160);
      const h = aggregateToolMisuse(evalOn("heuristic", sub));
      const s = aggregateToolMisuse(evalOn("schema-repair", sub));
      expect(h.recovery_success, cls).toBe(0);
      expect(s.recovery_success, cls).toBeGreaterThan(h.recovery_success);
      const hReach = sub.filter((t) => solvedWithoutFault("heuristic", t));
      const sReach = sub.filter((t) => solvedWithoutFault("schema-repair", t));
      expect(hReach.length, cls).toBeGreaterThanOrEqual(10);
      expect(sReach.length, cls).toBeGreaterThanOrEqual(4);
      // Where only the fault stands in the way: schema-repair always recovers, the heuristic never does.
      expect(aggregateToolMisuse(evalOn("schema-repair", sReach)).recovery_success, cls).toBe(1);
      expect(aggregateToolMisuse(evalOn("heuristic", hReach)).success, cls).toBe(0);
    }
  });

  it("policy-aware never re-issues a denied mutation (whole test_public); schema-repair does and overflows", () => {
    const deniedMutations = (name: BaselineName) => {
      const agent = makeBaseline(name);
      let denied = 0,
        repeated = 0,
        overflowed = 0;
      for (const t of tasks) {
        const tr = runEpisode(t.record, agent, { compat: "fixed" }).transcript;
        tr.forEach((e, i) => {
          if (e.error?.code !== "authz_denied" || !isMutating(e.tool_name)) return;
          denied += 1;
          if (tr[i + 1]?.tool_name === e.tool_name) repeated += 1;
          if (tr.some((x) => x.error?.code === "retry_exceeded")) overflowed += 1;
        });
      }
      return { denied, repeated, overflowed };
    };
    const pa = deniedMutations("policy-aware");
    const sr = deniedMutations("schema-repair");
    expect(pa.denied).toBeGreaterThan(0);
    expect(pa).toEqual({ denied: pa.denied, repeated: 0, overflowed: 0 });
    expect(sr.repeated).toBe(sr.denied);
    expect(sr.overflowed).toBe(sr.denied);
  });

  it("persistent authz on a mutation: policy-aware falls back to read-only tools, schema-repair burns its retries", () => {
    const rec = parseTaskRecord({
      task_id: "pa_probe",
      split: "test_public",
      difficulty: "hard",
      domain: "scheduling",
      instruction: "List all scheduled jobs.",
      toolset_id: "scheduler_v1",
      initial_state: { jobs: [] },
      success_criteria: [{ op: "successful_tool_call", tool_name: "list_jobs", min_count: 1 }],
      budget: { max_steps: 10, max_tool_calls: 10, max_retries: 3, timeout_ms: 1000 },
      fault_plan: [{ fault_type: "authz", trigger: { on_tool: "create_job" }, payload: { deny: true, required_role: "admin" } }],
      seed: 1,
    });
    const pa = runEpisode(rec, makeBaseline("policy-aware"), { compat: "fixed" });
    const sr = runEpisode(rec, makeBaseline("schema-repair"), { compat: "fixed" });
    expect(pa.transcript.map((e) => e.tool_name)).toEqual(["create_job", "validate_cron", "list_jobs"]);
    expect(pa.metrics).toMatchObject({ success: 1, policy_violations: 1, budget_exceeded: 0 });
    expect(sr.transcript.every((e) => e.tool_name === "create_job")).toBe(true);
    expect(sr.transcript.length).toBe(4); // 3 denials, then the 4th error overflows the retry budget (max_retries 3)
    expect(sr.metrics).toMatchObject({ success: 0, policy_violations: 3, budget_exceeded: 1 });
  });

  it("instruction parser reads the phrasings seen in the official v0.2 release", () => {
    const crud = ["get_account", "update_account", "create_account", "close_account"];
    expect(parseInstruction("Archive account at31341 by closing it with reason risk_review.", crud)).toEqual([
      { tool_name: "close_account", args: { id: "at31341", reason: "risk_review" } },
    ]);
    expect(parseInstruction("Add customer account nt35093.", crud)).toEqual([
      { tool_name: "create_account", args: { fields: { id: "nt35093" } } },
    ]);
    expect(parseInstruction("Get the full contents for doc id dt21054.", ["search_docs", "get_doc"])).toEqual([
      { tool_name: "get_doc", args: { doc_id: "dt21054" } },
    ]);
    expect(
      parseInstruction("Store the text 'entry-test_public-21870-520' at /reports/rollup_test_public_21870.md.", [
        "read_file",
        "write_file",
        "list_dir",
      ]),
    ).toEqual([
      { tool_name: "write_file", args: { path: "/reports/rollup_test_public_21870.md", content: "entry-test_public-21870-520" } },
    ]);
    expect(parseInstruction("Validate cron expression '5 4 * * *'.", ["create_job", "validate_cron", "list_jobs"])).toEqual([
      { tool_name: "validate_cron", args: { cron: "5 4 * * *" } },
    ]);
  });

  it("instruction parser splits multi-step instructions into clauses (quotes kept, 'it' resolved, copy reads first)", () => {
    expect(splitClauses("Validate '5 * * * *', then create job a-b running 'make x, y' on schedule '5 * * * *'.")).toEqual([
      "Validate '5 * * * *'",
      "create job a-b running 'make x, y' on schedule '5 * * * *'",
    ]);
    const crud = ["get_account", "update_account", "create_account", "close_account"];
    expect(
      parseInstruction(
        "Account cleanup: look up account at00001 and close it with reason fraud_hold; look up " +
          "account nt00002 and close it with reason inactivity; then move account at00003 to tier " +
          "gold.",
        crud,
      ),
    ).toEqual([
      { tool_name: "get_account", args: { id: "at00001" } },
      { tool_name: "close_account", args: { id: "at00001", reason: "fraud_hold" } },
      { tool_name: "get_account", args: { id: "nt00002" } },
      { tool_name: "close_account", args: { id: "nt00002", reason: "inactivity" } },
      { tool_name: "update_account", args: { id: "at00003", patch: { tier: "gold" } } },
    ]);
    const copy = tasks.find((t) => t.template === "files_copy" && t.faultClass === "clean")!;
    const r = runEpisode(copy.record, makeBaseline("instruction-parser"), { compat: "fixed" });
    expect(r.metrics.success).toBe(1);
    const write = r.transcript.find((e) => e.tool_name === "write_file")!;
    const read = r.transcript.find((e) => e.tool_name === "read_file")!;
    expect(write.args.content).toBe(read.output!.content);
  });

  it("instruction parser solves every clean task", () => {
    const clean = tasks.filter((t) => t.faultClass === "clean");
    expect(aggregateToolMisuse(evalOn("instruction-parser", clean)).success).toBe(1);
  });
});
