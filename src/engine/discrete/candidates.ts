import { type JsonObject, type JsonValue, stableStringify } from "../../core/json.js";
import type { JsonSchema } from "../../core/jsonSchema.js";
import { argumentIssues } from "../../core/spaces/toolCall.js";
import type { Action } from "../actions.js";
import type { TaskParameter } from "../parameters.js";
import type { ObservableEpisode, SeenTool } from "./source.js";

/** Where an argument value came from: the task's parameters, or the response of call `call` (0-based). */
export type ValueSource = { kind: "task" } | { kind: "response"; call: number; field: string } | { kind: "schema" };

/** A value the agent holds: a task parameter or a response field, with its semantic type when documented. */
export interface HeldValue {
  name: string;
  type: string | null;
  value: JsonValue;
  source: ValueSource;
}

export type CandidateKind = "tool_call" | "answer" | "abort" | "family";

/** One concrete action of the discrete action list, with the provenance of each bound value (for features). */
export interface Candidate {
  kind: CandidateKind;
  action: Action;
  /**
   * The tool called (tool_call), the family action type, or an answer's format (`answer` and the index of the
   * declared answer parameter it fills): the features' id bits tell a report from a refusal.
   */
  name: string;
  sources: ValueSource[];
}

/** Limits of candidate generation (documented in docs/DISCRETE.md). */
export interface CandidateLimits {
  /** K: the size of the action list. */
  maxCandidates: number;
  /** Argument combinations kept per tool, so one many-parameter tool cannot crowd the others out. */
  perTool: number;
  /** Values kept per argument. */
  perArgument: number;
  /** Answer candidates kept (reports may combine several held values). */
  answers: number;
}

/** The response fields of a call worth binding: scalars, up to depth 3, the first 16 items of each array. */
function walk(v: JsonValue, path: string, key: string, out: { path: string; key: string; value: JsonValue }[], depth: number): void {
  if (v === null || depth > 3) return;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && i < 16; i++) walk(v[i], `${path}[]`, key, out, depth + 1);
    return;
  }
  if (typeof v === "object") {
    for (const k of Object.keys(v)) walk(v[k], path ? `${path}.${k}` : k, k, out, depth + 1);
    return;
  }
  if (path) out.push({ path, key, value: v });
}

const DEFAULT_ANSWER = "Done.";

/** Every value the agent holds, in a fixed order: task parameters first, then response fields in call order. */
export function heldValues(ep: ObservableEpisode): HeldValue[] {
  const out: HeldValue[] = [];
  for (const p of ep.parameters) {
    if (p.value !== undefined && (p.target === undefined || p.target !== "answer")) {
      out.push({ name: p.name, type: p.type ?? null, value: p.value, source: { kind: "task" } });
    }
  }
  for (const t of ep.tools) {
    const label = t.semantics?.label;
    if (label !== undefined) out.push({ name: "provider_label", type: "provider_label", value: label, source: { kind: "task" } });
  }
  ep.calls.forEach((c, i) => {
    if (!c.ok) return;
    const fields: { path: string; key: string; value: JsonValue }[] = [];
    walk(c.response, "", "", fields, 0);
    const outputs = ep.semanticsOf(c.tool)?.outputs;
    for (const f of fields) {
      out.push({ name: f.key, type: outputs?.[f.path] ?? null, value: f.value, source: { kind: "response", call: i, field: f.path } });
    }
  });
  return out;
}

const singleSchemas = new WeakMap<JsonSchema, JsonSchema>();
/**
 * Does `value` fit the parameter's schema? Scalars go through the engine's validator (types, patterns, formats,
 * ranges); a structure is only type-checked, because families with their own validation (ToolMisuseBench) accept
 * any object for a bare `{ type: "object" }`, which the engine's validator reads as an empty object.
 */
function fits(prop: JsonSchema, value: JsonValue): boolean {
  if (value !== null && typeof value === "object") {
    const t = prop.type;
    const want = Array.isArray(value) ? "array" : "object";
    return t === undefined || t === want || (Array.isArray(t) && t.includes(want));
  }
  let s = singleSchemas.get(prop);
  if (!s) singleSchemas.set(prop, (s = { type: "object", properties: { v: prop }, required: ["v"] }));
  return argumentIssues(s, { v: value }) === null;
}

/** Counts for a required integer the task and the responses say nothing about (a `top_k`, a `limit`). */
const FREE_INTEGERS = [1, 2, 3, 4, 5, 10];

function textOf(v: JsonValue): string {
  return typeof v === "string" ? v : stableStringify(v);
}

/**
 * Views a hole may take of a held value (`{start:time}`): a report states a clock time as people write it, while the
 * response holds an ISO date-time ("10:00", not "2026-06-19T10:00:00Z"). Undefined: the value has no such view.
 */
const VIEWS: Readonly<Record<string, (v: JsonValue) => JsonValue | undefined>> = {
  time: (v) => (typeof v === "string" ? /^\d{4}-\d\d-\d\dT(\d\d:\d\d)/.exec(v)?.[1] : undefined),
};

/**
 * Fillings of a template's `{type}` holes with held values: the most recent values first (a report states what was
 * read last), distinct values for a repeated hole ("I used {provider_label} because {provider_label} failed").
 */
function fillTemplate(template: string, held: readonly HeldValue[], cap: number): { text: string; sources: ValueSource[] }[] {
  const holes = [...template.matchAll(/\{([A-Za-z0-9_.-]+)(?::([a-z]+))?\}/g)].map((m) => ({
    hole: m[0],
    type: m[1],
    view: VIEWS[m[2] ?? ""],
  }));
  const recent = [...held].reverse();
  let acc: { text: string; sources: ValueSource[]; used: string[] }[] = [{ text: template, sources: [], used: [] }];
  for (const { hole, type, view } of holes) {
    const matching = recent.filter((h) => h.type === type || (h.type === null && h.name === type));
    const viewed = view ? matching.flatMap((h) => ((v) => (v === undefined ? [] : [{ ...h, value: v }]))(view(h.value))) : matching;
    const options = uniqueByValue(viewed);
    const next: typeof acc = [];
    for (const a of acc) {
      for (const o of options) {
        if (next.length >= cap) break;
        const key = `${hole}\u0000${valueKey(o.value)}`;
        if (a.used.includes(key)) continue;
        next.push({ text: a.text.replace(hole, textOf(o.value)), sources: [...a.sources, o.source], used: [...a.used, key] });
      }
    }
    acc = next;
  }
  return acc;
}

/** A value's identity as text: cheap for scalars (the common case), canonical JSON for structures. */
export function valueKey(v: JsonValue): string {
  if (v === null || typeof v !== "object") return `${typeof v}:${String(v)}`;
  return `j:${stableStringify(v)}`;
}

function uniqueByValue<T extends { value: JsonValue }>(values: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const v of values) {
    const k = valueKey(v.value);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

/** An untyped held value fits an argument of the same name, or of the name its `_id` field refines (`location_id`). */
function nameMatches(field: string, argument: string): boolean {
  return field === argument || field === `${argument}_id`;
}

/** The values that may fill argument `name` of `target` (a tool or family action), in a fixed order. */
type Option = { value: JsonValue; source: ValueSource };
const TASK: ValueSource = { kind: "task" };
const SCHEMA: ValueSource = { kind: "schema" };

/** A template's fillings as options (sourced by their first response value, if any). */
function templateOptions(template: string, held: readonly HeldValue[], cap: number): Option[] {
  return fillTemplate(template, held, cap).map((t) => ({ value: t.text, source: t.sources.find((s) => s.kind === "response") ?? TASK }));
}

/**
 * A response value of another service than the target's: tools that document a service label (`semantics.label`)
 * pass their own records' ids, which another service does not know (a counterpart's `ex_htl_71` on Airbnb).
 */
function fromOtherService(ep: ObservableEpisode, h: HeldValue, target: string): boolean {
  if (h.source.kind !== "response") return false;
  const mine = ep.semanticsOf(target)?.label;
  const theirs = ep.semanticsOf(ep.calls[h.source.call].tool)?.label;
  return mine !== undefined && theirs !== undefined && mine !== theirs;
}

/** A held task value that another tool's explicit parameter owns (it should not fill this one by name). */
function ownedElsewhere(ep: ObservableEpisode, h: HeldValue, target: string): boolean {
  if (h.source.kind !== "task") return false;
  return ep.parameters.some(
    (p) => p.value !== undefined && p.target !== undefined && p.target !== target && p.name === h.name && p.value === h.value,
  );
}

function argumentOptions(
  name: string,
  type: string | null,
  target: string,
  prop: JsonSchema | undefined,
  ep: ObservableEpisode,
  held: readonly HeldValue[],
  limit: number,
): Option[] {
  const options: Option[] = [];
  const explicit = (p: TaskParameter) => p.target === target && p.name === name;
  for (const p of ep.parameters) {
    if (!explicit(p)) continue;
    if (p.value !== undefined) options.push({ value: p.value, source: TASK });
    if (p.template !== undefined) options.push(...templateOptions(p.template, held, limit));
    if (p.value === undefined && p.template === undefined && p.type !== undefined) {
      for (const h of held) if (h.type === p.type) options.push({ value: h.value, source: h.source });
    }
  }
  for (const p of ep.parameters) {
    if (p.target !== undefined || p.template === undefined) continue;
    if ((type !== null && p.type === type) || p.name === name) options.push(...templateOptions(p.template, held, limit));
  }
  for (const h of held) {
    if (ownedElsewhere(ep, h, target) || fromOtherService(ep, h, target)) continue;
    const fitsName = type !== null ? h.type === type || (h.type === null && h.name === name) : nameMatches(h.name, name);
    if (fitsName) options.push({ value: h.value, source: h.source });
  }
  // An undocumented free-text argument nothing else fills (a search `query`) takes the task's own terms.
  if (type === null && prop?.type === "string" && !prop.enum && options.length === 0) {
    for (const p of ep.parameters) {
      if (p.target === undefined && typeof p.value === "string") options.push({ value: p.value, source: TASK });
    }
  }
  // The schema's own choices only when nothing held fits: a task that names a value should not list every other one.
  if (prop?.enum && options.length === 0) for (const v of prop.enum) options.push({ value: v, source: SCHEMA });
  if (prop?.type === "boolean" && options.length === 0) options.push({ value: false, source: SCHEMA }, { value: true, source: SCHEMA });
  // A count the task leaves open (a search's `top_k`) is a choice among a few small values, after any held one; a
  // count the request states as a whole (buy 12 shares) is not open, and listing 1–10 beside it only crowds other
  // tools out at K. A count stated for one tool may be for one of its calls only ("a top 1 search" after a search).
  const named = ep.parameters.some((p) => p.target === undefined && p.name === name && typeof p.value === "number");
  if (prop?.type === "integer" && prop.enum === undefined && !named)
    for (const v of FREE_INTEGERS) options.push({ value: v, source: SCHEMA });
  const unique = uniqueByValue(options);
  const fitting = prop ? unique.filter((o) => fits(prop, o.value)) : unique;
  return fitting.slice(0, limit);
}

/**
 * Argument combinations, the ones made of each argument's earliest values first (ordered by the sum of the values'
 * positions, then lexicographically), so the cap drops combinations of late, schema-derived choices first.
 */
function product(lists: { name: string; options: Option[] }[], cap: number): { args: JsonObject; sources: ValueSource[] }[] {
  const lens = lists.map((l) => l.options.length);
  if (lens.some((n) => n === 0)) return [];
  const combos: number[][] = [];
  const maxRank = lens.reduce((a, n) => a + n - 1, 0);
  // Rank by rank, each rank in lexicographic order: only the combinations kept are ever built.
  const fill = (k: number, left: number, prefix: number[]): void => {
    if (combos.length >= cap) return;
    if (k === lens.length) {
      if (left === 0) combos.push(prefix.slice());
      return;
    }
    for (let i = 0; i < lens[k] && i <= left; i++) {
      prefix.push(i);
      fill(k + 1, left - i, prefix);
      prefix.pop();
    }
  };
  for (let r = 0; r <= maxRank && combos.length < cap; r++) fill(0, r, []);
  return combos.map((c) => {
    const args: JsonObject = {};
    const sources: ValueSource[] = [];
    c.forEach((i, k) => {
      args[lists[k].name] = lists[k].options[i].value;
      sources.push(lists[k].options[i].source);
    });
    return { args, sources };
  });
}

/** Tool calls with every required argument (and every optional one the task names) bound. */
function toolCalls(tool: SeenTool, ep: ObservableEpisode, held: readonly HeldValue[], limits: CandidateLimits): Candidate[] {
  const props = tool.parameters.properties ?? {};
  const required = tool.parameters.required ?? [];
  // Optional parameters are bound when the task names them (for this tool, or for any tool), as a request that
  // states "7 days" fixes the optional `days` of whichever forecast tool serves it.
  const named = ep.parameters
    .filter((p) => p.target === tool.name || p.target === undefined)
    .filter((p) => p.value !== undefined && !required.includes(p.name) && p.name in props)
    .map((p) => p.name);
  const names = [...required, ...[...new Set(named)].sort()];
  const lists = names.map((name) => ({
    name,
    options: argumentOptions(name, tool.semantics?.parameters?.[name] ?? null, tool.name, props[name], ep, held, limits.perArgument),
  }));
  if (lists.some((l) => l.options.length === 0 && required.includes(l.name))) return [];
  const out: Candidate[] = [];
  // Each value fits its parameter and only schema properties are bound, so the call is well-formed as a whole.
  for (const c of product(
    lists.filter((l) => l.options.length > 0),
    limits.perTool,
  )) {
    out.push({ kind: "tool_call", action: { type: "tool_call", name: tool.name, arguments: c.args }, name: tool.name, sources: c.sources });
  }
  return out;
}

function answers(ep: ObservableEpisode, held: readonly HeldValue[], limits: CandidateLimits): Candidate[] {
  const declared = ep.parameters.filter((p) => p.target === "answer");
  if (declared.length === 0) return [{ kind: "answer", action: { type: "answer", content: DEFAULT_ANSWER }, name: "answer", sources: [] }];
  // One list per declared answer, interleaved, so the cap keeps every format's best fillings.
  // Each option carries its format's index, so formats keep distinct ids after the interleaving.
  const lists: (Option & { format: number })[][] = declared.map((p, format) => {
    const list: Option[] = [];
    if (p.value !== undefined) list.push({ value: textOf(p.value), source: TASK });
    if (p.template !== undefined) list.push(...templateOptions(p.template, held, limits.perTool));
    if (p.value === undefined && p.template === undefined) {
      const fitting = held.filter((h) => (p.type !== undefined ? h.type === p.type : h.name === p.name));
      for (const h of fitting) list.push({ value: textOf(h.value), source: h.source });
    }
    return list.map((o) => ({ ...o, format }));
  });
  const out: (Option & { format: number })[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return uniqueByValue(out)
    .slice(0, limits.answers)
    .map((o) => ({
      kind: "answer",
      action: { type: "answer", content: o.value as string },
      name: declared.length > 1 ? `answer:${o.format}` : "answer",
      sources: [o.source],
    }));
}

function familyActions(ep: ObservableEpisode, held: readonly HeldValue[], limits: CandidateLimits, free: number): Candidate[] {
  const out: Candidate[] = [];
  for (const [type, kind] of Object.entries(ep.familyKinds)) {
    if (kind.candidates) {
      // Generated requests take the slots the other candidates leave, so they never crowd out a call or an answer.
      for (const action of kind.candidates(ep, Math.max(limits.maxCandidates >> 2, free - out.length))) {
        if (kind.schema.safeParse(action).success) out.push({ kind: "family", action, name: type, sources: [] });
      }
      continue;
    }
    const fields = [...new Set(ep.parameters.filter((p) => p.target === type).map((p) => p.name))];
    const lists = fields.map((name) => ({ name, options: argumentOptions(name, null, type, undefined, ep, held, limits.perArgument) }));
    for (const c of product(lists, limits.perTool)) {
      const action = { type, ...c.args } as Action;
      if (kind.schema.safeParse(action).success) out.push({ kind: "family", action, name: type, sources: c.sources });
    }
  }
  return out;
}

/**
 * The step's candidate list, in a fixed order: abort, answers, family actions, then tool calls (visible tools in
 * their visible order, argument combinations in held-value order), without duplicates, cut at K. A pure function
 * of the observable episode.
 */
export function candidates(ep: ObservableEpisode, limits: CandidateLimits): Candidate[] {
  const held = heldValues(ep);
  const all: Candidate[] = [{ kind: "abort", action: { type: "abort" }, name: "abort", sources: [] }];
  const said = answers(ep, held, limits);
  const calls: Candidate[] = [];
  for (const t of ep.tools) {
    if (calls.length >= limits.maxCandidates) break;
    calls.push(...toolCalls(t, ep, held, limits));
  }
  all.push(...said, ...familyActions(ep, held, limits, limits.maxCandidates - 1 - said.length - calls.length), ...calls);
  // Kinds never collide and each argument's values are unique, so only messages can repeat (two templates giving
  // one text): compare those.
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of all) {
    if (c.kind === "answer" || c.kind === "family") {
      const key = stableStringify(c.action as unknown as JsonValue);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(c);
    if (out.length >= limits.maxCandidates) break;
  }
  return out;
}
