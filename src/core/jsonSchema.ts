import { z } from "zod";
import type { JsonObject, JsonValue } from "./json.js";
import type { Rng } from "./rng.js";
import { sampleFromPattern } from "./patternSample.js";

/**
 * The subset of JSON Schema that tool parameters use (OpenAI function format): objects with properties and
 * required keys, scalar types with enums and ranges, arrays, nullable unions. Unknown keywords are ignored.
 */
export interface JsonSchema {
  type?: JsonSchemaType | JsonSchemaType[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: JsonValue[];
  const?: JsonValue;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: JsonValue;
  [keyword: string]: unknown;
}
export type JsonSchemaType = "object" | "string" | "number" | "integer" | "boolean" | "array" | "null";

/** The `format` values tool schemas use, as the one table every validator checks them with; other formats are ignored. */
export const FORMAT_CHECKS: Readonly<Record<string, RegExp>> = {
  "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/,
};

/**
 * Builds a zod validator from a tool's JSON schema. Objects reject unknown keys unless the schema allows them,
 * because a misspelt argument is exactly the kind of misuse these benchmarks measure.
 */
export function zodFromJsonSchema(schema: JsonSchema): z.ZodType<JsonValue> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    const members = alternatives.map(zodFromJsonSchema);
    return members.length === 1 ? members[0] : (z.union(members as [z.ZodType<JsonValue>, z.ZodType<JsonValue>]) as z.ZodType<JsonValue>);
  }
  if (schema.const !== undefined) return z.literal(schema.const as string | number | boolean | null) as z.ZodType<JsonValue>;
  if (schema.enum) {
    const values = schema.enum;
    return z.custom<JsonValue>((v) => values.some((e) => e === v), {
      message: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}`,
    });
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return z.json() as z.ZodType<JsonValue>;
  if (types.length > 1) {
    const members = types.map((t) => zodFromJsonSchema({ ...schema, type: t }));
    return z.union(members as [z.ZodType<JsonValue>, z.ZodType<JsonValue>]) as z.ZodType<JsonValue>;
  }
  switch (types[0]) {
    case "null":
      return z.null();
    case "boolean":
      return z.boolean();
    case "string": {
      let s = z.string();
      if (schema.minLength !== undefined) s = s.min(schema.minLength);
      if (schema.maxLength !== undefined) s = s.max(schema.maxLength);
      if (schema.pattern) s = s.regex(new RegExp(schema.pattern));
      const fmt = schema.format ? FORMAT_CHECKS[schema.format] : undefined;
      if (fmt) s = s.regex(fmt, { message: `must be a ${schema.format} string` });
      return s;
    }
    case "number":
    case "integer": {
      let n = types[0] === "integer" ? z.number().int() : z.number();
      if (schema.minimum !== undefined) n = n.gte(schema.minimum);
      if (schema.maximum !== undefined) n = n.lte(schema.maximum);
      if (schema.exclusiveMinimum !== undefined) n = n.gt(schema.exclusiveMinimum);
      if (schema.exclusiveMaximum !== undefined) n = n.lt(schema.exclusiveMaximum);
      return n;
    }
    case "array": {
      let a = z.array(schema.items ? zodFromJsonSchema(schema.items) : (z.json() as z.ZodType<JsonValue>));
      if (schema.minItems !== undefined) a = a.min(schema.minItems);
      if (schema.maxItems !== undefined) a = a.max(schema.maxItems);
      return a;
    }
    case "object": {
      const required = new Set(schema.required ?? []);
      const shape: Record<string, z.ZodType<JsonValue | undefined>> = {};
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        const inner = zodFromJsonSchema(sub);
        shape[key] = required.has(key) ? inner : inner.optional();
      }
      const base = z.object(shape);
      const extra = schema.additionalProperties;
      if (extra === true) return base.catchall(z.json()) as unknown as z.ZodType<JsonValue>;
      if (extra && typeof extra === "object") return base.catchall(zodFromJsonSchema(extra)) as unknown as z.ZodType<JsonValue>;
      return base.strict() as unknown as z.ZodType<JsonValue>;
    }
  }
}

/** The words sampled strings are made of (also read by the compiled samplers, spaces/schemaSampler.ts). */
export const WORDS = ["alpha", "berlin", "report", "order", "blue", "q3", "paris", "invoice", "meeting", "sensor"];

/** Samples a value that satisfies the schema (used by `ToolCallSpace.sample` and random policies). */
export function sampleFromJsonSchema(schema: JsonSchema, rng: Rng, depth = 0): JsonValue {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) return sampleFromJsonSchema(rng.pick(alternatives), rng, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return rng.pick(schema.enum);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ["string" as const];
  const type = rng.pick(types);
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return rng.bool();
    case "integer": {
      const lo = Math.ceil(schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0));
      const hi = Math.floor(schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : lo + 100));
      return rng.range(lo, Math.max(lo, hi));
    }
    case "number": {
      const lo = schema.minimum ?? schema.exclusiveMinimum ?? 0;
      const hi = schema.maximum ?? schema.exclusiveMaximum ?? lo + 100;
      const v = Math.round(rng.uniform(lo, hi) * 100) / 100;
      if (schema.exclusiveMinimum !== undefined && v <= schema.exclusiveMinimum) return (lo + hi) / 2;
      if (schema.exclusiveMaximum !== undefined && v >= schema.exclusiveMaximum) return (lo + hi) / 2;
      return Math.min(Math.max(v, lo), hi);
    }
    case "string": {
      if (schema.format === "date-time") return `2026-0${rng.range(1, 9)}-1${rng.range(0, 9)}T1${rng.range(0, 9)}:00:00Z`;
      if (schema.format === "date") return `2026-0${rng.range(1, 9)}-1${rng.range(0, 9)}`;
      if (schema.format === "email") return `${rng.pick(WORDS)}@example.com`;
      if (schema.pattern !== undefined) {
        const fromPattern = sampleFromPattern(schema.pattern, rng);
        const fits =
          fromPattern !== null && fromPattern.length >= (schema.minLength ?? 0) && fromPattern.length <= (schema.maxLength ?? Infinity);
        if (fits) return fromPattern;
      }
      let s = rng.pick(WORDS);
      const min = schema.minLength ?? 0;
      while (s.length < min) s += rng.pick(WORDS);
      if (schema.maxLength !== undefined) s = s.slice(0, schema.maxLength);
      return s;
    }
    case "array": {
      const min = schema.minItems ?? 0;
      const max = Math.max(min, Math.min(schema.maxItems ?? 3, 3));
      const n = rng.range(min, max);
      return Array.from({ length: n }, () => sampleFromJsonSchema(schema.items ?? { type: "string" }, rng, depth + 1));
    }
    case "object": {
      const out: JsonObject = {};
      const required = new Set(schema.required ?? []);
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (required.has(key) || (depth < 3 && rng.bool(0.5))) out[key] = sampleFromJsonSchema(sub, rng, depth + 1);
      }
      return out;
    }
  }
}
