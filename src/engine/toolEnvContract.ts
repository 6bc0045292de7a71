import { z } from "zod";
import type { JsonObject, JsonValue } from "../core/json.js";
import type { RawTerms, RewardComputer } from "../rewards/compute.js";
import type { ActionKind } from "./actionSpace.js";
import type { EpisodeEvent, TerminationReason } from "./events.js";
import type { EpisodeBudgets } from "./budgets.js";
import type { CallPipeline } from "./episode.js";
import type { CorruptionFn, FaultSpec } from "./faults.js";
import type { TaskParameter } from "./parameters.js";
import type { ToolDefinition } from "./tool.js";

/*
 * The contract between ToolEnv and the families that subclass it. A family supplies data and answers questions;
 * the base class runs every step (parse, call pipeline, budgets, events, rewards, info, observation). Hooks return
 * values: nothing is handed from one hook to the next through fields.
 *
 * The hooks, in the order a step calls them:
 * - `createEpisode(rng, options) -> EpisodeSetup` (reset and setState): task, tools, world, fault specs and the
 *   corruptions they name, budgets, and `pipeline` options for a harness with another order (ToolMisuseBench).
 * - `onCall(record, events) -> CallReport` after every recorded tool call: the family's events (forbidden calls,
 *   progress, staged disclosure, its own provenance) and an optional `end` (the family's own termination).
 * - `onFamilyAction(action) -> FamilyActionResult` for action kinds beyond tool_call / answer / abort.
 * - `judge(end) -> boolean | null` once, when the episode ends: `answer` and `abort` (null: not a success) and
 *   `limit` (a budget, the step limit, a family end; null keeps `end.success`). One hook, not one per ending.
 * - `stepReport(step) -> StepReport` every step: family raw reward terms, and the step's `info.hidden`
 *   annotation (computed only when `step.hidden`: the env reports hidden info).
 * - `potential() -> number | null`: Φ of the state after the step (reset too).
 * - `episodeMetrics(success, reason, end) -> JsonObject` on the final step.
 * - State: `familyState()` / `restoreFamilyState(state)` / `checkFamilyState(state)` for runtime a family keeps
 *   beyond the engine's episode data (snapshot, restore, validate before restoring).
 *
 * Also here: options, the family's static description (ToolEnvConfig), the documented info keys and the state
 * snapshot.
 */

/** Options every tool env accepts; families extend this schema with their own. */
export const toolEnvOptionsSchema = z.object({
  /** Reward preset name, path to a spec JSON file, or an inline spec. */
  reward: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).default("shaped"),
  /** Overrides the family's default step limit (the episode is truncated, reason `max_steps`). */
  maxSteps: z.number().int().positive().optional(),
  /**
   * An action outside the action space's shape: `raise` throws an ActionError (Gymnasium-like default: a malformed
   * action is a bug in the caller); `penalize` turns it into an `invalid_action` event and a step.
   */
  invalidAction: z.enum(["raise", "penalize"]).default("raise"),
  /** Put ground truth in `info.hidden` (never in observations). */
  hiddenInfo: z.boolean().default(true),
});
export type ToolEnvOptions = z.infer<typeof toolEnvOptionsSchema>;

/** What a family builds for one episode. */
export interface EpisodeSetup<S> {
  taskId: string;
  prompt: string;
  tools: readonly ToolDefinition<S>[];
  visible: readonly string[];
  world: S;
  faults?: readonly FaultSpec[];
  /** Step, tool-call and retry budgets (src/engine/budgets.ts); how they are charged: `pipeline.budgetRules`. */
  budgets?: EpisodeBudgets;
  /** A benchmark harness's pipeline order, validator, fault stage, pattern and budget rules (default: the engine's). */
  pipeline?: CallPipeline<S>;
  /** Ground truth for `info.hidden` at reset and at the end of the episode. */
  hidden?: JsonObject;
  /** The task's structured parameters (observable: they restate the prompt), for the discrete action mode. */
  parameters?: readonly TaskParameter[];
  /** Named corruption transforms the fault specs' `corrupt` / `replace` effects refer to. */
  corruptions?: Readonly<Record<string, CorruptionFn<S>>>;
}

/** What a family says about a recorded tool call (`onCall`). */
export interface CallReport {
  /** The family's events of the call, reported after the pipeline's own. */
  events?: EpisodeEvent[];
  /** The family's own rule ends the episode with this call (terminated, with this reason and verdict). */
  end?: { reason: TerminationReason; success: boolean };
}

/**
 * How an episode ended, as `judge` and `episodeMetrics` see it: an answer, an abort, or a limit — a budget, the
 * step limit (reason `max_steps`), a family action or `onCall` end — with the verdict it came with.
 */
export type EpisodeEnd =
  | { kind: "answer"; content: string }
  | { kind: "abort"; reason: string | null }
  | { kind: "limit"; reason: TerminationReason; success: boolean };

/** One step as `stepReport` sees it (after judging, before rewards). */
export interface StepContext {
  events: readonly EpisodeEvent[];
  ended: boolean;
  success: boolean;
  /** How the episode ended (final step only, else null). */
  end: EpisodeEnd | null;
  /** Whether the env reports `info.hidden` (option `hiddenInfo`): compute `StepReport.hidden` only then. */
  hidden: boolean;
}

/** What a family reports about a step (`stepReport`). */
export interface StepReport {
  /** Family raw reward terms of the step, added to the core ones. */
  rawTerms?: RawTerms;
  /** The step's ground-truth annotation for `info.hidden` (merged into the full ground truth on the final step). */
  hidden?: JsonObject | null;
}

/** A family's static description, given once to the base class. */
export interface ToolEnvConfig {
  family: string;
  maxEpisodeSteps: number;
  /** Family reward terms beyond CORE_TERMS: name -> documentation. */
  familyTerms?: Readonly<Record<string, string>>;
  familyEventTypes?: readonly string[];
  /** Family info keys beyond the core ones: key -> documentation. */
  familyInfoKeys?: Readonly<Record<string, string>>;
  extraActionKinds?: Readonly<Record<string, ActionKind>>;
  /** Accepts a family's alternative action wire format by mapping it onto the action union (see ToolActionSpace). */
  normalizeAction?: (x: unknown) => unknown;
  /**
   * false: the engine emits no `poisoned_value_reused` events (the family reports poisoned values from its own
   * provenance analysis, as ToolMaze does). Default true.
   */
  valueProvenance?: boolean | "before_validation";
  /**
   * true: a `tool_call` action is the family's, handed to `onFamilyAction` (PlanBench-XL: the action is an
   * official reply whose runtime runs the call through the engine's pipeline itself). Default false: the base
   * class runs it through the pipeline and reports the record to `onCall`.
   */
  familyToolCalls?: boolean;
  /**
   * Observable plausibility of a response value (a temperature below absolute zero, debug text, a date in the past):
   * what a careful agent can tell from the field's name, documented type and value alone, never from ground truth.
   * The discrete mode's features flag arguments taken from such values. Default: nothing looks suspicious.
   */
  suspiciousValue?: (field: string, value: JsonValue, type: string | null) => boolean;
  /**
   * Observable consistency of one whole response: fields that contradict each other (a total that does not add up,
   * a price outside the day's range, a cache's staleness warning), what a careful agent checks across a record's
   * fields. The discrete mode's features flag such responses and values taken from them. Default: none.
   */
  inconsistentResponse?: (response: JsonValue) => boolean;
  /**
   * The exact shape of the family's world (zod), checked by `setState` before a snapshot's world is used. Without
   * it, the world is only checked against the episode's initial world (see src/engine/stateSchema.ts).
   */
  worldSchema?: z.ZodType;
  /**
   * The exact shape of the family's runtime state (`getState().family`), checked by `setState` like `worldSchema`.
   * Without it, that state is only checked against the family's state right after the episode's setup.
   */
  familyStateSchema?: z.ZodType;
}

/** What a family-specific action (e.g. `retrieve`) did. */
export interface FamilyActionResult {
  response: JsonValue;
  events: EpisodeEvent[];
  terminal?: TerminationReason;
  success?: boolean;
}

/** A ToolEnv snapshot: plain JSON (see `ToolEnv.getState`). */
export interface ToolEnvState {
  kind: "recovery-gym/tool-env-state";
  /** Snapshot format version (TOOL_ENV_STATE_VERSION). */
  version: number;
  envId: string;
  options: JsonObject;
  rngPath: string;
  resetOptions: JsonObject;
  stepCount: number;
  done: boolean;
  data: JsonValue;
  faultRngs: JsonValue;
  reward: JsonValue;
  history: JsonValue;
  lastVisible: string[];
  lastSeed: number;
  unseededResets: number;
  family: JsonValue;
}

/**
 * `info` of a ToolEnv's `reset()`. Families add documented keys of their own (see `metadata.infoKeys`), hence the
 * index signature; the core keys are typed.
 */
export type ToolResetInfo = {
  taskId: string;
  step: number;
  /** Φ(s_0), or null when the family defines no potential. */
  phi: number | null;
  /** Full ground truth (only with option `hiddenInfo`, the default). */
  hidden?: JsonObject;
  [familyKey: string]: unknown;
};

/** `info` of a ToolEnv's `step()`: events, the reward breakdown, and on the final step why and how it ended. */
export type ToolStepInfo = {
  events: EpisodeEvent[];
  /** Weighted contribution of each reward term (sums to the reward). */
  rewardTerms: Record<string, number>;
  /** Raw, unweighted term signals; any RewardSpec can be recomputed from them. */
  rawTerms: RawTerms;
  /** Φ(s′) after the step, or null when the family defines none. */
  phi: number | null;
  taskId: string;
  step: number;
  /** Per-step annotations, or the full ground truth on the final step (with option `hiddenInfo`). */
  hidden?: JsonObject;
  /** Final step only: that step's own annotation (`hidden` then holds it merged into the full ground truth). */
  hiddenStep?: JsonObject;
  /** Final step only. */
  terminationReason?: TerminationReason;
  success?: boolean;
  metrics?: JsonObject;
  [familyKey: string]: unknown;
};

/** Info keys of every tool env. */
export const CORE_INFO_KEYS: Readonly<Record<string, string>> = {
  events: "typed events of this step (EpisodeEvent[])",
  rewardTerms: "weighted contribution of each reward term this step (sums to the reward)",
  rawTerms: "raw, unweighted term signals this step; any RewardSpec can be recomputed from them",
  phi: "potential Φ of the state after this step (null when the family defines none)",
  taskId: "identifier of the episode's task",
  step: "number of steps taken so far",
  hidden: "ground truth the agent must not see (reset and episode end: full; other steps: per-step annotations)",
  hiddenStep: "final step only: that step's own hidden annotation (info.hidden merges it into the full ground truth)",
  terminationReason: "why the episode ended (only on the final step)",
  success: "whether the episode was judged successful (only on the final step)",
  metrics: "per-episode values of the family's metrics (only on the final step)",
  episode: "RecordEpisodeStatistics: { r, l, t } at episode end",
};

type RewardState = ReturnType<RewardComputer["getState"]>;

/** The runtime's own fields of a `ToolEnvState` snapshot. */
export interface RuntimeSnapshot {
  rngPath: string;
  resetOptions: JsonObject;
  reward: RewardState;
  lastVisible: readonly string[];
  lastSeed: number;
  unseededResets: number;
}
