import { type JsonObject, type JsonValue, stableStringify } from "../../core/json.js";
import type { JsonSchema } from "../../core/jsonSchema.js";
import { argumentIssues } from "../../core/spaces/toolCall.js";
import type { Action } from "../actions.js";
import type { TaskParameter } from "../parameters.js";
import { type AddedValues, type HeldValue, HeldMemo, heldValues, type ValueSource, valueKey } from "./held.js";
import type { ObservableEpisode, SeenTool } from "./source.js";

export { type HeldValue, heldValues, type ValueSource, valueKey } from "./held.js";

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

const DEFAULT_ANSWER = "Done.";

/**
 * What one env's discrete mode remembers from step to step (an optional argument of `candidates`: results are the
 * same with or without it): the held values (read once per call), and each tool's calls, rebuilt only when a new
 * held value could fill one of its arguments.
 */
export class CandidateMemo {
  readonly held = new HeldMemo();
  readonly tools = new Map<SeenTool, ToolEntry>();
  private epoch = -1;
  private limits: CandidateLimits | null = null;

  /** The held values of `ep`; forgets the tools' calls when the episode or the limits changed. */
  sync(ep: ObservableEpisode, limits: CandidateLimits): HeldValue[] {
    const held = this.held.sync(ep);
    if (this.held.epoch !== this.epoch || limits !== this.limits) {
      this.epoch = this.held.epoch;
      this.limits = limits;
      this.tools.clear();
    }
    return held;
  }
}

/** A tool's calls as last built in this episode, and the held values they were built from (the first `heldLength`). */
interface ToolEntry {
  heldLength: number;
  args: ArgumentSpec[];
  /** Per argument, the types of the task parameters that declare it by type only. */
  declared: Set<string>[];
  /** A template fills one of the arguments: every new held value may change the calls. */
  templated: boolean;
  list: Candidate[];
}

const singleSchemas = new WeakMap<JsonSchema, JsonSchema>();
const scalarVerdicts = new WeakMap<JsonSchema, Map<string, boolean>>();
/**
 * Does `value` fit the parameter's schema? Scalars go through the engine's validator (types, patterns, formats,
 * ranges); a structure is only type-checked, because families with their own validation (ToolMisuseBench) accept
 * any object for a bare `{ type: "object" }`, which the engine's validator reads as an empty object.
 */
function fits(prop: JsonSchema, value: JsonValue, key = valueKey(value)): boolean {
  if (value !== null && typeof value === "object") {
    const t = prop.type;
    const want = Array.isArray(value) ? "array" : "object";
    return t === undefined || t === want || (Array.isArray(t) && t.includes(want));
  }
  // A scalar's verdict depends only on the schema and the value (its key names both type and text): ask once.
  let verdicts = scalarVerdicts.get(prop);
  if (!verdicts) scalarVerdicts.set(prop, (verdicts = new Map()));
  let ok = verdicts.get(key);
  if (ok === undefined) {
    let s = singleSchemas.get(prop);
    if (!s) singleSchemas.set(prop, (s = { type: "object", properties: { v: prop }, required: ["v"] }));
    verdicts.set(key, (ok = argumentIssues(s, { v: value }) === null));
  }
  return ok;
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

/** One argument to fill: its name, documented semantic type, owner (a tool or family action type) and schema. */
interface ArgumentSpec {
  name: string;
  type: string | null;
  target: string;
  prop: JsonSchema | undefined;
}

/** Does held value `h` fill `arg` by its semantic type (or, untyped, by its name)? */
function fillsByName(arg: ArgumentSpec, h: HeldValue): boolean {
  return arg.type !== null ? h.type === arg.type || (h.type === null && h.name === arg.name) : nameMatches(h.name, arg.name);
}

/** A task parameter declared for `arg` that names only the semantic type of the held values it takes. */
function declaresTypeOnly(arg: ArgumentSpec, p: TaskParameter): boolean {
  return p.target === arg.target && p.name === arg.name && p.value === undefined && p.template === undefined && p.type !== undefined;
}

/**
 * Can one of the `added` held values enter `arg`'s options directly (templates aside)? The memo's test for whether
 * new held values can change a tool's calls; it mirrors the two held-value loops of `argumentOptions` for response
 * values (which no task parameter owns). `declared`: the types of the task parameters that declare `arg` by type
 * only (`declaredTypes`).
 */
function readsAdded(arg: ArgumentSpec, declared: ReadonlySet<string>, added: AddedValues): boolean {
  for (const t of declared) if (added.types.has(t)) return true;
  if (arg.type !== null) return added.types.has(arg.type) || added.untypedNames.has(arg.name);
  return added.names.has(arg.name) || added.names.has(`${arg.name}_id`);
}

function declaredTypes(arg: ArgumentSpec, ep: ObservableEpisode): Set<string> {
  const out = new Set<string>();
  for (const p of ep.parameters) if (declaresTypeOnly(arg, p)) out.add(p.type as string);
  return out;
}

/** Does a template fill `arg`? Its fillings then depend on every held value. */
function templated(arg: ArgumentSpec, ep: ObservableEpisode): boolean {
  return ep.parameters.some(
    (p) =>
      p.template !== undefined &&
      ((p.target === arg.target && p.name === arg.name) ||
        (p.target === undefined && ((arg.type !== null && p.type === arg.type) || p.name === arg.name))),
  );
}

function argumentOptions(arg: ArgumentSpec, ep: ObservableEpisode, held: readonly HeldValue[], limit: number): Option[] {
  const { name, type, target, prop } = arg;
  const options: Option[] = [];
  for (const p of ep.parameters) {
    if (p.target !== target || p.name !== name) continue;
    if (p.value !== undefined) options.push({ value: p.value, source: TASK });
    if (p.template !== undefined) options.push(...templateOptions(p.template, held, limit));
    if (declaresTypeOnly(arg, p)) {
      for (const h of held) if (h.type === p.type) options.push({ value: h.value, source: h.source });
    }
  }
  for (const p of ep.parameters) {
    if (p.target !== undefined || p.template === undefined) continue;
    if ((type !== null && p.type === type) || p.name === name) options.push(...templateOptions(p.template, held, limit));
  }
  for (const h of held) {
    if (!ownedElsewhere(ep, h, target) && !fromOtherService(ep, h, target) && fillsByName(arg, h)) {
      options.push({ value: h.value, source: h.source });
    }
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
  if (prop?.type === "integer" && prop.enum === undefined && !named) {
    for (const v of FREE_INTEGERS) options.push({ value: v, source: SCHEMA });
  }
  // Distinct values that fit the schema, the first `limit` of them (one key per value serves both tests).
  const seen = new Set<string>();
  const out: Option[] = [];
  for (const o of options) {
    const key = valueKey(o.value);
    if (seen.has(key)) continue;
    seen.add(key);
    if (prop && !fits(prop, o.value, key)) continue;
    out.push(o);
    if (out.length >= limit) break;
  }
  return out;
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

/** The arguments a tool's calls bind: every required one, then every optional one the task names (sorted). */
function argumentsOf(tool: SeenTool, ep: ObservableEpisode): ArgumentSpec[] {
  const props = tool.parameters.properties ?? {};
  const required = tool.parameters.required ?? [];
  // Optional parameters are bound when the task names them (for this tool, or for any tool), as a request that
  // states "7 days" fixes the optional `days` of whichever forecast tool serves it.
  const named = ep.parameters
    .filter((p) => p.target === tool.name || p.target === undefined)
    .filter((p) => p.value !== undefined && !required.includes(p.name) && p.name in props)
    .map((p) => p.name);
  const names = [...required, ...[...new Set(named)].sort()];
  return names.map((name) => ({ name, type: tool.semantics?.parameters?.[name] ?? null, target: tool.name, prop: props[name] }));
}

/** Tool calls with every required argument (and every optional one the task names) bound. */
function buildToolCalls(
  tool: SeenTool,
  args: readonly ArgumentSpec[],
  ep: ObservableEpisode,
  held: readonly HeldValue[],
  limits: CandidateLimits,
): Candidate[] {
  const required = tool.parameters.required ?? [];
  const lists = args.map((arg) => ({ name: arg.name, options: argumentOptions(arg, ep, held, limits.perArgument) }));
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

/**
 * A tool's calls, from the memo when no held value added since they were built can fill one of its arguments (and
 * no template fills one): the calls are then the same, and keeping the same objects lets the features reuse what
 * they computed for them.
 */
function toolCalls(
  tool: SeenTool,
  ep: ObservableEpisode,
  held: readonly HeldValue[],
  limits: CandidateLimits,
  memo?: CandidateMemo,
): Candidate[] {
  if (!memo) return buildToolCalls(tool, argumentsOf(tool, ep), ep, held, limits);
  const e = memo.tools.get(tool);
  if (e) {
    if (e.heldLength === held.length) return e.list;
    const added = e.templated ? null : memo.held.added(e.heldLength);
    const same = added !== null && !e.args.some((arg, a) => readsAdded(arg, e.declared[a], added));
    e.heldLength = held.length;
    return same ? e.list : (e.list = buildToolCalls(tool, e.args, ep, held, limits));
  }
  const args = argumentsOf(tool, ep);
  const list = buildToolCalls(tool, args, ep, held, limits);
  const declared = args.map((a) => declaredTypes(a, ep));
  memo.tools.set(tool, { heldLength: held.length, args, declared, templated: args.some((a) => templated(a, ep)), list });
  return list;
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
    const lists = fields.map((name) => ({
      name,
      options: argumentOptions({ name, type: null, target: type, prop: undefined }, ep, held, limits.perArgument),
    }));
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
 * of the observable episode (`memo`, one per env, only saves work).
 */
export function candidates(ep: ObservableEpisode, limits: CandidateLimits, memo?: CandidateMemo): Candidate[] {
  const held = memo ? memo.sync(ep, limits) : heldValues(ep);
  const all: Candidate[] = [{ kind: "abort", action: { type: "abort" }, name: "abort", sources: [] }];
  const said = answers(ep, held, limits);
  const calls: Candidate[] = [];
  for (const t of ep.tools) {
    if (calls.length >= limits.maxCandidates) break;
    for (const c of toolCalls(t, ep, held, limits, memo)) calls.push(c);
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
