/**
 * Request features: which of the task's requests a candidate serves. A multi-request task (ToolMaze C4) exposes many
 * tools and several goals; the needs features alone cannot tell which final steps the *user* asked for, nor which
 * request a held value belongs to, and the trained policy spread its calls over reachable chains nobody asked for
 * and bound one request's values into another's call (docs/TRAINING.md). A family that states its requests as data
 * (`TaskParameter.request`: the operations a request names, its final one, the literals it quotes) gets these; the
 * rest get zeros. Everything follows from those parameters, the tools' documented operations and which calls the
 * agent saw succeed — never from hidden truth.
 */
import type { JsonValue } from "../../core/json.js";
import type { TaskRequest } from "../parameters.js";
import { type Candidate, valueKey } from "./candidates.js";
import { keysOf } from "./callHistory.js";
import type { ObservableEpisode, SeenTool } from "./source.js";
import type { FeatureGroup, FeatureTarget } from "./featureGroup.js";

/** Global request features, appended to features.ts's GLOBAL_FEATURES (docs/DISCRETE.md documents them). */
export const REQUEST_GLOBAL_FEATURES = ["requests_known", "requests_pending", "request_goal_suspicious", "request_blocked"] as const;

/** Per-candidate request features, appended to features.ts's CANDIDATE_FEATURES. */
export const REQUEST_CANDIDATE_FEATURES = [
  "completes_pending_request",
  "completes_done_request",
  "step_of_pending_request",
  "step_of_no_request",
  "argument_from_same_request",
  "argument_from_other_request",
  "task_value_of_same_request",
  "task_value_of_other_request",
  "next_step_of_request",
  "step_skips_ahead",
  "argument_from_previous_step",
  "task_value_named_for_other_argument",
] as const;

/** The requests a step knows of, and which are done (exported for tests). */
export interface RequestState {
  requests: readonly TaskRequest[];
  /** Per request: a tool of its goal operation was called successfully. */
  done: readonly boolean[];
  /** Operations some tool of which was called successfully, with a response the plausibility check passed. */
  succeeded: ReadonlySet<string>;
  /** Goal operations of pending requests whose last call answered a value the plausibility check flags. */
  suspiciousGoals: ReadonlySet<string>;
  /** Per request: pending, and a step not done yet has no usable tool left (below). */
  blocked: readonly boolean[];
  /** Operation -> the requests that name it. */
  byOperation: ReadonlyMap<string, readonly number[]>;
  /** Value key -> the requests that quote it. */
  byValue: ReadonlyMap<string, readonly number[]>;
}

interface ParameterIndex {
  requests: TaskRequest[];
  byOperation: Map<string, number[]>;
  byValue: Map<string, number[]>;
  /** Operation -> the requests whose goal it is. */
  byGoal: Map<string, number[]>;
  /** Value key of a task literal -> the argument names the task gives it for. */
  namesByValue: Map<string, Set<string>>;
}
const cache = new WeakMap<readonly unknown[], ParameterIndex>();

function indexOf(ep: ObservableEpisode) {
  let x = cache.get(ep.parameters);
  if (!x) {
    const requests = ep.parameters.flatMap((p) => (p.target === "request" && p.request ? [p.request] : []));
    const byOperation = new Map<string, number[]>();
    const byValue = new Map<string, number[]>();
    const byGoal = new Map<string, number[]>();
    const add = <K>(m: Map<K, number[]>, k: K, i: number) => {
      const list = m.get(k) ?? [];
      if (!list.includes(i)) list.push(i);
      m.set(k, list);
    };
    requests.forEach((r, i) => {
      for (const op of r.steps) add(byOperation, op, i);
      add(byOperation, r.goal, i);
      add(byGoal, r.goal, i);
      for (const v of r.values) add(byValue, valueKey(v), i);
    });
    const namesByValue = new Map<string, Set<string>>();
    for (const p of ep.parameters) {
      if (p.value === undefined || p.target === "answer" || p.target === "request") continue;
      const k = valueKey(p.value);
      const names = namesByValue.get(k) ?? new Set<string>();
      names.add(p.name);
      namesByValue.set(k, names);
    }
    cache.set(ep.parameters, (x = { requests, byOperation, byValue, byGoal, namesByValue }));
  }
  return x;
}

/** The operation a tool documents (its own name when it documents none). */
function operationOf(ep: ObservableEpisode, tool: string): string {
  return ep.semanticsOf(tool)?.operation ?? tool;
}

/** The visible tools' operations and documented output types, per tool list (the same list while the set is unchanged). */
interface ToolOperations {
  operation: Map<SeenTool, string>;
  byOperation: Map<string, SeenTool[]>;
  outputs: Map<SeenTool, string[]>;
}
const toolOperations = new WeakMap<readonly SeenTool[], ToolOperations>();
function operationsOf(ep: ObservableEpisode): ToolOperations {
  let x = toolOperations.get(ep.tools);
  if (x === undefined) {
    x = { operation: new Map(), byOperation: new Map(), outputs: new Map() };
    for (const t of ep.tools) {
      const op = operationOf(ep, t.name);
      x.operation.set(t, op);
      const own = x.byOperation.get(op);
      if (own) own.push(t);
      else x.byOperation.set(op, [t]);
      x.outputs.set(t, Object.values(t.semantics?.outputs ?? {}));
    }
    toolOperations.set(ep.tools, x);
  }
  return x;
}

/** The requests of the observable episode and which are done. */
export function requestState(ep: ObservableEpisode): RequestState {
  const { requests, byOperation, byValue } = indexOf(ep);
  const succeeded = new Set<string>();
  const lastSuspicious = new Map<string, boolean>();
  const badCalls = new Map<string, number>();
  if (requests.length > 0) {
    for (const c of ep.calls) {
      // A final step that answered an implausible value (a leaked trace as a message id) is not done: a retry, an
      // alternative or an abort is.
      const bad = !c.ok || keysOf(ep, c).suspicious.length > 0;
      if (bad) badCalls.set(c.tool, (badCalls.get(c.tool) ?? 0) + 1);
      if (!c.ok) continue;
      const op = operationOf(ep, c.tool);
      lastSuspicious.set(op, bad);
      if (!bad) succeeded.add(op);
    }
  }
  const done = requests.map((r) => succeeded.has(r.goal));
  const suspiciousGoals = new Set<string>();
  requests.forEach((r, i) => {
    if (!done[i] && lastSuspicious.get(r.goal)) suspiciousGoals.add(r.goal);
  });
  // A tool that failed or answered implausibly twice is spent (one retry is the usual recovery). A step is stuck
  // when every visible tool of its operation is spent and no other unspent visible tool returns one of their
  // documented types (an alternative route): then abort is what is left for that request.
  const spent = (tool: string) => (badCalls.get(tool) ?? 0) >= 2;
  const blocked = requests.map((r, i) => {
    if (done[i] || badCalls.size === 0) return false;
    const ops = operationsOf(ep);
    return r.steps.some((op) => {
      if (succeeded.has(op)) return false;
      const own = ops.byOperation.get(op);
      if (own === undefined || !own.every((t) => spent(t.name))) return false;
      const types = new Set(own.flatMap((t) => ops.outputs.get(t)!));
      return !ep.tools.some((t) => ops.operation.get(t) !== op && !spent(t.name) && ops.outputs.get(t)!.some((x) => types.has(x)));
    });
  });
  return { requests, done, succeeded, suspiciousGoals, blocked, byOperation, byValue };
}

const overlaps = (a: readonly number[], b: readonly number[]): boolean => a.some((x) => b.includes(x));

/**
 * What a tool-call candidate's request features read of itself and the task, once per candidate object and parameter
 * index: `task_value_named_for_other_argument`, its operation, the requests naming it, and which requests its bound
 * values came from. They depend on the task's parameters and the candidate alone: a candidate belongs to one episode
 * (the candidate memo starts over with a new one), whose calls only grow, so the calls its response sources name
 * stay the same.
 */
interface CandidateRequests {
  index: ParameterIndex;
  /** A task literal is bound to an argument the task names it for otherwise. */
  namedForOther: boolean;
  op: string;
  /** The requests that name its operation (a step or the goal). */
  mine: readonly number[];
  /** The requests whose goal is its operation. */
  goalOf: readonly number[];
  /** The operations of the calls its response sources name, in source order. */
  responseOps: readonly string[];
  same: boolean;
  other: boolean;
  taskSame: boolean;
  taskOther: boolean;
}
const NONE: readonly number[] = [];
const NO_OPS: readonly string[] = [];
const candidateMemo = new WeakMap<Candidate, CandidateRequests>();

function namedForOther(c: Candidate, args: Record<string, JsonValue>, index: ParameterIndex): boolean {
  const names = Object.keys(args);
  for (let k = 0; k < names.length && k < c.sources.length; k++) {
    if (c.sources[k].kind !== "task") continue;
    const named = index.namesByValue.get(valueKey(args[names[k]]));
    if (named && !named.has(names[k])) return true;
  }
  return false;
}

function requestsOf(ep: ObservableEpisode, c: Candidate, index: ParameterIndex): CandidateRequests {
  const hit = candidateMemo.get(c);
  if (hit !== undefined && hit.index === index) return hit;
  const args = (c.action as { arguments: Record<string, JsonValue> }).arguments;
  const named = index.namesByValue.size > 0 && namedForOther(c, args, index);
  // Without requests only the named-for-other feature is written: the rest stays empty, not computed.
  const x: CandidateRequests =
    index.requests.length > 0
      ? requestLinks(ep, c, args, index, named)
      : {
          index,
          namedForOther: named,
          op: "",
          mine: NONE,
          goalOf: NONE,
          responseOps: NO_OPS,
          same: false,
          other: false,
          taskSame: false,
          taskOther: false,
        };
  candidateMemo.set(c, x);
  return x;
}

function requestLinks(
  ep: ObservableEpisode,
  c: Candidate,
  args: Record<string, JsonValue>,
  index: ParameterIndex,
  named: boolean,
): CandidateRequests {
  const op = operationOf(ep, c.name);
  const mine = index.byOperation.get(op) ?? NONE;
  const goalOf = index.byGoal.get(op) ?? NONE;
  // Which request a bound value belongs to: a response of a tool that request names, a literal it quotes.
  const responseOps: string[] = [];
  let same = false;
  let other = false;
  for (const src of c.sources) {
    if (src.kind !== "response") continue;
    const call = ep.calls[src.call];
    if (!call) continue;
    const callOp = operationOf(ep, call.tool);
    responseOps.push(callOp);
    const theirs = index.byOperation.get(callOp) ?? NONE;
    if (theirs.length === 0) continue;
    if (overlaps(mine, theirs)) same = true;
    else other = true;
  }
  let taskSame = false;
  let taskOther = false;
  if (c.sources.some((src) => src.kind === "task")) {
    for (const v of Object.values(args)) {
      const theirs = index.byValue.get(valueKey(v));
      if (!theirs) continue;
      if (overlaps(mine, theirs)) taskSame = true;
      else taskOther = true;
    }
  }
  return { index, namedForOther: named, op, mine, goalOf, responseOps, same, other, taskSame, taskOther };
}

/**
 * Writes the request features: globals at `globalAt`, each tool-call candidate's at `slotAt(i)`. Values in [0, 1];
 * all zero when the task states no requests, but for `task_value_named_for_other_argument`.
 */
function encodeRequests(ep: ObservableEpisode, list: readonly Candidate[], maxCandidates: number, at: FeatureTarget): void {
  const { out, globalAt, slotAt } = at;
  const index = indexOf(ep);
  // Without requests every feature but the named-for-other one stays zero: the request state is not even needed.
  const s = index.requests.length > 0 ? requestState(ep) : null;
  if (s === null && index.namesByValue.size === 0) return;
  if (s !== null) {
    const n = s.requests.length;
    out[globalAt] = 1;
    out[globalAt + 1] = s.done.filter((d) => !d).length / n;
    out[globalAt + 2] = s.suspiciousGoals.size > 0 ? 1 : 0;
    out[globalAt + 3] = s.blocked.some((b) => b) ? 1 : 0;
  }
  for (let i = 0; i < list.length && i < maxCandidates; i++) {
    const c = list[i];
    if (c.kind !== "tool_call") continue;
    const o = slotAt(i);
    const st = requestsOf(ep, c, index);
    // Any task: a literal bound to an argument the task names it for otherwise ("from that airport to KRK": KRK is
    // the destination, not the origin). Candidates keep their arguments' sources in argument order.
    if (st.namedForOther) out[o + 11] = 1;
    if (s === null) continue;
    const { op, mine } = st;
    let completesPending = false;
    let completesDone = false;
    for (const j of st.goalOf) {
      if (s.done[j]) completesDone = true;
      else completesPending = true;
    }
    out[o] = completesPending ? 1 : 0;
    out[o + 1] = completesDone && !completesPending ? 1 : 0;
    out[o + 2] = mine.some((j) => !s.done[j]) ? 1 : 0;
    out[o + 3] = mine.length === 0 ? 1 : 0;
    if (mine.length === 0) continue;
    out[o + 4] = st.same ? 1 : 0;
    out[o + 5] = st.other ? 1 : 0;
    out[o + 6] = st.taskSame ? 1 : 0;
    out[o + 7] = st.taskOther ? 1 : 0;
    // The request's order: its next step is the first one not done yet, and a step takes the value the step the
    // request names just before it returned ("check the price, then change that amount": the price, not another
    // amount held earlier).
    let next = false;
    let skips = false;
    const previous = new Set<string>();
    for (const j of mine) {
      if (s.done[j]) continue;
      const steps = s.requests[j].steps;
      const k = steps.indexOf(op);
      if (k < 0) continue;
      const firstOpen = steps.findIndex((x) => !s.succeeded.has(x));
      if (firstOpen === k) next = true;
      else if (firstOpen >= 0 && firstOpen < k) skips = true;
      if (k > 0) previous.add(steps[k - 1]);
    }
    out[o + 8] = next ? 1 : 0;
    out[o + 9] = skips ? 1 : 0;
    if (previous.size > 0) {
      for (const sourceOp of st.responseOps) {
        if (previous.has(sourceOp)) {
          out[o + 10] = 1;
          break;
        }
      }
    }
  }
}

/** The group as features.ts appends it. */
export const REQUESTS: FeatureGroup = { globals: REQUEST_GLOBAL_FEATURES, candidates: REQUEST_CANDIDATE_FEATURES, encode: encodeRequests };
