/**
 * Cross-reference checks of a release that zod cannot express record by record: every datatype a tool, task or
 * query names must be defined, every task must have catalog paths, and `steps` must be the length of the path.
 *
 * Why reject instead of degrading: without a catalog entry a task silently loses blocking (no paths to preserve)
 * and its EGT ground truth (empty GT, recall 0), and an undefined target can never be reached; such a release
 * would produce plausible-looking but wrong numbers.
 *
 * What the official format allows (checked on the shipped data, see reference §1): a semantic-misleading blocker
 * outputs an invented datatype (55 distinct, none in datatypes.json); a query's or task's *input* datatypes may be
 * undefined (retail queries 0274 and 0318 use `name`, which only appears in the text and is never a tool input).
 * Tool inputs, tool outputs otherwise, and targets must be defined.
 */
import { PlanBenchDataError } from "./dataError.js";
import type { Datatype, PathSet, QueryRecord, TaskRecord, ToolRecord } from "./releaseFormat.js";

const rec = (i: number, key: string, id: string): string => `#${i} (${key} "${id}")`;

/** Datatype names are the vocabulary of every other file: duplicates make lookups ambiguous. */
export function checkDatatypes(datatypes: readonly Datatype[]): Set<string> {
  const names = new Set<string>();
  datatypes.forEach((d, i) => {
    if (names.has(d.name)) throw new PlanBenchDataError("datatypes.json", rec(i, "name", d.name), "name", `duplicate datatype "${d.name}"`);
    names.add(d.name);
  });
  return names;
}

/** Tool inputs must be defined datatypes; outputs too, except a semantic-misleading blocker's invented one. */
export function checkToolDatatypes(file: string, tools: readonly ToolRecord[], defined: ReadonlySet<string>): void {
  tools.forEach((t, i) => {
    t.input_datatypes.forEach((d, k) => {
      if (!defined.has(d))
        throw new PlanBenchDataError(
          file,
          rec(i, "name", t.name),
          `input_datatypes.${k}`,
          `undefined datatype "${d}" (not in datatypes.json)`,
        );
    });
    const mapped = Object.values(t.surface_argument_to_datatype);
    Object.entries(t.surface_argument_to_datatype).forEach(([surface, d]) => {
      if (!t.input_datatypes.includes(d))
        throw new PlanBenchDataError(
          file,
          rec(i, "name", t.name),
          `surface_argument_to_datatype.${surface}`,
          `maps to "${d}", which is not one of input_datatypes`,
        );
    });
    t.input_datatypes.forEach((d, k) => {
      if (!mapped.includes(d))
        throw new PlanBenchDataError(
          file,
          rec(i, "name", t.name),
          `input_datatypes.${k}`,
          `"${d}" has no surface argument in surface_argument_to_datatype`,
        );
    });
    if (t.noise_type === "semantic misleading") return;
    if (!defined.has(t.output_datatype))
      throw new PlanBenchDataError(
        file,
        rec(i, "name", t.name),
        "output_datatype",
        `undefined datatype "${t.output_datatype}" (not in datatypes.json; only semantic-misleading blockers may invent one)`,
      );
  });
}

/** Targets defined; steps = len(one_available_path); at least one catalog path per task. */
export function checkTasks(
  tasks: readonly TaskRecord[],
  defined: ReadonlySet<string>,
  catalog: ReadonlyMap<string, readonly PathSet[]>,
): void {
  tasks.forEach((t, i) => {
    const r = rec(i, "task_id", t.task_id);
    if (!defined.has(t.target_datatype))
      throw new PlanBenchDataError("tasks.json", r, "target_datatype", `undefined datatype "${t.target_datatype}" (not in datatypes.json)`);
    if (t.steps !== t.one_available_path.length)
      throw new PlanBenchDataError(
        "tasks.json",
        r,
        "steps",
        `is ${t.steps} but one_available_path has ${t.one_available_path.length} tools`,
      );
    const sets = catalog.get(t.task_id);
    if (!sets || sets.length === 0)
      throw new PlanBenchDataError(
        "tasks.json",
        r,
        "task_id",
        "has no path sets in paths_set_catalog.json (blocking and the EGT metric need them)",
      );
  });
}

/** A query's target must be defined and agree with its task's (the runtime judges the query's, the catalog is the task's). */
export function checkQueries(
  queries: readonly QueryRecord[],
  defined: ReadonlySet<string>,
  taskById: ReadonlyMap<string, TaskRecord>,
): void {
  queries.forEach((q, i) => {
    const r = rec(i, "query_id", q.query_id);
    if (!defined.has(q.target_datatype))
      throw new PlanBenchDataError(
        "queries.json",
        r,
        "target_datatype",
        `undefined datatype "${q.target_datatype}" (not in datatypes.json)`,
      );
    const task = taskById.get(q.task_id);
    if (task && task.target_datatype !== q.target_datatype) {
      throw new PlanBenchDataError(
        "queries.json",
        r,
        "target_datatype",
        `"${q.target_datatype}" differs from task ${q.task_id}'s "${task.target_datatype}"`,
      );
    }
  });
}

/** A catalog set's `steps` is its size (the blocker planner's path-length objectives read it). */
export function checkCatalogSet(taskId: string, k: number, s: PathSet): void {
  if (s.steps !== s.tool_set.length)
    throw new PlanBenchDataError(
      "paths_set_catalog.json",
      `task_id "${taskId}"`,
      `${k}.steps`,
      `is ${s.steps} but tool_set has ${s.tool_set.length} tools`,
    );
}

/**
 * Tool names are unique across the three tool files, and a tool's surface arguments map exactly its schema's
 * parameters onto its inputs (the runtime checks a call's keys against that map). Returns the tools by name.
 */
export function indexTools(
  files: ReadonlyArray<readonly [string, readonly ToolRecord[]]>,
  defined: ReadonlySet<string>,
): Map<string, ToolRecord> {
  const toolByName = new Map<string, ToolRecord>();
  for (const [file, tools] of files) {
    tools.forEach((t, i) => {
      if (toolByName.has(t.name)) throw new PlanBenchDataError(file, `#${i} (name "${t.name}")`, "name", "duplicate tool name");
      const surf = Object.keys(t.surface_argument_to_datatype);
      const props = Object.keys(t.parameters.properties);
      if (surf.length !== t.input_datatypes.length || surf.some((s) => !props.includes(s))) {
        throw new PlanBenchDataError(
          file,
          `#${i} (name "${t.name}")`,
          "surface_argument_to_datatype",
          "must map exactly the schema's parameters onto input_datatypes",
        );
      }
      toolByName.set(t.name, t);
    });
    checkToolDatatypes(file, tools, defined);
  }
  return toolByName;
}

/** Every noisy or blocker tool names the baseline tool it stands in for. */
export function checkBaselineRefs(
  files: ReadonlyArray<readonly [string, readonly ToolRecord[]]>,
  baselineNames: ReadonlySet<string>,
): void {
  for (const [file, tools] of files) {
    tools.forEach((t, i) => {
      if (!baselineNames.has(t.baseline_tool_name!)) {
        throw new PlanBenchDataError(
          file,
          `#${i} (name "${t.name}")`,
          "baseline_tool_name",
          `unknown baseline tool "${t.baseline_tool_name}"`,
        );
      }
    });
  }
}

/** A task's `one_available_path` is made of baseline tools. */
export function checkTaskPaths(tasks: readonly TaskRecord[], baselineNames: ReadonlySet<string>): void {
  tasks.forEach((t, i) => {
    t.one_available_path.forEach((n, k) => {
      if (!baselineNames.has(n))
        throw new PlanBenchDataError(
          "tasks.json",
          `#${i} (task_id "${t.task_id}")`,
          `one_available_path.${k}`,
          `unknown baseline tool "${n}"`,
        );
    });
  });
}
