import type { JsonObject, JsonValue } from "../../core/json.js";
import type { JsonSchema } from "../../core/jsonSchema.js";
import { sameItems } from "../../core/objects.js";
import type { Action } from "../actions.js";
import type { ActionKind } from "../actionSpace.js";
import type { HistoryEntry } from "../render.js";
import type { TaskParameter, ToolSemantics } from "../parameters.js";
import type { ToolDefinition } from "../tool.js";

/** A tool call as the agent saw it: no taint, fault ids or error source (those are ground truth). */
export interface SeenCall {
  tool: string;
  arguments: JsonObject;
  ok: boolean;
  response: JsonValue;
}

/** A step that was no tool call (an answer, a family action such as a retrieval), as the agent saw it. */
export interface SeenAction {
  action: Action;
  response: JsonValue;
  /** Tool calls made before it. */
  afterCalls: number;
}

/** A visible tool as the agent knows it: schema and documented semantic types, never `meta`. */
export interface SeenTool {
  name: string;
  parameters: JsonSchema;
  semantics: ToolSemantics | null;
}

/**
 * Everything the discrete mode reads of a tool episode. It is built from observable data only — the same facts a
 * structured-mode agent has (prompt parameters, tool documentation, the responses it received, budgets) — which is
 * what the no-leakage test checks: two episodes with equal observable histories give equal candidates and features.
 */
export interface ObservableEpisode {
  parameters: readonly TaskParameter[];
  tools: readonly SeenTool[];
  calls: readonly SeenCall[];
  /** The steps that were no tool call, in order (retrievals, questions, answers). */
  actions: readonly SeenAction[];
  /** The documented semantic types of a tool (any tool the episode defines; null when it documents none). */
  semanticsOf(tool: string): ToolSemantics | null;
  /** Family action kinds (beyond tool_call / answer / abort) and their schemas. */
  familyKinds: Readonly<Record<string, ActionKind>>;
  step: number;
  maxSteps: number;
  /**
   * The remaining tool-call budget and the budgets' sizes (null: unlimited). The features count retries from the
   * agent's own history (`retries_used`), not from the engine's retry budget.
   */
  budget: { toolCalls: number | null; toolCallLimit: number | null; retryLimit: number | null };
  /** The family's observable plausibility check of a response value (ToolEnvConfig.suspiciousValue). */
  suspicious(field: string, value: JsonValue, type: string | null): boolean;
  /** The family's observable consistency check of a whole response (ToolEnvConfig.inconsistentResponse). */
  inconsistent(response: JsonValue): boolean;
  /** The response of the last step (family actions and answers included), null after reset. */
  lastResponse: JsonValue;
  done: boolean;
}

const seenCalls = new WeakMap<HistoryEntry, SeenCall | null>();
/**
 * The tool call of a step as the agent saw it: the action it sent and the response it got. Read from the step
 * history rather than the engine's call records, because families that run their benchmark's own call pipeline
 * (ToolMisuseBench, PlanBench-XL) keep their calls elsewhere; the history is the one record every family shares.
 */
function seen(h: HistoryEntry): SeenCall | null {
  let s = seenCalls.get(h);
  if (s === undefined) {
    const a = h.action as { type?: unknown; name?: unknown; arguments?: unknown };
    if (a.type !== "tool_call" || typeof a.name !== "string") s = null;
    else {
      const called = h.events.find((e) => e.type === "tool_called") as { ok?: boolean } | undefined;
      const r = h.response;
      const looksFailed = r !== null && typeof r === "object" && !Array.isArray(r) && "error" in r;
      const isObject = a.arguments !== null && typeof a.arguments === "object" && !Array.isArray(a.arguments);
      const args = isObject ? (a.arguments as JsonObject) : {};
      s = { tool: a.name, arguments: args, ok: called?.ok ?? !looksFailed, response: r };
    }
    seenCalls.set(h, s);
  }
  return s;
}

const NOTHING_SUSPICIOUS = (): boolean => false;
const NOTHING_INCONSISTENT = (): boolean => false;
const NO_ACTIONS: readonly SeenAction[] = Object.freeze([]);

const seenActionOf = new WeakMap<HistoryEntry, SeenAction>();
function seenActions(history: readonly HistoryEntry[]): readonly SeenAction[] {
  let out: SeenAction[] | null = null;
  let calls = 0;
  for (const h of history) {
    if (seen(h) !== null) {
      calls++;
      continue;
    }
    if ((h.action as { type?: unknown }).type === "tool_call") continue;
    let s = seenActionOf.get(h);
    if (!s) seenActionOf.set(h, (s = { action: h.action, response: h.response, afterCalls: calls }));
    (out ??= []).push(s);
  }
  return out ?? NO_ACTIONS;
}
/** One object for every episode without parameters, so a memo sees the same parameters from step to step. */
const NO_PARAMETERS: readonly TaskParameter[] = Object.freeze([]);

const seenTools = new WeakMap<ToolDefinition<unknown>, SeenTool>();
function seenTool(t: ToolDefinition<unknown>): SeenTool {
  let s = seenTools.get(t);
  if (!s) seenTools.set(t, (s = { name: t.name, parameters: t.parameters, semantics: t.semantics ?? null }));
  return s;
}

/**
 * The visible tools as SeenTools, the same array for as long as the engine's visible array is the same object (it
 * is, until the visible set changes): per-step readers then key their caches on `ep.tools` itself.
 */
const toolLists = new WeakMap<readonly ToolDefinition<unknown>[], readonly SeenTool[]>();
function seenToolList(visible: readonly ToolDefinition<unknown>[]): readonly SeenTool[] {
  let tools = toolLists.get(visible);
  if (!tools) toolLists.set(visible, (tools = visible.map(seenTool)));
  return tools;
}

/** The visible tools by name, one map per tool list (the episode view keeps the same list while the set is unchanged). */
const visibleMaps = new WeakMap<readonly SeenTool[], Map<string, SeenTool>>();
export function visibleByName(tools: readonly SeenTool[]): ReadonlyMap<string, SeenTool> {
  let m = visibleMaps.get(tools);
  if (!m) {
    m = new Map();
    for (const t of tools) m.set(t.name, t);
    visibleMaps.set(tools, m);
  }
  return m;
}

/**
 * The tool calls of a step history, extending what the last projection of the same history array read (a step
 * appends one entry; anything else — a cleared or replaced history — reads it again). A fresh array every time:
 * an episode view handed out earlier must not grow under its reader.
 */
const callLists = new WeakMap<readonly HistoryEntry[], { read: number; last: HistoryEntry | null; calls: SeenCall[] }>();
function seenCallList(history: readonly HistoryEntry[]): SeenCall[] {
  let e = callLists.get(history);
  if (!e || e.read > history.length || (e.read > 0 && history[e.read - 1] !== e.last)) {
    callLists.set(history, (e = { read: 0, last: null, calls: [] }));
  }
  for (let i = e.read; i < history.length; i++) {
    const c = seen(history[i]);
    if (c !== null) e.calls.push(c);
  }
  e.read = history.length;
  e.last = history.length > 0 ? history[history.length - 1] : null;
  return e.calls.slice();
}

/** Projects a ToolEnv's state onto what the agent observed (called by `ToolEnv.observableEpisode`). */
export function projectEpisode(args: {
  parameters: readonly TaskParameter[] | undefined;
  visible: readonly ToolDefinition<unknown>[];
  definitions: ReadonlyMap<string, ToolDefinition<unknown>>;
  history: readonly HistoryEntry[];
  /** Tool calls made so far (engine call records), for the tool-call budget. */
  callCount: number;
  familyKinds: Readonly<Record<string, ActionKind>>;
  step: number;
  maxSteps: number;
  budgets: { toolCalls: number | null; retries: number | null };
  lastResponse: JsonValue;
  done: boolean;
  suspicious?: (field: string, value: JsonValue, type: string | null) => boolean;
  inconsistent?: (response: JsonValue) => boolean;
}): ObservableEpisode {
  const { toolCalls, retries } = args.budgets;
  return {
    parameters: args.parameters ?? NO_PARAMETERS,
    tools: seenToolList(args.visible),
    semanticsOf: (tool) => args.definitions.get(tool)?.semantics ?? null,
    calls: seenCallList(args.history),
    actions: seenActions(args.history),
    familyKinds: args.familyKinds,
    step: args.step,
    maxSteps: args.maxSteps,
    budget: {
      toolCalls: toolCalls === null ? null : Math.max(0, toolCalls - args.callCount),
      toolCallLimit: toolCalls,
      retryLimit: retries,
    },
    lastResponse: args.lastResponse,
    suspicious: args.suspicious ?? NOTHING_SUSPICIOUS,
    inconsistent: args.inconsistent ?? NOTHING_INCONSISTENT,
    done: args.done,
  };
}

/**
 * Tracks how far a memo has read an episode, so the discrete mode's per-step work only touches what the last step
 * added. A step continues the memo's episode when its calls extend the ones read (the last one read is the same
 * object: a history entry, hence its SeenCall, belongs to one episode, after the same predecessors), its visible
 * tools are the same objects in the same order, and its parameters are the same object; anything else is a new
 * episode (a reset, a `setState`, a fork) and the memo starts over.
 */
export class EpisodeCursor {
  private read = 0;
  private last: SeenCall | null = null;
  private tools: readonly SeenTool[] = [];
  private parameters: readonly TaskParameter[] | null = null;

  /**
   * The index of the first call of `ep` not read yet (0 when the memo must start over: `restarted` is then true).
   * Marks every call of `ep` as read.
   */
  advance(ep: ObservableEpisode): { from: number; restarted: boolean } {
    const calls = ep.calls;
    const continues =
      this.parameters === ep.parameters &&
      calls.length >= this.read &&
      (this.read === 0 || calls[this.read - 1] === this.last) &&
      sameItems(this.tools, ep.tools);
    const from = continues ? this.read : 0;
    this.read = calls.length;
    this.last = calls.length > 0 ? calls[calls.length - 1] : null;
    this.tools = ep.tools;
    this.parameters = ep.parameters;
    return { from, restarted: !continues };
  }
}
