/**
 * The per-step and per-episode objects of the tool-env hot path, made by constructors whose `prototype` is
 * `Object.prototype`: each is a plain object (same prototype, `constructor === Object`, same keys in the same order
 * as the object literal it replaces), so nothing a caller receives or serializes changes.
 *
 * Why not a literal: V8 tracks every object and array literal with an allocation site and, when most of a site's
 * objects are still alive at a scavenge, allocates all its later objects straight into the old generation
 * ("pretenuring"; a decision taken once, while the code is still cold). A vector env's episodes all start at the
 * same reset, so in the first scavenges nearly everything an episode made is alive, and most of the step's sites
 * were pretenured under Node's default 16 MB semi-space. From then on, each old-space object that dies with its
 * episode keeps the young objects it points to alive until the next mark-compact (the scavenger cannot know it is
 * dead), so the whole episode's data was copied and promoted: measured on ToolMaze (SyncVectorEnv of 256), 3× the
 * promoted bytes of `--no-allocation-site-pretenuring` and up to twice its stepping CPU. V8 allocates `new F()` without
 * an allocation site, always in the young generation; arrays come from `slice` of a private template (a builtin
 * that allocates young too: `Array.of` does as well but cost ~0.3 µs a call, against ~20 ns).
 */
import type { JsonObject, JsonValue } from "../core/json.js";
import type { Action, ToolCallAction } from "./actions.js";
import type { CoreEvent, EpisodeEvent } from "./events.js";
import type { RawTerms } from "../rewards/compute.js";
import type { ToolResetInfo, ToolStepInfo } from "./toolEnvContract.js";
import type { ToolObservation } from "./observation.js";
import type { HistoryEntry } from "./render.js";
import type { BudgetEnd, CallRecord, CallResult, EpisodeData } from "./callRecord.js";
import type { CorruptionFn, FaultSpec, FaultState } from "./faults.js";
import type { EpisodeBudgets } from "./budgets.js";
import type { CallPipeline, ToolEpisodeConfig } from "./episode.js";
import type { ToolDefinition } from "./tool.js";
import type { Rng } from "../core/rng.js";

type ToolCalledEvent = Extract<CoreEvent, { type: "tool_called" }>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// Copied by `slice`, never modified. The empty template has the elements kind of object lists (a length-0 `[null]`),
// so its copies need no kind change on their first push of an object.
const EMPTY_TEMPLATE: unknown[] = [null];
EMPTY_TEMPLATE.length = 0;
const ONE_TEMPLATE: unknown[] = [null];
const FIVE_TEMPLATE: unknown[] = [null, null, null, null, null];

/** A new empty array that V8 allocates young (see the module comment): for lists that grow with an episode. */
export function youngArray<T>(): T[] {
  return EMPTY_TEMPLATE.slice() as T[];
}

/** `[x]`, allocated young (see the module comment). */
export function youngArrayOf<T>(x: T): T[] {
  const out = ONE_TEMPLATE.slice() as T[];
  out[0] = x;
  return out;
}

/** `[a, b, c, d, e]`, allocated young (see the module comment): a step's result tuple. */
export function youngArray5<A, B, C, D, E>(a: A, b: B, c: C, d: D, e: E): [A, B, C, D, E] {
  const out = FIVE_TEMPLATE.slice() as [A, B, C, D, E];
  out[0] = a;
  out[1] = b;
  out[2] = c;
  out[3] = d;
  out[4] = e;
  return out;
}

type Construct<A extends unknown[], T> = new (...args: A) => T;

/**
 * Gives constructor `f` plain-object instances (see the module comment); its construct signature is read from `f`'s
 * `this` type and parameters.
 */
function plain<A extends unknown[], T>(f: (this: T, ...args: A) => void): Construct<A, T> {
  (f as unknown as { prototype: object }).prototype = Object.prototype;
  return f as unknown as Construct<A, T>;
}

/** A step's `tool_called` event: `{ type, tool, callIndex, arguments, ok }`. */
export const ToolCalled = plain(function ToolCalled(
  this: Mutable<ToolCalledEvent>,
  tool: string,
  callIndex: number,
  args: JsonObject,
  ok: boolean,
): void {
  this.type = "tool_called";
  this.tool = tool;
  this.callIndex = callIndex;
  this.arguments = args;
  this.ok = ok;
});

/** A parsed tool-call action: `{ type, name, arguments }`. */
export const ToolCallOf = plain(function ToolCallOf(this: Mutable<ToolCallAction>, name: string, args: JsonObject): void {
  this.type = "tool_call";
  this.name = name;
  this.arguments = args;
});

/** A step history entry: `{ step, action, response, events, reward }`. */
export const HistoryRecord = plain(function HistoryRecord(
  this: HistoryEntry,
  step: number,
  action: Action,
  response: JsonValue,
  events: EpisodeEvent[],
  reward: number,
): void {
  this.step = step;
  this.action = action;
  this.response = response;
  this.events = events;
  this.reward = reward;
});

/** A step's info: `{ events, rewardTerms, rawTerms, phi, taskId, step }` (optional keys added after). */
export const StepInfo = plain(function StepInfo(
  this: ToolStepInfo,
  events: EpisodeEvent[],
  rewardTerms: Record<string, number>,
  rawTerms: RawTerms,
  phi: number | null,
  taskId: string,
  step: number,
): void {
  this.events = events;
  this.rewardTerms = rewardTerms;
  this.rawTerms = rawTerms;
  this.phi = phi;
  this.taskId = taskId;
  this.step = step;
});

/** An observation: `{ task, visibleTools, newTools, removedTools, response, step, budget }`. */
export const Observation = plain(function Observation(
  this: ToolObservation,
  task: string,
  visibleTools: ToolObservation["visibleTools"],
  newTools: ToolObservation["newTools"],
  removedTools: ToolObservation["removedTools"],
  response: JsonValue,
  step: number,
  budget: ToolObservation["budget"],
): void {
  this.task = task;
  this.visibleTools = visibleTools;
  this.newTools = newTools;
  this.removedTools = removedTools;
  this.response = response;
  this.step = step;
  this.budget = budget;
});

/** The remaining budgets of an observation: `{ steps, toolCalls, retries }`. */
export interface BudgetLeft {
  steps: number;
  toolCalls: number | null;
  retries: number | null;
}
export const BudgetLeftOf = plain(function BudgetLeftOf(
  this: BudgetLeft,
  steps: number,
  toolCalls: number | null,
  retries: number | null,
): void {
  this.steps = steps;
  this.toolCalls = toolCalls;
  this.retries = retries;
});

/** An episode's mutable data: `{ world, visible, calls, faultStates, retries }` (the world typed by the caller). */
export const EpisodeDataOf = plain(function EpisodeDataOf(
  this: EpisodeData<unknown>,
  world: unknown,
  visible: string[],
  calls: CallRecord[],
  faultStates: Record<string, FaultState>,
  retries: number,
): void {
  this.world = world;
  this.visible = visible;
  this.calls = calls;
  this.faultStates = faultStates;
  this.retries = retries;
});

/** What `ToolEpisode.call` returns: `{ record, arguments, events, response, end }`. */
export const CallResultOf = plain(function CallResultOf(
  this: CallResult,
  record: CallRecord | null,
  args: JsonObject | null,
  events: EpisodeEvent[],
  response: JsonValue,
  end: BudgetEnd | null,
): void {
  this.record = record;
  this.arguments = args;
  this.events = events;
  this.response = response;
  this.end = end;
});

/** A reset's info: `{ taskId, step, phi }` (`hidden` added after when asked for). */
export const ResetInfoOf = plain(function ResetInfoOf(this: ToolResetInfo, taskId: string, step: number, phi: number | null): void {
  this.taskId = taskId;
  this.step = step;
  this.phi = phi;
});

const TWO_TEMPLATE: unknown[] = [null, null];
/** `[a, b]`, allocated young: a reset's result pair. */
export function youngPair<A, B>(a: A, b: B): [A, B] {
  const out = TWO_TEMPLATE.slice() as [A, B];
  out[0] = a;
  out[1] = b;
  return out;
}

/** What a tool env hands a new `ToolEpisode` (read by its constructor, not kept): a class, not a literal. */
export class EpisodeConfigOf<S> implements ToolEpisodeConfig<S> {
  constructor(
    readonly tools: readonly ToolDefinition<S>[],
    readonly visible: readonly string[],
    readonly world: S,
    readonly faults: readonly FaultSpec[] | undefined,
    readonly corruptions: Readonly<Record<string, CorruptionFn<S>>> | undefined,
    readonly rng: Rng,
    readonly valueProvenance: ToolEpisodeConfig<S>["valueProvenance"],
    readonly budgets: EpisodeBudgets | undefined,
    readonly pipeline: CallPipeline<S> | undefined,
  ) {}
}
