/**
 * The three tool-argument validators compared by `npm run bench -- validation`, each given the engine's semantics:
 * objects are closed unless the schema opens them, `integer` means a safe integer, `pattern` is a plain JS RegExp,
 * and the formats are src/core/jsonSchema.ts's FORMAT_CHECKS.
 */
import { Ajv } from "ajv";
import { z } from "zod";
import { FORMAT_CHECKS } from "../../src/core/jsonSchema.js";
import { argumentIssues, type JsonSchema } from "../../src/index.js";

export type Verdict = (parameters: JsonSchema, args: unknown) => boolean;

/** Today's path (src/core/fastSchema.ts, then zod from src/core/jsonSchema.ts when the predicate does not accept). */
export const today: Verdict = (parameters, args) => argumentIssues(parameters, args) === null;

/** The schema the engine validates against, with its implicit rules written out as JSON Schema. */
export function explicitSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, s]) => [k, explicitSchema(s)]));
  if (out.items) out.items = explicitSchema(out.items);
  if (typeof out.additionalProperties === "object") out.additionalProperties = explicitSchema(out.additionalProperties);
  for (const key of ["anyOf", "oneOf"] as const) if (out[key]) out[key] = out[key].map(explicitSchema);
  const types = Array.isArray(out.type) ? out.type : out.type ? [out.type] : [];
  if (types.includes("object") && out.additionalProperties === undefined) out.additionalProperties = false;
  if (out.format && !(out.format in FORMAT_CHECKS)) delete out.format;
  return out;
}

function cached(build: (schema: JsonSchema) => (args: unknown) => boolean): Verdict {
  const memo = new WeakMap<JsonSchema, (args: unknown) => boolean>();
  return (parameters, args) => {
    let check = memo.get(parameters);
    if (!check) memo.set(parameters, (check = build(explicitSchema({ type: "object", ...parameters }))));
    return check(args);
  };
}

/** An ajv instance with the engine's formats and zod's safe-integer rule. */
export function engineAjv(): Ajv {
  const ajv = new Ajv({ strict: false, unicodeRegExp: false, allErrors: false });
  for (const [name, re] of Object.entries(FORMAT_CHECKS)) ajv.addFormat(name, re);
  const safeInteger = (on: boolean, v: unknown) => !on || typeof v !== "number" || Number.isSafeInteger(v);
  ajv.addKeyword({ keyword: "safeInteger", validate: safeInteger });
  return ajv;
}
const ajv = engineAjv();

/** `integer` -> also a safe integer (zod's `.int()`), as an extra keyword ajv runs. */
export function withSafeIntegers(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, s]) => [k, withSafeIntegers(s)]));
  if (out.items) out.items = withSafeIntegers(out.items);
  for (const key of ["anyOf", "oneOf"] as const) if (out[key]) out[key] = out[key].map(withSafeIntegers);
  const types = Array.isArray(out.type) ? out.type : out.type ? [out.type] : [];
  if (types.includes("integer")) out.safeInteger = true;
  return out;
}

/** ajv, compiled once per schema. */
export const ajvVerdict: Verdict = cached((schema) => {
  const validate = ajv.compile(withSafeIntegers(schema));
  return (args) => validate(args) === true;
});

/** zod's own JSON Schema import (`z.fromJSONSchema`), built once per schema. */
export const zodImport: Verdict = cached((schema) => {
  const validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  return (args) => validator.safeParse(args).success;
});
