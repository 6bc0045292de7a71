import { type JsonObject, type JsonValue, stableStringify } from "../../core/json.js";
import type { JsonSchema } from "../../core/jsonSchema.js";
import { argumentIssues } from "../../core/spaces/toolCall.js";
import type { Action } from "../actions.js";
import type { TaskParameter } from "../parameters.js";
import { EpisodeCursor, type ObservableEpisode, type SeenCall, type SeenTool } from "./source.js";

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
  /** The tool called (tool_call), or the family action type. */
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

/** The values of one call's response (none for a failed call), in walk order. */
function responseValues(ep: ObservableEpisode, c: SeenCall, i: number): HeldValue[] {
  if (!c.ok) return [];
  const fields: { path: string; key: string; value: JsonValue }[] = [];
  walk(c.response, "", "", fields, 0);
  const outputs = ep.semanticsOf(c.tool)?.outputs;
  return fields.map((f) => ({
    name: f.key,
    type: outputs?.[f.path] ?? null,
    value: f.value,
    source: { kind: "response", call: i, field: f.path },
  }));
}

/** The task's own held values: its parameters, then the providers' labels of the visible tools. */
function taskValues(ep: ObservableEpisode): HeldValue[] {
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
  return out;
}

/**
 * What one env's discrete mode remembers from step to step (an optional argument of `candidates`: results are the
 * same with or without it). Held values only grow within an episode — the task's, then each call's response — so
 * each call's values are read once, and a tool's calls are rebuilt only when a new held value could fill one of its
 * arguments.
 */
export class CandidateMemo {
  private readonly cursor = new EpisodeCursor();
  /** Bumped when the held values change other than by appending (a new episode). */
  epoch = 0;
  held: HeldValue[] = [];
  readonly tools = new Map<SeenTool, ToolEntry>();
  limits: CandidateLimits | null = null;

  private lastAdded: AddedValues | null = null;

  /** A summary of the held values from index `from` on (tools last built at the same point share it), or null. */
  added(held: readonly HeldValue[], from: number): AddedValues | null {
    const last = this.lastAdded;
    if (last && last.from === from && last.to === held.length) return last;
    return (this.lastAdded = addedValues(held, from));
  }

  /** The held values of `ep` (as `heldValues(ep)`), reading only the calls the last step added. */
  sync(ep: ObservableEpisode, limits: CandidateLimits): HeldValue[] {
    const { from, restarted } = this.cursor.advance(ep);
    if (restarted || limits !== this.limits) {
      this.epoch++;
      this.limits = limits;
      this.tools.clear();
      this.held = taskValues(ep);
      this.lastAdded = null;
    }
    const calls = ep.calls;
    for (let i = from; i < calls.length; i++) {
      for (const v of responseValues(ep, calls[i], i)) this.held.push(v);
    }
    return this.held;
  }
}

/** A tool's calls as last built, and the held values they were built from (the first `heldLength` of an epoch). */
interface ToolEntry {
  epoch: number;
  heldLength: number;
  args: ArgumentSpec[];
  /** Per argument, the types of the task parameters that declare it by type only. */
  declared: Set<string>[];
  /** A template fills one of the arguments: every new held value may change the calls. */
  templated: boolean;
  list: Candidate[];
}

/** Every value the agent holds, in a fixed order: task parameters first, then response fields in call order. */
export function heldValues(ep: ObservableEpisode): HeldValue[] {
  const out = taskValues(ep);
  ep.calls.forEach((c, i) => {
    for (const v of responseValues(ep, c, i)) out.push(v);
  });
  return out;
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
 * Fillings of a template's `{type}` holes with held values: the most recent values first (a report states what was
 * read last), distinct values for a repeated hole ("I used {provider_label} because {provider_label} failed").
 */
function fillTemplate(template: string, held: readonly HeldValue[], cap: number): { text: string; sources: ValueSource[] }[] {
  const holes = [...template.matchAll(/\{([A-Za-z0-9_.-]+)\}/g)].map((m) => m[1]);
  const recent = [...held].reverse();
  let acc: { text: string; sources: ValueSource[]; used: string[] }[] = [{ text: template, sources: [], used: [] }];
  for (const hole of holes) {
    const options = uniqueByValue(recent.filter((h) => h.type === hole || (h.type === null && h.name === hole)));
    const next: typeof acc = [];
    for (const a of acc) {
      for (const o of options) {
        if (next.length >= cap) break;
        const key = `${hole}\u0000${valueKey(o.value)}`;
        if (a.used.includes(key)) continue;
        next.push({ text: a.text.replace(`{${hole}}`, textOf(o.value)), sources: [...a.sources, o.source], used: [...a.used, key] });
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

/** The types and names of held values added since some point of an episode (response values only). */
interface AddedValues {
  from: number;
  to: number;
  types: Set<string>;
  untypedNames: Set<string>;
  names: Set<string>;
}

function addedValues(held: readonly HeldValue[], from: number): AddedValues | null {
  const out: AddedValues = { from, to: held.length, types: new Set(), untypedNames: new Set(), names: new Set() };
  for (let i = from; i < held.length; i++) {
    const h = held[i];
    // A task value never arrives within an episode; if one did, the caller rebuilds rather than trust the summary.
    if (h.source.kind === "task") return null;
    if (h.type !== null) out.types.add(h.type);
    else out.untypedNames.add(h.name);
    out.names.add(h.name);
  }
  return out;
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
    if (!ownedElsewhere(ep, h, target) && fillsByName(arg, h)) options.push({ value: h.value, source: h.source });
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
  // A count the task leaves open (a search's `top_k`) is a choice among a few small values, after any it names.
  if (prop?.type === "integer" && prop.enum === undefined) for (const v of FREE_INTEGERS) options.push({ value: v, source: SCHEMA });
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
  if (e && e.epoch === memo.epoch) {
    if (e.heldLength === held.length) return e.list;
    const added = e.templated ? null : memo.added(held, e.heldLength);
    if (added && !e.args.some((arg, a) => readsAdded(arg, e.declared[a], added))) {
      e.heldLength = held.length;
      return e.list;
    }
  }
  if (e && e.epoch === memo.epoch) {
    e.heldLength = held.length;
    return (e.list = buildToolCalls(tool, e.args, ep, held, limits));
  }
  const args = argumentsOf(tool, ep);
  const list = buildToolCalls(tool, args, ep, held, limits);
  const declared = args.map((a) => declaredTypes(a, ep));
  memo.tools.set(tool, { epoch: memo.epoch, heldLength: held.length, args, declared, templated: args.some((a) => templated(a, ep)), list });
  return list;
}

function answers(ep: ObservableEpisode, held: readonly HeldValue[], limits: CandidateLimits): Candidate[] {
  const declared = ep.parameters.filter((p) => p.target === "answer");
  if (declared.length === 0) return [{ kind: "answer", action: { type: "answer", content: DEFAULT_ANSWER }, name: "answer", sources: [] }];
  // One list per declared answer, interleaved, so the cap keeps every format's best fillings.
  const lists: Option[][] = declared.map((p) => {
    const list: Option[] = [];
    if (p.value !== undefined) list.push({ value: textOf(p.value), source: TASK });
    if (p.template !== undefined) list.push(...templateOptions(p.template, held, limits.perTool));
    if (p.value === undefined && p.template === undefined) {
      const fitting = held.filter((h) => (p.type !== undefined ? h.type === p.type : h.name === p.name));
      for (const h of fitting) list.push({ value: textOf(h.value), source: h.source });
    }
    return list;
  });
  const out: Option[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return uniqueByValue(out)
    .slice(0, limits.answers)
    .map((o) => ({ kind: "answer", action: { type: "answer", content: o.value as string }, name: "answer", sources: [o.source] }));
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
