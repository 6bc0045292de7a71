// Kept over ajv and z.fromJSONSchema (`npm run bench -- validation`, same verdicts): fastest per schema object as used.
import { FORMAT_CHECKS, type JsonSchema } from "./jsonSchema.js";

/**
 * A plain-JS acceptance test for the JSON-schema subset that `zodFromJsonSchema` understands. Argument checks run
 * on every tool call, and building zod's result objects dominated their cost. The predicate is *conservative*: it
 * returns true only for values the zod validator certainly accepts, and false for anything else (including values
 * zod might accept). Callers then ask zod, which stays the single source of truth for verdicts and messages.
 * Schemas using anything the compiler does not model get no predicate (null), so they always go through zod.
 */
export type FastCheck = (value: unknown) => boolean;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** Compiles `schema` into a conservative predicate, or null when it uses features we leave to zod. */
export function compileFastCheck(schema: JsonSchema): FastCheck | null {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    const members = alternatives.map(compileFastCheck);
    if (members.some((m) => m === null)) return null;
    const ms = members as FastCheck[];
    return (v) => ms.some((m) => m(v));
  }
  if (schema.const !== undefined) {
    const c = schema.const;
    if (c !== null && typeof c === "object") return null;
    return (v) => v === c;
  }
  if (schema.enum) {
    const values = schema.enum;
    return (v) => values.some((e) => e === v);
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length !== 1) {
    if (types.length === 0) return null;
    const members = types.map((t) => compileFastCheck({ ...schema, type: t }));
    if (members.some((m) => m === null)) return null;
    const ms = members as FastCheck[];
    return (v) => ms.some((m) => m(v));
  }
  switch (types[0]) {
    case "null":
      return (v) => v === null;
    case "boolean":
      return (v) => typeof v === "boolean";
    case "string": {
      const { minLength, maxLength } = schema;
      const pattern = schema.pattern ? new RegExp(schema.pattern) : null;
      const fmt = schema.format ? FORMAT_CHECKS[schema.format] : undefined;
      return (v) =>
        typeof v === "string" &&
        (minLength === undefined || v.length >= minLength) &&
        (maxLength === undefined || v.length <= maxLength) &&
        (pattern === null || pattern.test(v)) &&
        (fmt === undefined || fmt.test(v));
    }
    case "number":
    case "integer": {
      const integer = types[0] === "integer";
      const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
      return (v) =>
        typeof v === "number" &&
        (integer ? Number.isSafeInteger(v) : Number.isFinite(v)) &&
        (minimum === undefined || v >= minimum) &&
        (maximum === undefined || v <= maximum) &&
        (exclusiveMinimum === undefined || v > exclusiveMinimum) &&
        (exclusiveMaximum === undefined || v < exclusiveMaximum);
    }
    case "array": {
      if (!schema.items) return null;
      const item = compileFastCheck(schema.items);
      if (!item) return null;
      const { minItems, maxItems } = schema;
      return (v) =>
        Array.isArray(v) &&
        (minItems === undefined || v.length >= minItems) &&
        (maxItems === undefined || v.length <= maxItems) &&
        v.every((x) => item(x));
    }
    case "object": {
      // Only closed objects (what zod's .strict() enforces); open ones need z.json() semantics for extras.
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return null;
      const props = new Map<string, { check: FastCheck; required: boolean }>();
      const required = new Set(schema.required ?? []);
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        // zod reads input[key], so a key like "toString" would see Object.prototype's member: leave those to zod.
        if (key in Object.prototype) return null;
        const check = compileFastCheck(sub);
        if (!check) return null;
        props.set(key, { check, required: required.has(key) });
      }
      // A required key that has no property schema is something only zod should judge.
      for (const key of required) if (!props.has(key)) return null;
      // Parallel arrays, and keys counted without listing them: this runs on every tool call.
      const keys = [...props.keys()];
      const checks = keys.map((k) => (props.get(k) as { check: FastCheck }).check);
      const requiredAt = keys.map((k) => (props.get(k) as { required: boolean }).required);
      return (v) => {
        if (!isPlainObject(v)) return false;
        let present = 0;
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          if (!Object.prototype.propertyIsEnumerable.call(v, key)) {
            if (requiredAt[i]) return false;
            continue;
          }
          const x = v[key];
          if (x === undefined || !checks[i](x)) return false;
          present++;
        }
        // Every own key must be a known property (zod strict objects reject the rest). for-in also lists inherited
        // enumerable keys, which only makes the count larger: such a value is left to zod, as the predicate may.
        let n = 0;
        for (const _ in v) n++;
        return n === present;
      };
    }
    default:
      return null;
  }
}
