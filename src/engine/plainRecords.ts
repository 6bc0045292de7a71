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
 * promoted bytes and twice the stepping CPU of `--no-allocation-site-pretenuring`. V8 allocates `new F()` without
 * an allocation site, always in the young generation, and `Array.of` likewise.
 */
import type { JsonObject, JsonValue } from "../core/json.js";
import type { Action, ToolCallAction } from "./actions.js";
import type { CoreEvent, EpisodeEvent } from "./events.js";
import type { RawTerms } from "../rewards/compute.js";
import type { ToolStepInfo } from "./toolEnvContract.js";
import type { ToolObservation } from "./observation.js";
import type { HistoryEntry } from "./render.js";
import type { BudgetEnd, CallRecord, CallResult, EpisodeData } from "./callRecord.js";
import type { FaultState } from "./faults.js";

type ToolCalledEvent = Extract<CoreEvent, { type: "tool_called" }>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Gives constructor `f` plain-object instances (see the module comment) and the given construct signature. */
function plain<C>(f: object): C {
  (f as { prototype: object }).prototype = Object.prototype;
  return f as C;
}

/** A step's `tool_called` event: `{ type, tool, callIndex, arguments, ok }`. */
export const ToolCalled = plain<new (tool: string, callIndex: number, args: JsonObject, ok: boolean) => ToolCalledEvent>(
  function ToolCalled(this: Mutable<ToolCalledEvent>, tool: string, callIndex: number, args: JsonObject, ok: boolean): void {
    this.type = "tool_called";
    this.tool = tool;
    this.callIndex = callIndex;
    this.arguments = args;
    this.ok = ok;
  },
);

/** A parsed tool-call action: `{ type, name, arguments }`. */
export const ToolCallOf = plain<new (name: string, args: JsonObject) => ToolCallAction>(function ToolCallOf(
  this: Mutable<ToolCallAction>,
  name: string,
  args: JsonObject,
): void {
  this.type = "tool_call";
  this.name = name;
  this.arguments = args;
});

/** A step history entry: `{ step, action, response, events, reward }`. */
export const HistoryRecord = plain<
  new (
    step: number,
    action: Action,
    response: JsonValue,
    events: EpisodeEvent[],
    reward: number,
  ) => HistoryEntry
>(function HistoryRecord(
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
export const StepInfo = plain<
  new (
    events: EpisodeEvent[],
    rewardTerms: Record<string, number>,
    rawTerms: RawTerms,
    phi: number | null,
    taskId: string,
    step: number,
  ) => ToolStepInfo
>(function StepInfo(
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
export const Observation = plain<
  new (
    task: string,
    visibleTools: ToolObservation["visibleTools"],
    newTools: ToolObservation["newTools"],
    removedTools: ToolObservation["removedTools"],
    response: JsonValue,
    step: number,
    budget: ToolObservation["budget"],
  ) => ToolObservation
>(function Observation(
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
export const BudgetLeftOf = plain<new (steps: number, toolCalls: number | null, retries: number | null) => BudgetLeft>(
  function BudgetLeftOf(this: BudgetLeft, steps: number, toolCalls: number | null, retries: number | null): void {
    this.steps = steps;
    this.toolCalls = toolCalls;
    this.retries = retries;
  },
);

/** An episode's mutable data: `{ world, visible, calls, faultStates, retries }`. */
export const EpisodeDataOf = plain<
  new <S>(
    world: S,
    visible: string[],
    calls: CallRecord[],
    faultStates: Record<string, FaultState>,
    retries: number,
  ) => EpisodeData<S>
>(function EpisodeDataOf(
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
export const CallResultOf = plain<
  new (
    record: CallRecord | null,
    args: JsonObject | null,
    events: EpisodeEvent[],
    response: JsonValue,
    end: BudgetEnd | null,
  ) => CallResult
>(function CallResultOf(
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
