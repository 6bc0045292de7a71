import { z } from "zod";
import { jsonEquals, type JsonObject, type JsonValue } from "../../../src/family.js";

/**
 * Argument requirements of a required call: which values a qualifying call must pass. Matching is deterministic:
 * - `exact`: JSON deep equality (booleans, ids);
 * - `text`: strings equal after normalisation (case, accents, punctuation and spacing folded: "Joe's  Pizza" =
 *   "joe's pizza"; `@`, `.`, `+` are kept so e-mail addresses stay distinct);
 * - `number`: |actual − value| ≤ tolerance;
 * - `anyOf`: one of the options (a record named by its display name, its id on either provider, or its e-mail);
 * - `list`: an array of the same length whose items match in order;
 * - `object`: an object whose listed fields match (other fields are left to the tool's schema).
 * A missing argument never matches.
 */
export type ArgMatcher =
  | { kind: "exact"; value: JsonValue }
  | { kind: "text"; value: string }
  | { kind: "number"; value: number; tolerance: number }
  | { kind: "anyOf"; options: ArgMatcher[] }
  | { kind: "list"; items: ArgMatcher[] }
  | { kind: "object"; fields: Record<string, ArgMatcher> };

const json = z.json() as z.ZodType<JsonValue>;

export const argMatcherSchema: z.ZodType<ArgMatcher> = z.lazy(() =>
  z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("exact"), value: json }).strict(),
    z.object({ kind: z.literal("text"), value: z.string() }).strict(),
    z.object({ kind: z.literal("number"), value: z.number(), tolerance: z.number().min(0) }).strict(),
    z.object({ kind: z.literal("anyOf"), options: z.array(argMatcherSchema).min(1) }).strict(),
    z.object({ kind: z.literal("list"), items: z.array(argMatcherSchema) }).strict(),
    z.object({ kind: z.literal("object"), fields: z.record(z.string(), argMatcherSchema) }).strict(),
  ]),
) as z.ZodType<ArgMatcher>;

/** The normal form `text` matchers compare. */
export function normArg(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^a-z0-9@.+]+/g, " ")
    .replace(/\.(\s|$)/g, "$1")
    .trim();
}

export function argMatches(m: ArgMatcher, v: JsonValue | undefined): boolean {
  if (v === undefined) return false;
  switch (m.kind) {
    case "exact":
      return jsonEquals(v, m.value);
    case "text":
      return typeof v === "string" && normArg(v) === normArg(m.value);
    case "number":
      return typeof v === "number" && Math.abs(v - m.value) <= m.tolerance + 1e-9;
    case "anyOf":
      return m.options.some((o) => argMatches(o, v));
    case "list":
      return Array.isArray(v) && v.length === m.items.length && m.items.every((it, i) => argMatches(it, v[i]));
    case "object":
      return (
        !!v && typeof v === "object" && !Array.isArray(v) && Object.entries(m.fields).every(([k, f]) => argMatches(f, (v as JsonObject)[k]))
      );
  }
}

/** Whether a call's arguments satisfy every argument requirement. */
export function argsSatisfy(req: Readonly<Record<string, ArgMatcher>> | undefined, args: JsonObject): boolean {
  return !req || Object.entries(req).every(([k, m]) => argMatches(m, args[k]));
}

/** The matcher for a literal value of the request: strings normalised, numbers within `tolerance`. */
export function matcherFor(v: JsonValue, tolerance = 0.005): ArgMatcher {
  if (typeof v === "string") return { kind: "text", value: v };
  if (typeof v === "number") return { kind: "number", value: v, tolerance };
  if (Array.isArray(v)) return { kind: "list", items: v.map((x) => matcherFor(x, tolerance)) };
  if (v && typeof v === "object")
    return { kind: "object", fields: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, matcherFor(x, tolerance)])) };
  return { kind: "exact", value: v };
}
