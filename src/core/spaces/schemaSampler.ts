import type { JsonObject, JsonValue } from "../json.js";
import { type JsonSchema, sampleFromJsonSchema, WORDS } from "../jsonSchema.js";
import { sampleFromPattern } from "../patternSample.js";
import type { Rng } from "../rng.js";

/** Draws one value for a schema: `sampleFromJsonSchema(schema, rng)`, compiled. */
export type SchemaSampler = (rng: Rng) => JsonValue;

/**
 * Below this depth every node is compiled; deeper nodes (never seen in tool parameters) are handed to the
 * interpreter, which gives the same draws, so compiling stays bounded whatever the schema.
 */
const MAX_COMPILED_DEPTH = 8;
const STRING_ITEMS: JsonSchema = { type: "string" };

/**
 * Compiles `schema` into a sampler that draws exactly what `sampleFromJsonSchema(schema, rng, depth)` draws —
 * the same values from the same stream positions, object keys in the same order — without re-reading the
 * schema on every call: random policies and the bridge's server-side sampling draw one call per env-step, and the
 * interpreter's per-call arrays, sets and entry lists were most of that cost. The schema's keywords are read once,
 * here: a schema must not be edited after it was compiled (tool schemas are not).
 */
export function compileSchemaSampler(schema: JsonSchema, depth = 0): SchemaSampler {
  const interpret: SchemaSampler = (rng) => sampleFromJsonSchema(schema, rng, depth);
  if (depth > MAX_COMPILED_DEPTH) return interpret;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    const branches = alternatives.map((a) => compileSchemaSampler(a, depth + 1));
    return (rng) => branches[rng.int(branches.length)](rng);
  }
  if (schema.const !== undefined) {
    const value = schema.const;
    return () => value;
  }
  if (schema.enum && schema.enum.length > 0) {
    const values = schema.enum;
    return (rng) => values[rng.int(values.length)];
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ["string"];
  // An empty type list is the interpreter's error to throw (at sampling time, as before).
  if (types.length === 0) return interpret;
  const leaves = types.map((t) => compileLeaf(schema, t, depth));
  if (leaves.length === 1) {
    const leaf = leaves[0];
    // The interpreter picks the type even from a list of one: that draw is part of the stream.
    return (rng) => {
      rng.random();
      return leaf(rng);
    };
  }
  return (rng) => leaves[rng.int(leaves.length)](rng);
}

/** One `type` of a node, after the type draw (the `switch` of `sampleFromJsonSchema`). */
function compileLeaf(schema: JsonSchema, type: string, depth: number): SchemaSampler {
  switch (type) {
    case "null":
      return () => null;
    case "boolean":
      return (rng) => rng.bool();
    case "integer": {
      const lo = Math.ceil(schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0));
      const hi = Math.floor(schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : lo + 100));
      const top = Math.max(lo, hi);
      return (rng) => rng.range(lo, top);
    }
    case "number": {
      const lo = schema.minimum ?? schema.exclusiveMinimum ?? 0;
      const hi = schema.maximum ?? schema.exclusiveMaximum ?? lo + 100;
      const { exclusiveMinimum: exMin, exclusiveMaximum: exMax } = schema;
      return (rng) => {
        const v = Math.round(rng.uniform(lo, hi) * 100) / 100;
        if (exMin !== undefined && v <= exMin) return (lo + hi) / 2;
        if (exMax !== undefined && v >= exMax) return (lo + hi) / 2;
        return Math.min(Math.max(v, lo), hi);
      };
    }
    case "string": {
      const words = WORDS;
      const format = schema.format;
      // Formats first, then a pattern, then words: the interpreter's order, with its draws.
      if (format === "date-time") return (rng) => `2026-0${rng.range(1, 9)}-1${rng.range(0, 9)}T1${rng.range(0, 9)}:00:00Z`;
      if (format === "date") return (rng) => `2026-0${rng.range(1, 9)}-1${rng.range(0, 9)}`;
      if (format === "email") return (rng) => `${words[rng.int(words.length)]}@example.com`;
      const min = schema.minLength ?? 0;
      const max = schema.maxLength;
      const fromWords: SchemaSampler = (rng) => {
        let s = words[rng.int(words.length)];
        while (s.length < min) s += words[rng.int(words.length)];
        return max === undefined ? s : s.slice(0, max);
      };
      const pattern = schema.pattern;
      if (pattern === undefined) return fromWords;
      const longest = max ?? Number.POSITIVE_INFINITY;
      return (rng) => {
        const s = sampleFromPattern(pattern, rng);
        return s !== null && s.length >= min && s.length <= longest ? s : fromWords(rng);
      };
    }
    case "array": {
      const min = schema.minItems ?? 0;
      const max = Math.max(min, Math.min(schema.maxItems ?? 3, 3));
      const item = compileSchemaSampler(schema.items ?? STRING_ITEMS, depth + 1);
      return (rng) => {
        const n = rng.range(min, max);
        const out: JsonValue[] = [];
        for (let i = 0; i < n; i++) out.push(item(rng));
        return out;
      };
    }
    case "object": {
      const entries = Object.entries(schema.properties ?? {});
      const required = new Set(schema.required ?? []);
      const keys = entries.map(([key]) => key);
      const always = keys.map((key) => required.has(key));
      const members = entries.map(([, sub]) => compileSchemaSampler(sub, depth + 1));
      const optional = depth < 3;
      return (rng) => {
        const out: JsonObject = {};
        for (let i = 0; i < keys.length; i++) if (always[i] || (optional && rng.bool(0.5))) out[keys[i]] = members[i](rng);
        return out;
      };
    }
    default:
      return () => undefined as unknown as JsonValue;
  }
}
