import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadRelease, PlanBenchDataError, RELEASE_FILES, resolveQueryInputs } from "../../envs/planbench/dataset.js";
import { PyFloat, pystr } from "../../envs/planbench/compat/index.js";
import { officialDir, officialRelease } from "./helpers.js";

const dir = officialDir();
const rel = officialRelease();

function copyRelease(): string {
  const d = mkdtempSync(path.join(tmpdir(), "pbxl-"));
  for (const f of RELEASE_FILES) copyFileSync(path.join(dir!, f), path.join(d, f));
  return d;
}

describe.skipIf(!rel)("official release loader", () => {
  it("loads the official subset with its documented sizes", () => {
    expect(rel!.datatypes).toHaveLength(56);
    expect(rel!.baselineTools).toHaveLength(185);
    expect(rel!.noisyTools).toHaveLength(925);
    expect(rel!.blockerTools).toHaveLength(555);
    expect(rel!.toolByName.size).toBe(1665);
    expect(rel!.cases).toHaveLength(100);
    expect(rel!.queries.length).toBe(rel!.tasks.length);
    expect(rel!.catalog.size).toBe(rel!.tasks.length);
    expect(rel!.blockerTools.every((t) => t.tool_type === "blocker_misleading")).toBe(true);
  });
  it("keeps Python's int / float distinction in the database", () => {
    const floats = rel!.cases.flatMap((c) => Object.values(c.values)).filter((v) => v instanceof PyFloat);
    expect(floats.length).toBeGreaterThan(0);
    expect(pystr(rel!.cases[0]!.values["draft_quantity"])).toBe("1");
    expect(pystr(new PyFloat(129))).toBe("129.0");
  });
  it("resolves the input values of every query from its backticked literals", () => {
    for (const q of rel!.queries) {
      const v = resolveQueryInputs(rel!, q);
      const task = rel!.taskById.get(q.task_id)!;
      const needed = new Set(task.one_available_path.flatMap((n) => rel!.toolByName.get(n)!.input_datatypes));
      for (const d of q.input_datatypes) if (needed.has(d)) expect(v[d], `${q.query_id} ${d}`).toBeTypeOf("string");
    }
  });
  it("loads any subset of the queries", () => {
    const sub = loadRelease(dir!, { queryIds: ["retail_query_0001"] });
    expect(sub.queries.map((q) => q.query_id)).toEqual(["retail_query_0001"]);
    expect([...sub.catalog.keys()]).toEqual(["retail_task_0001"]);
    expect(() => loadRelease(dir!, { queryIds: ["retail_query_9999"] })).toThrow(/retail_query_9999/);
  });
  it("names the file, record and field of a bad record", () => {
    const d = copyRelease();
    const tools = JSON.parse(readFileSync(path.join(d, "baseline_tools.json"), "utf8"));
    tools[3].output_datatype = 17;
    writeFileSync(path.join(d, "baseline_tools.json"), JSON.stringify(tools));
    try {
      loadRelease(d);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PlanBenchDataError);
      const err = e as PlanBenchDataError;
      expect(err.file).toBe("baseline_tools.json");
      expect(err.record).toContain("#3");
      expect(err.field).toBe("output_datatype");
    }
    const d2 = copyRelease();
    const tasks = JSON.parse(readFileSync(path.join(d2, "tasks.json"), "utf8"));
    tasks[0].one_available_path[2] = "no_such_tool";
    writeFileSync(path.join(d2, "tasks.json"), JSON.stringify(tasks));
    expect(() => loadRelease(d2)).toThrow(/tasks\.json: record #0 \(task_id "retail_task_0001"\): field 'one_available_path\.2'/);
    const d3 = copyRelease();
    writeFileSync(path.join(d3, "queries.json"), "[{");
    expect(() => loadRelease(d3)).toThrow(/queries\.json: invalid JSON/);
  });
});
