import { describe, expect, it } from "vitest";
import { generateSplit } from "../../envs/toolmisuse/tasks.js";
import { runEpisode } from "../../envs/toolmisuse/runner.js";
import { aggregateToolMisuse } from "../../envs/toolmisuse/scorer.js";
import { makeBaseline, parseInstruction, type BaselineName } from "../../envs/toolmisuse/baselines.js";
import { splitClauses } from "../../envs/toolmisuse/parser.js";

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

  it("schema-repair recovers timeouts and schema drift where heuristic does not", () => {
    for (const cls of ["timeout", "schema_drift"] as const) {
      // Tasks a no-instruction agent can solve: only the fault stands in the way.
      const sub = [...tasks, ...generateSplit("dev")].filter((t) => t.faultClass === cls && t.template === "retrieval_any_search");
      expect(sub.length).toBeGreaterThanOrEqual(5);
      const h = aggregateToolMisuse(evalOn("heuristic", sub));
      const s = aggregateToolMisuse(evalOn("schema-repair", sub));
      expect(h.success).toBe(0);
      expect(s.success).toBeGreaterThan(0.5);
      expect(s.recovery_success).toBeGreaterThan(h.recovery_success);
    }
  });

  it("instruction parser reads the phrasings seen in the official v0.2 release", () => {
    const crud = ["get_account", "update_account", "create_account", "close_account"];
    expect(parseInstruction("Archive account at31341 by closing it with reason risk_review.", crud)).toEqual([
      { tool_name: "close_account", args: { id: "at31341", reason: "risk_review" } },
    ]);
    expect(parseInstruction("Add customer account nt35093.", crud)).toEqual([{ tool_name: "create_account", args: { fields: { id: "nt35093" } } }]);
    expect(parseInstruction("Get the full contents for doc id dt21054.", ["search_docs", "get_doc"])).toEqual([{ tool_name: "get_doc", args: { doc_id: "dt21054" } }]);
    expect(parseInstruction("Store the text 'entry-test_public-21870-520' at /reports/rollup_test_public_21870.md.", ["read_file", "write_file", "list_dir"])).toEqual([
      { tool_name: "write_file", args: { path: "/reports/rollup_test_public_21870.md", content: "entry-test_public-21870-520" } },
    ]);
    expect(parseInstruction("Validate cron expression '5 4 * * *'.", ["create_job", "validate_cron", "list_jobs"])).toEqual([{ tool_name: "validate_cron", args: { cron: "5 4 * * *" } }]);
  });

  it("instruction parser splits multi-step instructions into clauses (quotes kept, 'it' resolved, copy reads first)", () => {
    expect(splitClauses("Validate '5 * * * *', then create job a-b running 'make x, y' on schedule '5 * * * *'.")).toEqual([
      "Validate '5 * * * *'", "create job a-b running 'make x, y' on schedule '5 * * * *'",
    ]);
    const crud = ["get_account", "update_account", "create_account", "close_account"];
    expect(parseInstruction("Account cleanup: look up account at00001 and close it with reason fraud_hold; look up account nt00002 and close it with reason inactivity; then move account at00003 to tier gold.", crud)).toEqual([
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

  it("instruction parser solves clean tasks; persistent authz on a mutation defeats the policy-aware agent", () => {
    const clean = tasks.filter((t) => t.faultClass === "clean");
    expect(aggregateToolMisuse(evalOn("instruction-parser", clean)).success).toBe(1);
  });
});
