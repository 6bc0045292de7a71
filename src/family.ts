/**
 * The family entry module: everything a benchmark family (`envs/<family>/`) may use from the library, and the only
 * library module a family imports (.dependency-cruiser.cjs enforces it). It holds what the families use today;
 * widen it deliberately, one documented name at a time, when a family needs more.
 */

// Registration: envs, generators, reward-term kinds.
export { register, type AggregateReport, type EpisodeResult, type Policy, type PolicyEntry } from "./core/registry.js";
export { registerGenerator } from "./generators.js";
export { registerRewardTermKinds } from "./rewards/catalog.js";

// The tool-episode engine a family subclasses and plugs into.
export {
  ToolEnv,
  toolEnvOptionsSchema,
  type CallReport,
  type EpisodeEnd,
  type EpisodeSetup,
  type FamilyActionResult,
  type StepContext,
  type StepReport,
  type ToolResetInfo,
  type ToolStepInfo,
} from "./engine/toolEnv.js";
export type { Action, FamilyAction, ToolCallAction } from "./engine/actions.js";
export type { ToolDefinition, ToolErrorPayload, ToolOutcome } from "./engine/tool.js";
export type { TaskParameter, TaskRequest, ToolSemantics } from "./engine/parameters.js";
export type { ObservableEpisode, SeenAction } from "./engine/discrete/source.js";
export {
  faultFires,
  initialFaultState,
  type CorruptionFn,
  type FaultPersistence,
  type FaultSpec,
  type FaultState,
  type FaultTrigger,
} from "./engine/faults.js";
// A family types its own events by augmenting FamilyEventRegistry through this module (`declare module`).
export {
  eventsOfType,
  type EpisodeEvent,
  type FamilyEvent,
  type FamilyEventRegistry,
  type FaultPersistenceType,
  type RegisteredFamilyEvent,
  type TerminationReason,
} from "./engine/events.js";
export { recoveryPatterns, type PatternRules } from "./engine/patterns.js";
/** An empty array V8 allocates young, for per-episode lists (see src/engine/plainRecords.ts). */
export { youngArray } from "./engine/plainRecords.js";
export {
  ToolEpisode,
  type CallPipeline,
  type CallRecord,
  type FamilyFaultStage,
  type StageCall,
  type StageOutcome,
} from "./engine/episode.js";
export type { BudgetRules, EpisodeBudgets } from "./engine/budgets.js";
export type { ToolObservation } from "./engine/observation.js";
export type { HistoryEntry } from "./engine/render.js";
export type { ToolSchema } from "./core/spaces/toolCall.js";
export type { CheckedToolEnvState } from "./engine/stateSchema.js";
export { trustedSnapshotPart } from "./engine/stateSchema.js";

// Core contracts and utilities.
export type { Env, EnvSpec, Info, ResetArgs, StepResult } from "./core/env.js";
export { ActionError, ConfigError, OptionsError, ResetNeededError, StateError } from "./core/errors.js";
export {
  asJson,
  asJsonObject,
  cloneJson,
  isJsonObject,
  jsonEquals,
  stableStringify,
  toJsonObject,
  toJsonValue,
  type JsonObject,
  type JsonValue,
} from "./core/json.js";
export { FNV_OFFSET, FNV_PRIME, fnv1aUpdate, hash32, Rng, type RngState } from "./core/rng.js";
export type { Trajectory } from "./core/trajectory.js";
export { mean } from "./metrics/stats.js";

// Files: option paths go through the bridge's confinement; shipped presets live under CONFIGS_DIR.
export { readOptionFile, resolveOptionPath } from "./core/optionPaths.js";
export { CONFIGS_DIR } from "./core/paths.js";

// Bit-exact CPython `random`, for the official-compatibility modes.
export { bitLength, PyRandom, type PyRandomState, type PySeed } from "./compat/pyrandom.js";
