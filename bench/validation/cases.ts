/**
 * Tool-argument validation cases from every registered family: the tool schemas its episodes show (collected while
 * its careful policy, or the random one, plays a few seeded episodes), each with sampled valid arguments and
 * mutations of them (a missing required key, an unknown key, a wrong type, an out-of-range or off-enum value).
 * A mutation is not assumed invalid: the validators under comparison must simply agree on it.
 * Shared by `npm run bench -- validation` and test/core/validation.test.ts.
 */
import {
  type Action,
  cloneJson,
  type Env,
  type JsonObject,
  type JsonSchema,
  type JsonValue,
  listEnvs,
  make,
  policyEntry,
  Rng,
  sampleFromJsonSchema,
  ToolEnv,
  type ToolSchema,
} from "../../src/index.js";

export interface ValidationCase {
  envId: string;
  tool: string;
  /** The tool's `parameters`, the object validation receives (the engine adds `type: "object"`). */
  parameters: JsonSchema;
  args: unknown;
  /** "sampled" (drawn from the schema) or the mutation that produced it. */
  kind: string;
}

export interface CaseOptions {
  /** Seeded episodes played per env to see its tools (default 3). */
  episodes?: number;
  /** Steps per episode at most (default 30). */
  steps?: number;
  /** Sampled argument sets per tool (default 3). */
  samples?: number;
}

/** How often an env makes new schema objects: validators are built (and cached) once per schema object. */
export interface SchemaChurn {
  envId: string;
  schemaObjects: number;
  toolCalls: number;
}

/**
 * Every distinct tool schema each registered env shows within a few seeded episodes, in a stable order, and how many
 * schema objects and tool calls those episodes had.
 */
export function collectToolSchemas(opts: CaseOptions = {}): { schemas: { envId: string; tool: ToolSchema }[]; churn: SchemaChurn[] } {
  const out: { envId: string; tool: ToolSchema }[] = [];
  const churn: SchemaChurn[] = [];
  for (const { id, policies } of listEnvs()) {
    const env = make(id) as Env<unknown, unknown>;
    if (!(env instanceof ToolEnv)) continue;
    const seen = new Map<string, ToolSchema>();
    const objects = new Set<JsonSchema>();
    let toolCalls = 0;
    const look = () => {
      for (const t of env.toolCallSpace.tools()) {
        objects.add(t.parameters);
        const key = `${t.name}\u0000${JSON.stringify(t.parameters)}`;
        if (!seen.has(key)) seen.set(key, { name: t.name, description: t.description, parameters: t.parameters });
      }
    };
    const policyName = policies.includes("careful") ? "careful" : "random";
    for (let seed = 0; seed < (opts.episodes ?? 3); seed++) {
      const policy = policyEntry(id, policyName).create(env, new Rng(seed).derive("policy"));
      let [obs, info] = env.reset({ seed });
      policy.reset?.(obs, info);
      look();
      for (let t = 0; t < (opts.steps ?? 30); t++) {
        const action = policy.act(obs, info) as Action;
        if (action.type === "tool_call") toolCalls++;
        const [o, , term, trunc, i] = env.step(action);
        [obs, info] = [o, i];
        look();
        if (term || trunc) break;
      }
    }
    env.close();
    for (const tool of seen.values()) out.push({ envId: id, tool });
    churn.push({ envId: id, schemaObjects: objects.size, toolCalls });
  }
  return { schemas: out, churn };
}

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** A value of another JSON type than the schema asks for. */
function wrongType(s: JsonSchema): JsonValue {
  const t = typesOf(s);
  if (!t.includes("number") && !t.includes("integer")) return 12345;
  if (!t.includes("string")) return "not-a-number";
  return [true];
}

/** Mutations of valid arguments, each a likely (not a certain) validation failure. */
function mutations(params: JsonSchema, args: JsonObject, rng: Rng): [string, unknown][] {
  const out: [string, unknown][] = [["unknown_key", { ...args, __unexpected__: 1 }]];
  const props = Object.entries(params.properties ?? {});
  for (const key of params.required ?? []) {
    const copy = cloneJson(args);
    delete copy[key];
    out.push([`missing:${key}`, copy]);
  }
  for (const [key, sub] of props) {
    out.push([`wrong_type:${key}`, { ...args, [key]: wrongType(sub) }]);
    if (sub.enum) out.push([`off_enum:${key}`, { ...args, [key]: `${String(sub.enum[0])}-x` }]);
    if (sub.minimum !== undefined) out.push([`below_min:${key}`, { ...args, [key]: sub.minimum - 1 }]);
    if (sub.maximum !== undefined) out.push([`above_max:${key}`, { ...args, [key]: sub.maximum + 1 }]);
    if (typesOf(sub).includes("integer")) out.push([`fraction:${key}`, { ...args, [key]: 1.5 }]);
    if (sub.pattern || sub.format) out.push([`bad_string:${key}`, { ...args, [key]: `!${rng.int(1000)} ?` }]);
    if (sub.minLength !== undefined && sub.minLength > 0) out.push([`too_short:${key}`, { ...args, [key]: "" }]);
  }
  out.push(["not_an_object", []]);
  out.push(["null", null]);
  return out;
}

/** The cases: per tool schema, `samples` sampled argument sets and their mutations. Deterministic. */
export function validationCases(opts: CaseOptions = {}): { cases: ValidationCase[]; churn: SchemaChurn[] } {
  const cases: ValidationCase[] = [];
  const rng = new Rng(2024).derive("validation-cases");
  const { schemas, churn } = collectToolSchemas(opts);
  for (const { envId, tool } of schemas) {
    const schema: JsonSchema = { type: "object", ...tool.parameters };
    for (let i = 0; i < (opts.samples ?? 3); i++) {
      const args = sampleFromJsonSchema(schema, rng) as JsonObject;
      cases.push({ envId, tool: tool.name, parameters: tool.parameters, args, kind: "sampled" });
      if (i > 0) continue;
      for (const [kind, bad] of mutations(tool.parameters, args, rng)) {
        cases.push({ envId, tool: tool.name, parameters: tool.parameters, args: bad, kind });
      }
    }
  }
  return { cases, churn };
}
