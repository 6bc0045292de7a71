/**
 * Loader of a PlanBench-XL release directory in the official format (datatypes, baseline /
 * noisy / blocker tools, database, tasks, queries, path catalog).
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
import { checkCatalogSet, checkDatatypes, checkQueries, checkTasks, checkToolDatatypes } from "./datasetChecks.js";

export { PlanBenchDataError };

export const RELEASE_FILES = [
  "datatypes.json",
  "baseline_tools.json",
  "noisy_tools.json",
  "blocker_tools.json",
  "database.json",
  "tasks.json",
  "queries.json",
  "paths_set_catalog.json",
] as const;
export type ReleaseFile = (typeof RELEASE_FILES)[number];

const pyValue: z.ZodType<PyValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.instanceof(PyFloat), z.array(pyValue), z.record(z.string(), pyValue)]),
);
const nonEmpty = z.string().min(1);

export const DatatypeSchema = z.looseObject({
  name: nonEmpty,
  category: z.string(),
  value_type: z.string(),
  description: z.string(),
  example: pyValue.optional(),
  aliases: z.array(z.string()),
});
export type Datatype = z.infer<typeof DatatypeSchema>;

const surfaceOutput = z.looseObject({
  name: z.string(),
  label: z.string().optional(),
  type: z.string().optional(),
  description: z.string().optional(),
});

const ToolBase = z.looseObject({
  type: z.literal("function"),
  name: nonEmpty,
  description: z.string(),
  parameters: z.looseObject({
    type: z.literal("object"),
    properties: z.record(z.string(), z.looseObject({ type: z.string().optional(), description: z.string().optional() })),
    required: z.array(z.string()).optional(),
  }),
  strict: z.boolean().optional(),
  input_datatypes: z.array(nonEmpty),
  output_datatype: nonEmpty,
  surface_output: surfaceOutput.optional(),
  surface_argument_to_datatype: z.record(z.string(), nonEmpty),
  datatype_to_surface_argument: z.record(z.string(), z.string()).optional(),
  internal_tool_name: z.string().optional(),
});
export const BaselineToolSchema = ToolBase.extend({
  num_inputs: z.number().int().optional(),
  steps: z.number().int().optional(),
  tool_sequence: z.array(z.string()).optional(),
});
export const NoisyToolSchema = ToolBase.extend({
  tool_type: z.string().optional(),
  noise_type: z.enum(["deprecated", "condition_limited", "stale", "miswired_or_unreliable", "non_authoritative_value"]),
  return_value: pyValue,
  baseline_tool_name: nonEmpty,
  internal_baseline_tool_name: z.string().optional(),
});
export const BlockerToolSchema = ToolBase.extend({
  tool_type: z.string().optional(),
  noise_type: z.enum(["explicit failures", "implicit failures", "semantic misleading"]),
  return_value: pyValue,
  baseline_tool_name: nonEmpty,
  internal_baseline_tool_name: z.string().optional(),
});

export type ToolType = "baseline" | "noisy_misleading" | "blocker_misleading";
export type NoiseType = z.infer<typeof NoisyToolSchema>["noise_type"];
export type BlockerType = z.infer<typeof BlockerToolSchema>["noise_type"];
export const BLOCKER_TYPES: readonly BlockerType[] = ["explicit failures", "implicit failures", "semantic misleading"];

/** One tool of any kind, normalised (the loader sets `tool_type`, as the official loader does). */
export interface ToolRecord {
  type: "function";
  name: string;
  description: string;
  parameters: { type: "object"; properties: Record<string, { type?: string; description?: string }>; required?: string[] };
  strict?: boolean;
  input_datatypes: string[];
  output_datatype: string;
  surface_argument_to_datatype: Record<string, string>;
  tool_type: ToolType;
  noise_type?: NoiseType | BlockerType;
  return_value?: PyValue;
  baseline_tool_name?: string;
}

export const TaskSchema = z.looseObject({
  task_id: nonEmpty,
  input_datatypes: z.array(nonEmpty).min(1),
  num_inputs: z.number().int().optional(),
  target_datatype: nonEmpty,
  one_available_path: z.array(nonEmpty).min(1),
  steps: z.number().int().positive(),
  two_input_usefulness_type: z.string().optional(),
  task_type: z.string().optional(),
});
export type TaskRecord = z.infer<typeof TaskSchema>;

export const QuerySchema = z.looseObject({
  query_id: nonEmpty,
  task_id: nonEmpty,
  query_text: z.string().min(1),
  correct_answer: pyValue,
  input_datatypes: z.array(nonEmpty).min(1),
  input_type: z.string().optional(),
  target_datatype: nonEmpty,
  input_values: z.record(z.string(), pyValue).optional(),
});
export type QueryRecord = z.infer<typeof QuerySchema>;

const PathSetSchema = z.looseObject({ tool_set: z.array(nonEmpty).min(1), steps: z.number().int().positive() });
export type PathSet = z.infer<typeof PathSetSchema>;

export interface CaseRecord {
  id: string;
  values: Record<string, PyValue>;
}

/** A loaded, cross-checked release. Arrays keep file order (it decides retrieval ties and DB lookups). */
export interface PlanBenchRelease {
  dir: string;
  datatypes: Datatype[];
  baselineTools: ToolRecord[];
  noisyTools: ToolRecord[];
  blockerTools: ToolRecord[];
  toolByName: Map<string, ToolRecord>;
  cases: CaseRecord[];
  tasks: TaskRecord[];
  taskById: Map<string, TaskRecord>;
  queries: QueryRecord[];
  catalog: Map<string, PathSet[]>;
  /** Domain label used in retrieval seeds (`"retail"` for the official release). */
  domain: string;
}

function readFile(dir: string, file: string): PyValue {
  const p = path.join(dir, file);
  if (!existsSync(p)) throw new PlanBenchDataError(file, null, null, `file not found in ${dir}`);
  try {
    return parsePyJson(readFileSync(p, "utf8"));
  } catch (e) {
    throw new PlanBenchDataError(file, null, null, `invalid JSON (${(e as Error).message})`);
  }
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

function toTool(
  t: z.infer<typeof ToolBase> & { noise_type?: string; return_value?: PyValue; baseline_tool_name?: string },
  tool_type: ToolType,
): ToolRecord {
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
      try {
        return parsePyJson(text);
      } catch (e) {
        throw new PlanBenchDataError(file, null, null, `invalid JSON (${(e as Error).message})`);
      }
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

  const toolByName = new Map<string, ToolRecord>();
  const files: Array<[string, ToolRecord[]]> = [
    ["baseline_tools.json", baselineTools],
    ["noisy_tools.json", noisyTools],
    ["blocker_tools.json", blockerTools],
  ];
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
  const baselineNames = new Set(baselineTools.map((t) => t.name));
  for (const [file, tools] of files.slice(1)) {
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

  const dbParsed = z.object({ order_cases: z.record(z.string(), z.unknown()) }).safeParse(readFile("database.json"));
  if (!dbParsed.success) throw new PlanBenchDataError("database.json", null, "order_cases", dbParsed.error.issues[0]!.message);
  const caseSchema = z.record(z.string(), pyValue);
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
