import type { JsonObject } from "../core/json.js";
import type { JsonSchema } from "../core/jsonSchema.js";
import { argumentIssues, argumentsSurelyValid } from "../core/spaces/toolCall.js";

/** Distinct malformed argument texts remembered per tool schema (the memo is cleared when full). */
const MAX_VERDICTS_PER_SCHEMA = 256;
const verdicts = new WeakMap<JsonSchema, Map<string, string | null>>();

/**
 * Why a call's arguments do not fit its tool's parameters, as the message the agent reads, or null when they fit.
 * Valid calls pass the compiled fast check; the verdict on the rest is zod's (`argumentIssues`), remembered per
 * schema under the arguments' JSON text: agents repeat malformed calls (a random policy draws from a small
 * vocabulary), and building zod's issues costs far more than the rest of a call. The text identifies the verdict:
 * arguments are plain JSON, and the one value JSON merges (-0 with 0) compares and types the same in every check.
 */
export function argumentError(schema: JsonSchema, args: JsonObject): string | null {
  if (argumentsSurelyValid(schema, args)) return null;
  let bySchema = verdicts.get(schema);
  if (!bySchema) verdicts.set(schema, (bySchema = new Map()));
  const key = JSON.stringify(args);
  const known = bySchema.get(key);
  if (known !== undefined) return known;
  const issues = argumentIssues(schema, args);
  const message = issues ? issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ") : null;
  if (bySchema.size >= MAX_VERDICTS_PER_SCHEMA) bySchema.clear();
  bySchema.set(key, message);
  return message;
}
