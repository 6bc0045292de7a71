/**
 * Loader of a PlanBench-XL release directory in the official format (datatypes, baseline /
 * noisy / blocker tools, database, tasks, queries, path catalog; the record schemas are in releaseFormat.ts).
 *
 * Why a custom loader: every record is validated with zod and a bad file fails naming the file,
 * the record and the field; numbers are parsed with Python's int/float distinction (the runtime
 * compares values by Python `str()`); and any subset of the queries is accepted, because the
 * official subset we ship against holds 227 of 327 queries.
 */
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { PyFloat, parsePyJson, type PyValue } from "./compat/index.js";
import { PlanBenchDataError } from "./dataError.js";
import {
  checkBaselineRefs,
  checkCatalogSet,
  checkDatatypes,
  checkQueries,
  checkTaskPaths,
  checkTasks,
  indexTools,
} from "./datasetChecks.js";
import {
  BaselineToolSchema,
  BlockerToolSchema,
  type BlockerType,
  type CaseRecord,
  DatatypeSchema,
  type NoiseType,
  NoisyToolSchema,
  type ParsedTool,
  type PathSet,
  PathSetSchema,
  type PlanBenchRelease,
  PyValueSchema,
  type QueryRecord,
  QuerySchema,
  type ReleaseFile,
  TaskSchema,
  type ToolRecord,
  type ToolType,
} from "./releaseFormat.js";

/** One release file, read and parsed with Python's number semantics (on disk or in memory alike). */
function parseFileText(file: string, read: () => string): PyValue {
  try {
    return parsePyJson(read());
  } catch (e) {
    throw new PlanBenchDataError(file, null, null, `invalid JSON (${(e as Error).message})`);
  }
}

function readFile(dir: string, file: string): PyValue {
  const p = path.join(dir, file);
  if (!existsSync(p)) throw new PlanBenchDataError(file, null, null, `file not found in ${dir}`);
  return parseFileText(file, () => readFileSync(p, "utf8"));
}

function issueOf(file: string, record: string, err: z.ZodError): PlanBenchDataError {
  const issue = err.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  return new PlanBenchDataError(file, record, field, issue.message);
}

function parseArray<T>(file: string, raw: PyValue, schema: z.ZodType<T>, idKey: string): T[] {
  if (!Array.isArray(raw)) throw new PlanBenchDataError(file, null, null, "expected a JSON array of records");
  return raw.map((rec, i) => {
    const r = schema.safeParse(rec);
    if (!r.success) {
      const idVal = rec !== null && typeof rec === "object" && !Array.isArray(rec) && !(rec instanceof PyFloat) ? rec[idKey] : undefined;
      const id = typeof idVal === "string" ? ` (${idKey} "${idVal}")` : "";
      throw issueOf(file, `#${i}${id}`, r.error);
    }
    return r.data;
  });
}

function toTool(t: ParsedTool, tool_type: ToolType): ToolRecord {
  const out: ToolRecord = {
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.parameters as ToolRecord["parameters"],
    input_datatypes: t.input_datatypes,
    output_datatype: t.output_datatype,
    surface_argument_to_datatype: t.surface_argument_to_datatype,
    tool_type,
  };
  if (t.strict !== undefined) out.strict = t.strict;
  if (t.noise_type !== undefined) out.noise_type = t.noise_type as NoiseType | BlockerType;
  if (t.return_value !== undefined) out.return_value = t.return_value;
  if (t.baseline_tool_name !== undefined) out.baseline_tool_name = t.baseline_tool_name;
  return out;
}

export interface LoadReleaseOptions {
  /** Keep only these query ids (any subset); unknown ids are an error. */
  queryIds?: readonly string[];
  domain?: string;
}

/** Load and validate a release directory. Throws `PlanBenchDataError` naming file / record / field. */
export function loadRelease(dir: string, opts: LoadReleaseOptions = {}): PlanBenchRelease {
  const abs = path.resolve(dir);
  return parseRelease(abs, (file) => readFile(abs, file), opts);
}

/**
 * Validate a release held in memory (file name -> exact text), e.g. the generated built-in world.
 * The texts go through the same parser and checks as files on disk, so both worlds behave alike.
 */
export function loadReleaseFromTexts(
  label: string,
  texts: Readonly<Record<ReleaseFile, string>>,
  opts: LoadReleaseOptions = {},
): PlanBenchRelease {
  return parseRelease(
    label,
    (file) => {
      const text = texts[file as ReleaseFile];
      if (text === undefined) throw new PlanBenchDataError(file, null, null, `file missing from ${label}`);
      return parseFileText(file, () => text);
    },
    opts,
  );
}

function parseRelease(abs: string, readFile: (file: string) => PyValue, opts: LoadReleaseOptions): PlanBenchRelease {
  const datatypes = parseArray("datatypes.json", readFile("datatypes.json"), DatatypeSchema, "name");
  const defined = checkDatatypes(datatypes);
  const baselineTools = parseArray("baseline_tools.json", readFile("baseline_tools.json"), BaselineToolSchema, "name").map((t) =>
    toTool(t, "baseline"),
  );
  const noisyTools = parseArray("noisy_tools.json", readFile("noisy_tools.json"), NoisyToolSchema, "name").map((t) =>
    toTool(t, "noisy_misleading"),
  );
  const blockerTools = parseArray("blocker_tools.json", readFile("blocker_tools.json"), BlockerToolSchema, "name").map((t) =>
    toTool(t, "blocker_misleading"),
  );

  const files: Array<[string, ToolRecord[]]> = [
    ["baseline_tools.json", baselineTools],
    ["noisy_tools.json", noisyTools],
    ["blocker_tools.json", blockerTools],
  ];
  const toolByName = indexTools(files, defined);
  const baselineNames = new Set(baselineTools.map((t) => t.name));
  checkBaselineRefs(files.slice(1), baselineNames);

  const dbParsed = z.object({ order_cases: z.record(z.string(), z.unknown()) }).safeParse(readFile("database.json"));
  if (!dbParsed.success) throw new PlanBenchDataError("database.json", null, "order_cases", dbParsed.error.issues[0]!.message);
  const caseSchema = z.record(z.string(), PyValueSchema);
  const cases: CaseRecord[] = Object.entries(dbParsed.data.order_cases).map(([id, raw]) => {
    const r = caseSchema.safeParse(raw);
    if (!r.success) throw issueOf("database.json", `case "${id}"`, r.error);
    return { id, values: r.data };
  });

  let tasks = parseArray("tasks.json", readFile("tasks.json"), TaskSchema, "task_id");
  let queries = parseArray("queries.json", readFile("queries.json"), QuerySchema, "query_id");
  const catRaw = readFile("paths_set_catalog.json");
  if (catRaw === null || typeof catRaw !== "object" || Array.isArray(catRaw) || catRaw instanceof PyFloat) {
    throw new PlanBenchDataError("paths_set_catalog.json", null, null, "expected a JSON object {task_id: [path sets]}");
  }
  const catEntries = Object.entries(catRaw).map(([taskId, raw]): [string, PathSet[]] => {
    const r = z.array(PathSetSchema).safeParse(raw);
    if (!r.success) throw issueOf("paths_set_catalog.json", `task_id "${taskId}"`, r.error);
    return [taskId, r.data];
  });

  if (opts.queryIds !== undefined) {
    const want = new Set(opts.queryIds);
    const have = new Set(queries.map((q) => q.query_id));
    for (const id of want)
      if (!have.has(id)) throw new PlanBenchDataError("queries.json", null, "query_id", `requested query "${id}" is not in the release`);
    queries = queries.filter((q) => want.has(q.query_id));
    const taskIds = new Set(queries.map((q) => q.task_id));
    tasks = tasks.filter((t) => taskIds.has(t.task_id));
  }
  // Retrieval seeds embed the domain label; a release names it in its task ids ("retail_task_0001").
  const inferred = /^([a-z0-9]+)_task_/.exec(tasks[0]?.task_id ?? "")?.[1];
  const taskById = new Map(tasks.map((t) => [t.task_id, t]));
  queries.forEach((q, i) => {
    if (!taskById.has(q.task_id))
      throw new PlanBenchDataError("queries.json", `#${i} (query_id "${q.query_id}")`, "task_id", `no task "${q.task_id}" in tasks.json`);
  });
  checkTaskPaths(tasks, baselineNames);
  const catalog = new Map<string, PathSet[]>();
  for (const [taskId, sets] of catEntries) {
    if (!taskById.has(taskId)) continue;
    sets.forEach((s, k) => {
      s.tool_set.forEach((n, j) => {
        if (!baselineNames.has(n))
          throw new PlanBenchDataError(
            "paths_set_catalog.json",
            `task_id "${taskId}"`,
            `${k}.tool_set.${j}`,
            `unknown baseline tool "${n}"`,
          );
      });
      checkCatalogSet(taskId, k, s);
    });
    catalog.set(taskId, sets);
  }
  checkTasks(tasks, defined, catalog);
  checkQueries(queries, defined, taskById);
  return {
    dir: abs,
    datatypes,
    baselineTools,
    noisyTools,
    blockerTools,
    toolByName,
    cases,
    tasks,
    taskById,
    queries,
    catalog,
    domain: opts.domain ?? inferred ?? "retail",
  };
}

/**
 * Input values of a query. The official data has no `input_values`; the values are the backticked
 * literals in the text, each assigned to the input datatype whose DB field holds that exact string.
 * Used by the oracle and `info.hidden`, never by the runtime's checks (inputs are trusted by type).
 */
export function resolveQueryInputs(release: PlanBenchRelease, q: QueryRecord): Record<string, string> {
  const out: Record<string, string> = {};
  if (q.input_values) {
    for (const [k, v] of Object.entries(q.input_values)) out[k] = typeof v === "string" ? v : String(v);
    return out;
  }
  const literals = Array.from(q.query_text.matchAll(/`([^`]+)`/g), (m) => m[1]!);
  for (const lit of literals) {
    for (const dt of q.input_datatypes) {
      if (dt in out) continue;
      if (release.cases.some((c) => typeof c.values[dt] === "string" && c.values[dt] === lit)) {
        out[dt] = lit;
        break;
      }
    }
  }
  return out;
}
