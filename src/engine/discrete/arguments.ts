/**
 * Argument values of tool calls and family actions: which held values, task values and schema choices may fill an
 * argument (in a fixed order, checked against its schema), and their combinations.
 */
import type { JsonObject, JsonValue } from "../../core/json.js";
import type { JsonSchema } from "../../core/jsonSchema.js";
import { argumentIssues } from "../../core/spaces/toolCall.js";
import type { TaskParameter } from "../parameters.js";
import { type Option, SCHEMA, TASK, templateOptions } from "./answers.js";
import { type AddedValues, type HeldValue, type ValueSource, valueKey } from "./held.js";
import type { ObservableEpisode, SeenTool } from "./source.js";

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

/** An untyped held value fits an argument of the same name, or of the name its `_id` field refines (`location_id`). */
function nameMatches(field: string, argument: string): boolean {
  return field === argument || field === `${argument}_id`;
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
export interface ArgumentSpec {
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
export function readsAdded(arg: ArgumentSpec, declared: ReadonlySet<string>, added: AddedValues): boolean {
  for (const t of declared) if (added.types.has(t)) return true;
  if (arg.type !== null) return added.types.has(arg.type) || added.untypedNames.has(arg.name);
  return added.names.has(arg.name) || added.names.has(`${arg.name}_id`);
}

export function declaredTypes(arg: ArgumentSpec, ep: ObservableEpisode): Set<string> {
  const out = new Set<string>();
  for (const p of ep.parameters) if (declaresTypeOnly(arg, p)) out.add(p.type as string);
  return out;
}

/** Does a template fill `arg`? Its fillings then depend on every held value. */
export function templated(arg: ArgumentSpec, ep: ObservableEpisode): boolean {
  return ep.parameters.some(
    (p) =>
      p.template !== undefined &&
      ((p.target === arg.target && p.name === arg.name) ||
        (p.target === undefined && ((arg.type !== null && p.type === arg.type) || p.name === arg.name))),
  );
}

export function argumentOptions(arg: ArgumentSpec, ep: ObservableEpisode, held: readonly HeldValue[], limit: number): Option[] {
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
export function product(lists: { name: string; options: Option[] }[], cap: number): { args: JsonObject; sources: ValueSource[] }[] {
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
export function argumentsOf(tool: SeenTool, ep: ObservableEpisode): ArgumentSpec[] {
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
