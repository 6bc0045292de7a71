import type { JsonObject, JsonValue, ToolSemantics } from "../../../src/family.js";

/**
 * Shared building blocks of the 30 simulated services: the per-episode state shape, tool result helpers and a
 * compact way to write OpenAI-style parameter schemas. Everything here is plain data so an episode's state can be
 * cloned, hashed and replayed.
 */

export type DomainId = "information" | "communication" | "finance" | "commerce" | "travel";
export const DOMAINS: readonly DomainId[] = ["information", "communication", "finance", "commerce", "travel"];

export type CategoryId =
  | "weather"
  | "reviews"
  | "email"
  | "calendar"
  | "messaging"
  | "payments"
  | "brokerage"
  | "food_delivery"
  | "grocery"
  | "shopping"
  | "lodging"
  | "rides";

/** One provider's in-memory backend: named tables of records plus an id counter. */
export interface ProviderState {
  tables: Record<string, JsonObject[]>;
  seq: number;
  [extra: string]: JsonValue;
}

/** The whole episode world: a fixed "now" (never the wall clock) and one backend per provider in the scenario. */
export interface FtState {
  now: string;
  services: Record<string, ProviderState>;
  [extra: string]: JsonValue;
}

export interface ToolErrorPayload {
  code: string;
  message: string;
  status?: number;
  details?: JsonObject;
}
export type ToolResult = { ok: true; output: JsonValue } | { ok: false; error: ToolErrorPayload };

/** Hidden metadata: lets scorers, faults and heuristic baselines reason about a tool without parsing its name. */
export interface FtToolMeta {
  provider: string;
  category: CategoryId;
  domain: DomainId;
  /** Provider-independent operation name, e.g. `send_money`; counterpart providers share it. */
  op: string;
  mutates: boolean;
  /** Ops whose effect this read-only op can confirm (read-back verification). */
  verifies?: string[];
  group: string;
  [extra: string]: JsonValue | undefined;
}

export interface FtToolContext {
  state: FtState;
}

export interface FtTool {
  name: string;
  description: string;
  parameters: JsonObject;
  semantics?: ToolSemantics;
  meta: FtToolMeta;
  run(args: JsonObject, ctx: FtToolContext): ToolResult;
}

export const ok = (output: JsonValue): ToolResult => ({ ok: true, output });
export const fail = (status: number, code: string, message: string, details?: JsonObject): ToolResult => ({
  ok: false,
  error: details ? { code, message, status, details } : { code, message, status },
});

type Prop = JsonObject;
export const str = (description: string, extra: JsonObject = {}): Prop => ({ type: "string", description, ...extra });
export const num = (description: string, extra: JsonObject = {}): Prop => ({ type: "number", description, ...extra });
export const int = (description: string, extra: JsonObject = {}): Prop => ({ type: "integer", description, ...extra });
export const bool = (description: string): Prop => ({ type: "boolean", description });
export const enm = (description: string, values: string[]): Prop => ({ type: "string", description, enum: values });
export const arr = (description: string, items: JsonObject, extra: JsonObject = {}): Prop => ({
  type: "array",
  description,
  items,
  ...extra,
});
/** An object schema; keys listed in `required` must be present, unknown keys are rejected. */
export function obj(properties: Record<string, Prop>, required: string[] = []): JsonObject {
  return { type: "object", properties, required, additionalProperties: false };
}

/** Normalised lookup key: case-, accent- and punctuation-insensitive so "joe's pizza" finds "Joe's Pizza". */
export function norm(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9@.+]+/g, " ")
    .trim();
}

/** Pure date arithmetic on ISO strings (UTC). */
export function addDays(iso: string, days: number): string {
  const d = new Date(iso);
  d.setUTCDate(d.getUTCDate() + days);
  return iso.length === 10 ? d.toISOString().slice(0, 10) : d.toISOString().replace(".000Z", "Z");
}
export function addMinutes(iso: string, minutes: number): string {
  const d = new Date(Date.parse(iso) + minutes * 60_000);
  return d.toISOString().replace(".000Z", "Z");
}
export const dateOf = (iso: string): string => iso.slice(0, 10);
export const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Per-provider record ids: `<prefix>_<kind>_<n>` from the provider's own counter, so ids are replayable. */
export function nextId(st: ProviderState, prefix: string, kind: string): string {
  st.seq += 1;
  return `${prefix}_${kind}_${String(1000 + st.seq)}`;
}

export function table(st: ProviderState, name: string): JsonObject[] {
  const t = st.tables[name];
  if (!t) {
    st.tables[name] = [];
    return st.tables[name];
  }
  return t;
}

/** Finds records whose `fields` contain the normalised query; an exact id match always wins. */
export function lookup(rows: JsonObject[], query: string, idField: string, fields: string[]): JsonObject[] {
  const byId = rows.filter((r) => r[idField] === query);
  if (byId.length > 0) return byId;
  const q = norm(query);
  if (q === "") return [];
  const exact = rows.filter((r) => fields.some((f) => typeof r[f] === "string" && norm(r[f] as string) === q));
  if (exact.length > 0) return exact;
  return rows.filter((r) => fields.some((f) => typeof r[f] === "string" && norm(r[f] as string).includes(q)));
}

/**
 * Resolves a natural key (name, email, city...) to exactly one record, or explains why not: 404 when nothing
 * matches, 409 with the candidates when several do (the agent must then pass an id).
 */
export function resolveOne(
  rows: JsonObject[],
  query: string,
  idField: string,
  fields: string[],
  what: string,
  describe: (r: JsonObject) => JsonObject,
): { ok: true; row: JsonObject } | { ok: false; result: ToolResult } {
  const hits = lookup(rows, query, idField, fields);
  if (hits.length === 1) return { ok: true, row: hits[0] };
  if (hits.length === 0) return { ok: false, result: fail(404, `${what.toUpperCase()}_NOT_FOUND`, `No ${what} matches "${query}".`) };
  return {
    ok: false,
    result: fail(409, "AMBIGUOUS_MATCH", `"${query}" matches ${hits.length} ${what}s; pass the ${idField} of the one you mean.`, {
      candidates: hits.map(describe),
    }),
  };
}

export function pick(r: JsonObject, keys: string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) if (r[k] !== undefined) out[k] = r[k];
  return out;
}

export const asStr = (v: JsonValue | undefined, dflt = ""): string => (typeof v === "string" ? v : dflt);
export const asNum = (v: JsonValue | undefined, dflt = 0): number => (typeof v === "number" ? v : dflt);
