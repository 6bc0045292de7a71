import { describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadRelease, resolveQueryInputs } from "../../envs/planbench/dataset.js";
import { RELEASE_FILES } from "../../envs/planbench/releaseFormat.js";
import { PlanBenchDataError } from "../../envs/planbench/dataError.js";
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

/** A copy of the official release with one file rewritten by `mutate` (JSON round trip; floats do not matter here). */
// biome-ignore lint/suspicious/noExplicitAny: the JSON of any release file, which each case edits in its own shape.
function corrupted(file: string, mutate: (data: any) => void): string {
  const d = copyRelease();
  const data = JSON.parse(readFileSync(path.join(d, file), "utf8"));
  mutate(data);
  writeFileSync(path.join(d, file), JSON.stringify(data));
  return d;
}

function loadError(d: string): PlanBenchDataError {
  try {
    loadRelease(d);
  } catch (e) {
    expect(e).toBeInstanceOf(PlanBenchDataError);
    return e as PlanBenchDataError;
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
  return expect.unreachable("the corrupted release loaded") as never;
}

describe.skipIf(!rel)("loader cross-reference checks (corrupted copies of the official subset)", () => {
  const task0 = 'task_id "retail_task_0001"';
  // biome-ignore lint/suspicious/noExplicitAny: as in `corrupted`, the data is whichever release file the case edits.
  const cases: Array<[string, string, (data: any) => void, { file: string; record: string; field: string; reason: RegExp }]> = [
    [
      "a task without catalog entry",
      "paths_set_catalog.json",
      (c) => delete c["retail_task_0001"],
      { file: "tasks.json", record: `#0 (${task0})`, field: "task_id", reason: /no path sets/ },
    ],
    [
      "a task with an empty catalog entry",
      "paths_set_catalog.json",
      (c) => (c["retail_task_0001"] = []),
      { file: "tasks.json", record: `#0 (${task0})`, field: "task_id", reason: /no path sets/ },
    ],
    [
      "an undefined task target",
      "tasks.json",
      (t) => (t[0].target_datatype = "refund_colour"),
      { file: "tasks.json", record: `#0 (${task0})`, field: "target_datatype", reason: /undefined datatype "refund_colour"/ },
    ],
    [
      "an undefined query target",
      "queries.json",
      (q) => (q[0].target_datatype = "refund_colour"),
      { file: "queries.json", record: '#0 (query_id "retail_query_0001")', field: "target_datatype", reason: /undefined datatype/ },
    ],
    [
      "a query target that differs from its task's",
      "queries.json",
      (q) => (q[0].target_datatype = "user_id"),
      {
        file: "queries.json",
        record: '#0 (query_id "retail_query_0001")',
        field: "target_datatype",
        reason: /differs from task retail_task_0001/,
      },
    ],
    [
      "steps != len(one_available_path)",
      "tasks.json",
      (t) => (t[0].steps += 1),
      { file: "tasks.json", record: `#0 (${task0})`, field: "steps", reason: /one_available_path has 8 tools/ },
    ],
    [
      "an undefined baseline output datatype",
      "baseline_tools.json",
      (t) => (t[3].output_datatype = "order_vibe"),
      { file: "baseline_tools.json", record: "#3", field: "output_datatype", reason: /undefined datatype "order_vibe"/ },
    ],
    [
      "an undefined baseline input datatype",
      "baseline_tools.json",
      (t) => (t[5].input_datatypes[0] = "order_vibe"),
      { file: "baseline_tools.json", record: "#5", field: "input_datatypes.0", reason: /undefined datatype "order_vibe"/ },
    ],
    [
      "an undefined noisy output datatype",
      "noisy_tools.json",
      (t) => (t[0].output_datatype = "order_vibe"),
      {
        file: "noisy_tools.json",
        record: '#0 (name "get_user_name_from_user_reference_swift_legacy")',
        field: "output_datatype",
        reason: /undefined/,
      },
    ],
    [
      "an invented output on an explicit blocker (only semantic blockers may invent one)",
      "blocker_tools.json",
      (t) => (t[0].output_datatype = "user_name_alias"),
      { file: "blocker_tools.json", record: "#0", field: "output_datatype", reason: /semantic-misleading/ },
    ],
    [
      "a surface argument mapped to a non-input datatype",
      "baseline_tools.json",
      (t) => {
        const k = Object.keys(t[0].surface_argument_to_datatype)[0];
        t[0].surface_argument_to_datatype[k] = "refund_status";
      },
      { file: "baseline_tools.json", record: "#0", field: "surface_argument_to_datatype.", reason: /not one of input_datatypes/ },
    ],
    [
      "a catalog set whose steps is not its size",
      "paths_set_catalog.json",
      (c) => (c["retail_task_0001"][1].steps = 99),
      { file: "paths_set_catalog.json", record: task0, field: "1.steps", reason: /is 99/ },
    ],
    [
      "a malformed catalog set",
      "paths_set_catalog.json",
      (c) => (c["retail_task_0001"][2].tool_set = "x"),
      { file: "paths_set_catalog.json", record: task0, field: "2.tool_set", reason: /array/ },
    ],
    [
      "a case that is not an object",
      "database.json",
      (db) => (db.order_cases["case_0007"] = "broken"),
      { file: "database.json", record: 'case "case_0007"', field: "", reason: /record|object/ },
    ],
  ];
  it.each(cases)("rejects %s, naming file, record and field", (_name, file, mutate, want) => {
    const err = loadError(corrupted(file, mutate));
    expect(err.file).toBe(want.file);
    expect(err.record).toContain(want.record);
    expect(err.record).not.toContain("(root)");
    if (want.field) expect(err.field).toContain(want.field);
    expect(err.reason).toMatch(want.reason);
  });

  it("accepts what the official format allows: semantic blockers' invented outputs, an undefined query input (`name`)", () => {
    const names = new Set(rel!.datatypes.map((d) => d.name));
    expect(rel!.blockerTools.some((t) => t.noise_type === "semantic misleading" && !names.has(t.output_datatype))).toBe(true);
    const d = corrupted("queries.json", (q) => {
      q[0].input_datatypes = ["name", ...q[0].input_datatypes.slice(1)];
    });
    try {
      expect(loadRelease(d).queries[0]!.input_datatypes[0]).toBe("name");
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
