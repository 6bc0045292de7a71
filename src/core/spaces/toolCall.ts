import type { z } from "zod";
import type { JsonObject, JsonValue } from "../json.js";
import { isJsonObject, toJsonObject } from "../json.js";
import { compileFastCheck, type FastCheck } from "../fastSchema.js";
import { type JsonSchema, zodFromJsonSchema } from "../jsonSchema.js";
import type { Rng } from "../rng.js";
import { compileSchemaSampler, type SchemaSampler } from "./schemaSampler.js";
import { Space, type SpaceJson } from "./space.js";

/** What the agent sees of a tool: OpenAI function format. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A call of a tool by name with JSON arguments. */
export interface ToolCallValue {
  name: string;
  arguments: JsonObject;
}

const validators = new WeakMap<JsonSchema, z.ZodType<JsonValue>>();

/** The zod validator for a tool's parameters, built once per schema object. */
export function validatorFor(schema: JsonSchema): z.ZodType<JsonValue> {
  let v = validators.get(schema);
  if (!v) {
    v = zodFromJsonSchema({ type: "object", ...schema });
    validators.set(schema, v);
  }
  return v;
}

const argumentSamplers = new WeakMap<JsonSchema, SchemaSampler>();

/**
 * Random arguments for a tool: `sampleFromJsonSchema({ type: "object", ...parameters }, rng)`, draw for draw, from a
 * sampler compiled once per parameters object (random policies and the bridge sample a call every env-step).
 */
export function sampleArguments(parameters: JsonSchema, rng: Rng): JsonObject {
  let sampler = argumentSamplers.get(parameters);
  if (!sampler) argumentSamplers.set(parameters, (sampler = compileSchemaSampler({ type: "object", ...parameters })));
  return sampler(rng) as JsonObject;
}

const fastChecks = new WeakMap<JsonSchema, FastCheck | null>();

/**
 * Why `args` do not fit the tool's parameters (zod's issues), or null when they do. A compiled plain-JS predicate
 * accepts the common valid call cheaply; zod runs only when it does not, so verdicts and messages stay zod's.
 */
export function argumentIssues(schema: JsonSchema, args: unknown): readonly z.core.$ZodIssue[] | null {
  let fast = fastChecks.get(schema);
  if (fast === undefined) {
    fast = compileFastCheck({ type: "object", ...schema });
    fastChecks.set(schema, fast);
  }
  if (fast?.(args)) return null;
  const res = validatorFor(schema).safeParse(args);
  return res.success ? null : res.error.issues;
}

/**
 * Calls valid against the tools visible right now. The visible set changes during an episode (retrieval, staged
 * disclosure), so the space reads it through a function instead of holding a copy.
 */
export class ToolCallSpace extends Space<ToolCallValue> {
  constructor(private readonly visibleTools: () => readonly ToolSchema[]) {
    super();
  }

  tools(): readonly ToolSchema[] {
    return this.visibleTools();
  }

  /** Why `x` is not a valid call, or null when it is. */
  explain(x: unknown): string | null {
    if (!isJsonObject(x)) return "a tool call must be an object { name, arguments }";
    if (typeof x.name !== "string") return "name: must be a string";
    if (!isJsonObject(x.arguments)) return "arguments: must be an object";
    const tool = this.visibleTools().find((t) => t.name === x.name);
    if (!tool) return `name: "${x.name}" is not a visible tool`;
    const issues = argumentIssues(tool.parameters, x.arguments);
    if (issues) return issues.map((i) => `arguments.${i.path.join(".")}: ${i.message}`).join("; ");
    return null;
  }

  contains(x: unknown): x is ToolCallValue {
    return this.explain(x) === null;
  }

  sample(rng: Rng = this.stream()): ToolCallValue {
    const tools = this.visibleTools();
    if (tools.length === 0) throw new RangeError("ToolCallSpace.sample: no visible tools");
    const tool = rng.pick(tools);
    return { name: tool.name, arguments: sampleArguments(tool.parameters, rng) };
  }

  /**
   * Self-contained: the names and the agent-facing schemas (name, description, parameters) of the tools visible
   * now, so a remote client can validate or sample calls without another request. Equality compares them too.
   * Only the schema fields are copied: a ToolDefinition's hidden `meta` and simulator never leave the env.
   */
  toJSON(): SpaceJson {
    const tools = this.visibleTools();
    return {
      type: "tool_call",
      tools: tools.map((t) => t.name),
      schemas: tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: toJsonObject(t.parameters, `tools.${t.name}.parameters`),
      })),
    };
  }
}
