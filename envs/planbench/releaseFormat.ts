/**
 * The official PlanBench-XL release format: its files, the zod schema of each record kind, and the types of a loaded
 * release (dataset.ts loads and cross-checks a directory of them).
 */
import { z } from "zod";
import { PyFloat, type PyValue } from "./compat/index.js";

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

/** A JSON value as `parsePyJson` returns it (`PyFloat` keeps Python's int / float distinction). */
export const PyValueSchema: z.ZodType<PyValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.instanceof(PyFloat),
    z.array(PyValueSchema),
    z.record(z.string(), PyValueSchema),
  ]),
);
const nonEmpty = z.string().min(1);

export const DatatypeSchema = z.looseObject({
  name: nonEmpty,
  category: z.string(),
  value_type: z.string(),
  description: z.string(),
  example: PyValueSchema.optional(),
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

/** A parsed tool record of any kind, before the loader normalises it into a `ToolRecord`. */
export type ParsedTool = z.infer<typeof ToolBase> & { noise_type?: string; return_value?: PyValue; baseline_tool_name?: string };

export const BaselineToolSchema = ToolBase.extend({
  num_inputs: z.number().int().optional(),
  steps: z.number().int().optional(),
  tool_sequence: z.array(z.string()).optional(),
});
export const NoisyToolSchema = ToolBase.extend({
  tool_type: z.string().optional(),
  noise_type: z.enum(["deprecated", "condition_limited", "stale", "miswired_or_unreliable", "non_authoritative_value"]),
  return_value: PyValueSchema,
  baseline_tool_name: nonEmpty,
  internal_baseline_tool_name: z.string().optional(),
});
export const BlockerToolSchema = ToolBase.extend({
  tool_type: z.string().optional(),
  noise_type: z.enum(["explicit failures", "implicit failures", "semantic misleading"]),
  return_value: PyValueSchema,
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
  correct_answer: PyValueSchema,
  input_datatypes: z.array(nonEmpty).min(1),
  input_type: z.string().optional(),
  target_datatype: nonEmpty,
  input_values: z.record(z.string(), PyValueSchema).optional(),
});
export type QueryRecord = z.infer<typeof QuerySchema>;

export const PathSetSchema = z.looseObject({ tool_set: z.array(nonEmpty).min(1), steps: z.number().int().positive() });
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
