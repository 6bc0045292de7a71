/**
 * "Still needed" features: whether a candidate's tool produces something the task still needs. The per-candidate
 * features of features.ts say how a call's arguments were bound and how its tool fared; they cannot tell a step of
 * the task's call chain from a call that merely binds (a lookup whose output nothing asks for), which is what the
 * trained ToolMaze policy got wrong (docs/TRAINING.md). Everything here follows from the task's parameters, the
 * visible tools' documented semantic types and which calls the agent saw succeed — never from hidden truth.
 *
 * The goal, from what the task declares:
 * - a typed answer (answer parameters with a `type`, or `{type}` holes of an answer template): the answer's types
 *   the task does not give and nobody holds yet are needed, and the tools that output them are at depth 0;
 * - no typed answer (ToolMaze: the scorer judges the calls): the task's final steps are the visible tools that
 *   take a value no task parameter gives (one only another tool produces), whose inputs are all obtainable from
 *   what is held, and whose outputs no other visible tool takes (sinks). Those not yet called successfully are at
 *   depth 0. On 200 held-out ToolMaze tasks this set holds every true final step in 194 and 0.35 extra tools on
 *   average (a reachable sink off the task's path); the policy weighs it with the other features. A family that
 *   states its requests as data (`TaskParameter.request`) names the final operations itself: those are the goals.
 * Backward chaining over the documented types then gives each tool its depth: a tool that outputs a type a depth-d
 * tool needs and nobody holds yet is at depth d + 1. Two binding checks of a chain step close the list (one value
 * bound to two arguments; an argument from the last response), seen in the trained policy's failures.
 */
import type { JsonValue } from "../../core/json.js";
import { type Candidate, valueKey } from "./candidates.js";
import { type ObservableEpisode, type SeenCall, type SeenTool, visibleByName } from "./source.js";
import type { FeatureGroup, FeatureTarget } from "./featureGroup.js";

/** Global "needs" features, appended to features.ts's GLOBAL_FEATURES (docs/DISCRETE.md documents them). */
export const NEEDS_GLOBAL_FEATURES = ["goals_known", "goals_pending", "all_goals_done", "needed_types_unheld"] as const;

/** Per-candidate "needs" features, appended to features.ts's CANDIDATE_FEATURES. */
export const NEEDS_CANDIDATE_FEATURES = [
  "on_needed_chain",
  "chain_depth_0",
  "chain_depth_1",
  "chain_depth_2_plus",
  "output_already_held",
  "output_feeds_no_tool",
  "arguments_repeat_a_value",
  "argument_from_last_response",
] as const;

/** Deeper chains than this are not followed (ToolMaze's deepest plans are shorter; the cap bounds the work). */
const MAX_DEPTH = 8;

interface ToolTypes {
  name: string;
  /** Documented types of the required parameters (untyped ones are matched by name elsewhere, not here). */
  ins: ReadonlySet<string>;
  outs: ReadonlySet<string>;
}

const toolTypes = new WeakMap<SeenTool, ToolTypes | null>();
function typesOf(t: SeenTool): ToolTypes | null {
  let x = toolTypes.get(t);
  if (x === undefined) {
    const s = t.semantics;
    if (!s || (!s.parameters && !s.outputs)) x = null;
    else {
      const ins = new Set<string>();
      for (const name of t.parameters.required ?? []) {
        const type = s.parameters?.[name];
        if (type !== undefined) ins.add(type);
      }
      x = { name: t.name, ins, outs: new Set(Object.values(s.outputs ?? {})) };
    }
    toolTypes.set(t, x);
  }
  return x;
}

const callTypes = new WeakMap<SeenCall, readonly string[]>();
/** Documented output types of the fields a successful response actually holds (a null field holds nothing). */
function typesHeldBy(ep: ObservableEpisode, c: SeenCall): readonly string[] {
  let x = callTypes.get(c);
  if (x === undefined) {
    const outputs = ep.semanticsOf(c.tool)?.outputs;
    const r = c.response;
    const out: string[] = [];
    if (c.ok && outputs && r !== null && typeof r === "object" && !Array.isArray(r)) {
      for (const [path, type] of Object.entries(outputs)) {
        const v = r[path.split(/[.[]/)[0]];
        if (v !== undefined && v !== null) out.push(type);
      }
    }
    callTypes.set(c, (x = out));
  }
  return x;
}

/** What the backward chaining found for one step (exported for tests). */
export interface Needs {
  /** Goal tools found (pending or done); empty when the task and the tools document no goal. */
  goals: ReadonlySet<string>;
  /** Goal tools not yet called successfully (typed answer: producers of an answer type not held yet). */
  pending: ReadonlySet<string>;
  /** Tool -> smallest depth on a pending goal's chain (0 = completes the goal). */
  depth: ReadonlyMap<string, number>;
  /** Needed types nobody holds yet. */
  unheld: ReadonlySet<string>;
  /** Types held: the task's typed values and the typed fields of successful responses. */
  held: ReadonlySet<string>;
  /** Tools whose outputs no other visible tool takes. */
  sinks: ReadonlySet<string>;
}

function answerTypes(ep: ObservableEpisode): Set<string> {
  const out = new Set<string>();
  for (const p of ep.parameters) {
    if (p.target !== "answer") continue;
    if (p.template !== undefined) for (const m of p.template.matchAll(/\{([A-Za-z0-9_.-]+)\}/g)) out.add(m[1]);
    else if (p.value === undefined && p.type !== undefined) out.add(p.type);
  }
  return out;
}

/** The final operations of the requests the task states as data (`TaskParameter.request`), or null: none stated. */
function requestGoals(ep: ObservableEpisode): ReadonlySet<string> | null {
  let goals: Set<string> | null = null;
  for (const p of ep.parameters) if (p.target === "request" && p.request) (goals ??= new Set()).add(p.request.goal);
  return goals;
}

function allIn(xs: ReadonlySet<string>, set: ReadonlySet<string>): boolean {
  for (const x of xs) if (!set.has(x)) return false;
  return true;
}

function someIn(xs: ReadonlySet<string>, set: ReadonlySet<string>): boolean {
  for (const x of xs) if (set.has(x)) return true;
  return false;
}

/** The typed visible tools and the sinks among them: per tool list (the same list while the visible set is unchanged). */
const toolSets = new WeakMap<readonly SeenTool[], { tools: ToolTypes[]; sinks: ReadonlySet<string> }>();
function toolSetOf(list: readonly SeenTool[]): { tools: ToolTypes[]; sinks: ReadonlySet<string> } {
  let x = toolSets.get(list);
  if (x === undefined) {
    const tools = list.map(typesOf).filter((t): t is ToolTypes => t !== null);
    const sinks = new Set<string>();
    for (const t of tools) {
      const feeds = tools.some((u) => u !== t && someIn(t.outs, u.ins));
      if (!feeds) sinks.add(t.name);
    }
    toolSets.set(list, (x = { tools, sinks }));
  }
  return x;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && allIn(a, b);
}

/**
 * The last chaining per tool list (one per env while its visible set is unchanged). Calls reach the chaining only
 * through the types held and the tools that succeeded, so a step that changed neither (a failed call, a repeat)
 * has the same needs.
 */
const lastNeeds = new WeakMap<readonly SeenTool[], { parameters: ObservableEpisode["parameters"]; succeeded: Set<string>; needs: Needs }>();

/** The backward chaining of one step, from the observable episode alone. */
export function needsOf(ep: ObservableEpisode): Needs {
  const held = new Set<string>();
  const taskTypes = new Set<string>();
  for (const p of ep.parameters) {
    if (p.value !== undefined && p.target !== "answer" && p.type !== undefined) {
      held.add(p.type);
      taskTypes.add(p.type);
    }
  }
  for (const t of ep.tools) if (t.semantics?.label !== undefined) held.add("provider_label");
  const succeeded = new Set<string>();
  for (const c of ep.calls) {
    if (!c.ok) continue;
    succeeded.add(c.tool);
    for (const type of typesHeldBy(ep, c)) held.add(type);
  }
  const last = lastNeeds.get(ep.tools);
  if (last && last.parameters === ep.parameters && sameSet(last.succeeded, succeeded) && sameSet(last.needs.held, held)) {
    return last.needs;
  }
  const { tools, sinks } = toolSetOf(ep.tools);
  // Types obtainable from what is held by calls whose inputs are obtainable.
  const obtainable = new Set(held);
  for (let grew = true; grew; ) {
    grew = false;
    for (const t of tools) {
      if (!allIn(t.ins, obtainable)) continue;
      for (const o of t.outs) {
        if (obtainable.has(o)) continue;
        obtainable.add(o);
        grew = true;
      }
    }
  }
  const reachable = tools.filter((t) => allIn(t.ins, obtainable));
  const goals = new Set<string>();
  const pending = new Set<string>();
  const depth = new Map<string, number>();
  const unheld = new Set<string>();
  const needed: { type: string; depth: number }[] = [];
  const answer = answerTypes(ep);
  // The task's own values are never the answer's missing part (Demo's answer restates the city it was given).
  for (const type of taskTypes) answer.delete(type);
  if (answer.size > 0) {
    for (const t of reachable) {
      if (!someIn(t.outs, answer)) continue;
      goals.add(t.name);
      if ([...t.outs].some((o) => answer.has(o) && !held.has(o))) pending.add(t.name);
    }
    for (const type of answer) if (!held.has(type)) needed.push({ type, depth: -1 });
  } else {
    // Requests stated as data name their final operations: those are the goals, not every reachable sink.
    const requested = requestGoals(ep);
    const doneOps = new Set<string>();
    if (requested) for (const c of ep.calls) if (c.ok) doneOps.add(ep.semanticsOf(c.tool)?.operation ?? c.tool);
    for (const t of reachable) {
      const op = requested ? (ep.semanticsOf(t.name)?.operation ?? t.name) : "";
      const needsProduced = !allIn(t.ins, taskTypes);
      if (requested ? !requested.has(op) : !sinks.has(t.name) || !needsProduced) continue;
      goals.add(t.name);
      if (requested ? !doneOps.has(op) : !succeeded.has(t.name)) {
        pending.add(t.name);
        depth.set(t.name, 0);
        for (const x of t.ins) if (!held.has(x)) needed.push({ type: x, depth: 0 });
      }
    }
  }
  // Breadth first, so each tool keeps its smallest depth.
  for (let i = 0; i < needed.length; i++) {
    const { type, depth: d } = needed[i];
    unheld.add(type);
    if (d + 1 > MAX_DEPTH) continue;
    for (const t of reachable) {
      if (!t.outs.has(type) || depth.has(t.name)) continue;
      depth.set(t.name, d + 1);
      for (const x of t.ins) if (!held.has(x) && !unheld.has(x)) needed.push({ type: x, depth: d + 1 });
    }
  }
  const needs = { goals, pending, depth, unheld, held, sinks };
  lastNeeds.set(ep.tools, { parameters: ep.parameters, succeeded, needs });
  return needs;
}

const repeats = new WeakMap<Candidate, boolean>();
/** Do two of a tool call's arguments hold the same value? Once per candidate (its arguments never change). */
function repeatsAValue(c: Candidate): boolean {
  let x = repeats.get(c);
  if (x === undefined) {
    const values = Object.values((c.action as { arguments: Record<string, JsonValue> }).arguments).map(valueKey);
    repeats.set(c, (x = new Set(values).size < values.length));
  }
  return x;
}

/**
 * Writes the needs features: globals at `globalAt`, each candidate slot's at `slotAt(i)`. Values in [0, 1]; only
 * tool calls get candidate features (an answer's readiness is the globals' `all_goals_done`).
 */
function encodeNeeds(ep: ObservableEpisode, list: readonly Candidate[], maxCandidates: number, at: FeatureTarget): void {
  const { out, globalAt, slotAt } = at;
  const n = needsOf(ep);
  out[globalAt] = n.goals.size > 0 ? 1 : 0;
  out[globalAt + 1] = n.goals.size > 0 ? n.pending.size / n.goals.size : 0;
  out[globalAt + 2] = n.goals.size > 0 && n.pending.size === 0 ? 1 : 0;
  out[globalAt + 3] = Math.min(1, n.unheld.size / 4);
  const visible = visibleByName(ep.tools);
  for (let i = 0; i < list.length && i < maxCandidates; i++) {
    const c = list[i];
    if (c.kind !== "tool_call") continue;
    const o = slotAt(i);
    const d = n.depth.get(c.name);
    if (d !== undefined) {
      out[o] = 1;
      out[o + 1 + Math.min(d, 2)] = 1;
    }
    const tool = visible.get(c.name);
    const types = tool ? typesOf(tool) : null;
    if (types && types.outs.size > 0) {
      out[o + 4] = allIn(types.outs, n.held) ? 1 : 0;
      out[o + 5] = n.sinks.has(c.name) ? 1 : 0;
    }
    // A chain step takes distinct values (a conversion from CAD to CAD, a flight from KRK to KRK is a binding slip)
    // and usually the value the last step returned.
    out[o + 6] = repeatsAValue(c) ? 1 : 0;
    out[o + 7] = c.sources.some((s) => s.kind === "response" && s.call === ep.calls.length - 1) ? 1 : 0;
  }
}

/** The group as features.ts appends it. */
export const NEEDS: FeatureGroup = { globals: NEEDS_GLOBAL_FEATURES, candidates: NEEDS_CANDIDATE_FEATURES, encode: encodeNeeds };
