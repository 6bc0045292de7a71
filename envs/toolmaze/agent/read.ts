/**
 * What an observation-only agent can read from a ToolMaze observation: the request text and the visible tool
 * schemas (names, descriptions with documented field types, typed parameters). Nothing here touches the task plan
 * or `info.hidden`; the only outside knowledge is world vocabulary (city names, tickers, people, products…), the
 * kind of common knowledge a language model brings, used to recognise quoted values in the request.
 */
import type { ToolSchema } from "../../../src/family.js";
import { FIELD_TYPES, type Scalar } from "../world/types.js";

export interface SeenParam {
  readonly name: string;
  readonly type: string;
}
export interface SeenOutput {
  readonly field: string;
  readonly type: string;
}

/** Tools with the same documented signature (summary, typed parameters, typed response) are alternatives. */
export interface SeenGroup {
  readonly key: string;
  /** Stems of parameter names and types: what a reference such as "that set-point" can point into. */
  readonly paramTokens: ReadonlySet<string>;
  readonly members: readonly string[];
  readonly summary: string;
  readonly params: readonly SeenParam[];
  readonly outputs: readonly SeenOutput[];
  readonly tokens: ReadonlySet<string>;
}

/** A value quoted in one request, with its position in the request text and the word before it. */
export interface Mention {
  readonly value: Scalar;
  readonly at: number;
  readonly before: string;
}

/** "origin (iata code)" / "temperature c (temperature c: Degrees Celsius)" -> the documented type id. */
function typeFromDescription(description: string): string {
  const m = /\(([a-z0-9 ]+?)(?::[^)]*)?\)$/.exec(description.trim());
  return m ? m[1]!.replace(/ /g, "_") : "unknown";
}

function outputsFromDescription(description: string): SeenOutput[] {
  const m = /Returns: (.*)\.$/.exec(description);
  if (!m) return [];
  return [...m[1]!.matchAll(/(\w+) \(([a-z0-9 ]+)\)/g)].map((x) => ({ field: x[1]!, type: x[2]!.replace(/ /g, "_") }));
}

const STOP = new Set([
  "the",
  "a",
  "an",
  "of",
  "to",
  "for",
  "in",
  "on",
  "at",
  "from",
  "and",
  "then",
  "with",
  "by",
  "as",
  "that",
  "those",
  "this",
  "it",
  "its",
  "their",
  "me",
  "my",
  "you",
  "please",
  "could",
  "can",
  "i",
  "need",
  "go",
  "ahead",
  "like",
  "d",
  "first",
  "finally",
  "after",
  "be",
  "is",
  "are",
  "or",
  "into",
  "about",
  "return",
  "returns",
  "backed",
  "api",
  "service",
  "in-house",
  "up",
  "get",
  "look",
  "work",
  "out",
]);

function stem(w: string): string {
  for (const suf of ["ion", "ing", "er", "ed", "es", "s", "e"]) {
    if (w.length - suf.length >= 3 && w.endsWith(suf)) {
      const base = w.slice(0, -suf.length);
      // "setting" -> "set", "logging" -> "log" (but "calling" stays "call").
      return (suf === "ing" || suf === "ed" || suf === "er") && /([bdgmnprt])\1$/.test(base) ? base.slice(0, -1) : base;
    }
  }
  return w;
}

/** Content-word stems of a text (lower-case, "e-mail" = "email"). */
export function tokens(text: string): Set<string> {
  const out = new Set<string>();
  const lower = text.toLowerCase().replace(/e-mail/g, "email");
  // Hyphenated words count both joined and split ("set-point" = "setpoint").
  const words = [...lower.split(/[^a-z0-9]+/), ...[...lower.matchAll(/[a-z]+(?:-[a-z]+)+/g)].map((m) => m[0].replace(/-/g, ""))];
  for (const w of words) {
    if (w.length < 2 || STOP.has(w) || /^\d+$/.test(w)) continue;
    out.add(stem(w));
  }
  return out;
}

/** Groups of visible tools, in the order their first member was listed. */
export function readTools(schemas: readonly ToolSchema[]): SeenGroup[] {
  const groups = new Map<string, { members: string[]; summary: string; params: SeenParam[]; outputs: SeenOutput[]; text: string[] }>();
  for (const s of schemas) {
    const props = (s.parameters as { properties?: Record<string, { description?: string }> }).properties ?? {};
    const params = Object.entries(props).map(([name, p]) => ({ name, type: typeFromDescription(p.description ?? "") }));
    const outputs = outputsFromDescription(s.description);
    const summary = s.description.split(". ")[0]!.replace(/\.$/, "");
    const key = JSON.stringify([summary, params, outputs]);
    const g = groups.get(key) ?? { members: [], summary, params, outputs, text: [] };
    g.members.push(s.name);
    g.text.push(s.name.replace(/_/g, " "));
    groups.set(key, g);
  }
  return [...groups.entries()].map(([key, g]) => ({
    key,
    paramTokens: tokens(g.params.map((p) => `${p.name} ${p.type}`.replace(/_/g, " ")).join(" ")),
    members: g.members,
    summary: g.summary,
    params: g.params,
    outputs: g.outputs,
    tokens: tokens([g.summary, ...g.text, ...g.params.map((p) => `${p.name.replace(/_/g, " ")} ${p.type.replace(/_/g, " ")}`)].join(" ")),
  }));
}

/** The request without the date header and the failure-aware hint; split into independent requests when numbered. */
export function splitRequests(prompt: string): string[] {
  const body = prompt
    .split("\n")
    .filter((l) => !/^Current date and time:/.test(l) && !/^Note: tools may fail/.test(l))
    .join(" ")
    .trim();
  const parts = body.split(/\(\d+\)\s*/);
  return parts.length > 1 ? parts.slice(1).map((p) => p.trim()) : [body];
}

/** Clauses of one request, split on sequencing connectors ("then", "after that", "and finally", commas). */
export function splitClauses(request: string): string[] {
  // Quoted messages may contain commas; protect them before splitting.
  const quoted: string[] = [];
  const masked = request.replace(/"[^"]*"/g, (q) => {
    quoted.push(q);
    return `\u0000${quoted.length - 1}\u0000`;
  });
  return (
    masked
      .split(/,? and finally |; after that, |; once that's done, |;? then |, then |,? and then |, |; /)
      // "start by finding X" / "first find X": the lead-in is not part of the step.
      .map((c) => c.replace(/^(?:start by|first) /i, ""))
      // A step ends with its sentence; what follows ("Thanks!", "Let me know once it's done.") is not a step.
      .map((c) => c.split(/(?<=[.!?])\s+(?=[A-Z])/)[0]!.replace(/[.!?]$/, ""))
      .map((c) => c.replace(/\u0000(\d+)\u0000/g, (_, i: string) => quoted[Number(i)]!).trim())
      .filter((c) => c.length > 0)
  );
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Occurrences of known values of a semantic type in a request, in text order (distinct values). */
export function mentions(request: string, type: string): Mention[] {
  const vocab = FIELD_TYPES.get(type)?.literals;
  if (!vocab) return [];
  const found: Mention[] = [];
  for (const v of vocab) {
    const text = String(v);
    const re =
      typeof v === "number"
        ? // A bare number, or an "N-minute" duration; never digits inside dates, ids, phones or decimals.
          new RegExp(`(?<![\\w.+/@:-])${escape(text)}(?=-minute|(?![\\w@/]|[.-]\\d))`, "g")
        : new RegExp(`(?<![\\w@.+#-])${escape(text)}(?![\\w@-]|\\.\\w)`, "g");
    for (const m of request.matchAll(re)) {
      if (type === "duration_min" && !request.startsWith("-minute", m.index + text.length)) continue;
      if (type !== "duration_min" && typeof v === "number" && request.startsWith("-minute", m.index + text.length)) continue;
      const before = request.slice(0, m.index).trim().split(/\s+/).pop() ?? "";
      found.push({ value: v, at: m.index, before: before.toLowerCase() });
      break;
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

const VALUE_TYPES = [...FIELD_TYPES.values()].filter((t) => t.literals).map((t) => t.id);

/**
 * How well a clause describes each group: idf-weighted word overlap with the documentation, plus agreement
 * between the values quoted in the clause and the group's parameter types.
 */
export function matchScores(clause: string, groups: readonly SeenGroup[]): number[] {
  // "that set-point", "the link": references to earlier results name an input of the tool, not what it does.
  const refs = new Set<string>();
  for (const m of clause.matchAll(/\b(?:that|those|their|the)\s+([\w-]+(?:\s+[\w-]+)?)/gi)) for (const t of tokens(m[1]!)) refs.add(t);
  // Quoted messages are payload, not a description of the step.
  const ct = tokens(clause.replace(/"[^"]*"/g, " "));
  const df = new Map<string, number>();
  for (const g of groups) for (const t of g.tokens) df.set(t, (df.get(t) ?? 0) + 1);
  const quoted = VALUE_TYPES.filter((ty) => mentions(clause, ty).length > 0);
  return groups.map((g) => {
    let s = 0;
    let norm = 0;
    for (const t of g.tokens) norm += Math.log(1 + groups.length / df.get(t)!);
    for (const t of ct) if (g.tokens.has(t)) s += Math.log(1 + groups.length / df.get(t)!);
    // Cosine-like: a tool whose documentation is mostly about something the clause never says ranks lower.
    s = (4 * s) / Math.sqrt(Math.max(norm, 1));
    for (const ty of quoted) s += g.params.some((p) => p.type === ty) ? 2 : -1;
    for (const t of refs) if (g.paramTokens.has(t)) s += 1;
    return s;
  });
}

/** An error response, read from whichever convention the tool answers in. */
export interface SeenError {
  readonly status: number | null;
  readonly message: string;
}

/** Canonical error code names and their HTTP status (gRPC/Google names, as `errors[].code` spells them in lower case). */
const CODE_STATUS: Readonly<Record<string, number>> = {
  invalid_argument: 400,
  invalid_arguments: 400,
  not_found: 404,
  conflict: 409,
  request_timeout: 408,
  resource_exhausted: 429,
  internal: 500,
  unavailable: 503,
  deadline_exceeded: 504,
};

const asNumber = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const asObject = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * Reads an error body in any of the conventions real APIs use: Google-style `{error:{code,status,message}}` (also
 * the engine's own `{error:{code,message,status}}`), RFC 7807 problem+json `{type,title,status,detail}`,
 * `{errors:[{code,message}]}` and SOAP-like `{fault:{faultstring,detail:{http_status}}}`. Null for a normal output.
 */
export function readError(response: unknown): SeenError | null {
  if (response === null || response === undefined) return { status: null, message: "empty response" };
  const o = asObject(response);
  if (!o) return null;
  const google = asObject(o.error);
  if (google) return { status: asNumber(google.code) ?? asNumber(google.status), message: String(google.message ?? "") };
  if (Array.isArray(o.errors) && o.errors.length > 0) {
    const e = asObject(o.errors[0]) ?? {};
    return { status: asNumber(e.status) ?? CODE_STATUS[String(e.code ?? "").toLowerCase()] ?? null, message: String(e.message ?? "") };
  }
  const fault = asObject(o.fault);
  if (fault) return { status: asNumber(asObject(fault.detail)?.http_status), message: String(fault.faultstring ?? "") };
  const status = asNumber(o.status);
  if (status !== null && status >= 400 && ("title" in o || "detail" in o)) return { status, message: String(o.detail ?? o.title ?? "") };
  return null;
}
