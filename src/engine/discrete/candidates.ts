/**
 * The discrete mode's candidate list: abort, answers (answers.ts), family actions and tool calls whose arguments
 * arguments.ts fills from the held values (held.ts). Each env's CandidateMemo keeps a tool's calls between steps.
 */
import { type JsonObject, type JsonValue, stableStringify } from "../../core/json.js";
import { sameItems } from "../../core/objects.js";
import type { Action } from "../actions.js";
import { answers } from "./answers.js";
import { type ArgumentSpec, argumentOptions, argumentsOf, declaredTypes, product, readsAdded, templated } from "./arguments.js";
import { type HeldValue, HeldMemo, heldValues, type ValueSource } from "./held.js";
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

/**
 * What one env's discrete mode remembers from step to step (an optional argument of `candidates`: results are the
 * same with or without it): the held values (read once per call), and each tool's calls, rebuilt only when a new
 * held value could fill one of its arguments.
 */
export class CandidateMemo {
  readonly held = new HeldMemo();
  readonly tools = new Map<SeenTool, ToolEntry>();
  /** This episode's abort candidate and its answers with the held-value count they were built from. */
  abort: Candidate | null = null;
  answers: { heldLength: number; readsHeld: boolean; list: Candidate[] } | null = null;
  private epoch = -1;
  private limits: CandidateLimits | null = null;

  /** The held values of `ep`; forgets the tools' calls when the episode or the limits changed. */
  sync(ep: ObservableEpisode, limits: CandidateLimits): HeldValue[] {
    const held = this.held.sync(ep);
    if (this.held.epoch !== this.epoch || limits !== this.limits) {
      this.epoch = this.held.epoch;
      this.limits = limits;
      this.tools.clear();
      this.abort = null;
      this.answers = null;
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

/** Tool calls with every required argument (and every optional one the task names) bound. */
function buildToolCalls(
  tool: SeenTool,
  args: readonly ArgumentSpec[],
  ep: ObservableEpisode,
  held: readonly HeldValue[],
  limits: CandidateLimits,
  previous?: readonly Candidate[],
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
    const same = previous === undefined ? undefined : previous.find((p) => sameBinding(p, c.args, c.sources));
    out.push(
      same ?? { kind: "tool_call", action: { type: "tool_call", name: tool.name, arguments: c.args }, name: tool.name, sources: c.sources },
    );
  }
  return out;
}

/**
 * Does an earlier call of the same tool bind the same values from the same sources (identical source objects, so
 * the same held values; === values)? It is then the same candidate, and keeping the object lets the features'
 * per-candidate memos survive a rebuild, which every new held value that fits one of the tool's arguments causes.
 */
function sameBinding(c: Candidate, args: JsonObject, sources: readonly ValueSource[]): boolean {
  if (!sameItems(c.sources, sources)) return false;
  const bound = (c.action as { arguments: JsonObject }).arguments;
  const names = Object.keys(args);
  if (Object.keys(bound).length !== names.length) return false;
  for (const name of names) if (bound[name] !== args[name] || !(name in bound)) return false;
  return true;
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
    return same ? e.list : (e.list = buildToolCalls(tool, e.args, ep, held, limits, e.list));
  }
  const args = argumentsOf(tool, ep);
  const list = buildToolCalls(tool, args, ep, held, limits);
  const declared = args.map((a) => declaredTypes(a, ep));
  memo.tools.set(tool, { heldLength: held.length, args, declared, templated: args.some((a) => templated(a, ep)), list });
  return list;
}

const abortCandidate = (): Candidate => ({ kind: "abort", action: { type: "abort" }, name: "abort", sources: [] });

/**
 * The answers, from the memo while the held values they may read are the same (a task whose declared answers are
 * all fixed values, or that declares none, has the same answers all episode): the same objects, as for tool calls.
 */
function memoAnswers(ep: ObservableEpisode, held: readonly HeldValue[], limits: CandidateLimits, memo?: CandidateMemo): Candidate[] {
  if (!memo) return answers(ep, held, limits);
  const e = memo.answers;
  if (e && (!e.readsHeld || e.heldLength === held.length)) return e.list;
  const readsHeld = ep.parameters.some((p) => p.target === "answer" && (p.template !== undefined || p.value === undefined));
  const list = answers(ep, held, limits);
  memo.answers = { heldLength: held.length, readsHeld, list };
  return list;
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
  const all: Candidate[] = [memo ? (memo.abort ??= abortCandidate()) : abortCandidate()];
  const said = memoAnswers(ep, held, limits, memo);
  const calls: Candidate[] = [];
  for (const t of ep.tools) {
    if (calls.length >= limits.maxCandidates) break;
    for (const c of toolCalls(t, ep, held, limits, memo)) calls.push(c);
  }
  const family = familyActions(ep, held, limits, limits.maxCandidates - 1 - said.length - calls.length);
  all.push(...said, ...family, ...calls);
  // Kinds never collide and each argument's values are unique, so only messages can repeat (two templates giving
  // one text): compare those, when there are two or more.
  const messages = said.length + family.length > 1;
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of all) {
    if (messages && (c.kind === "answer" || c.kind === "family")) {
      const key = stableStringify(c.action as unknown as JsonValue);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(c);
    if (out.length >= limits.maxCandidates) break;
  }
  return out;
}
