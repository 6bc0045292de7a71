import { z } from "zod";
import type { JsonObject, JsonValue } from "../core/json.js";
import type { RawTerms } from "../rewards/compute.js";
import type { ActionKind } from "./actionSpace.js";
import type { EpisodeEvent, TerminationReason } from "./events.js";
import type { FaultSpec } from "./faults.js";
import type { TaskParameter } from "./parameters.js";
import type { ToolDefinition } from "./tool.js";

// The contracts between ToolEnv and the families that subclass it: options, what a family builds per episode,
// its static description, and the documented info keys and state snapshot.

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
  budgets?: { toolCalls?: number | null; retries?: number | null };
  /** Ground truth for `info.hidden` at reset and at the end of the episode. */
  hidden?: JsonObject;
  /** The task's structured parameters (observable: they restate the prompt), for the discrete action mode. */
  parameters?: readonly TaskParameter[];
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
  valueProvenance?: boolean;
  /**
   * Observable plausibility of a response value (a temperature below absolute zero, debug text, a date in the past):
   * what a careful agent can tell from the field's name, documented type and value alone, never from ground truth.
   * The discrete mode's features flag arguments taken from such values. Default: nothing looks suspicious.
   */
  suspiciousValue?: (field: string, value: JsonValue, type: string | null) => boolean;
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

