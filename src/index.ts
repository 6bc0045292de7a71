/**
 * Recovery Gym: Gymnasium-style RL environments for tool failure and recovery.
 * The package root exports the core API and registers the built-in families.
 */
export { Env, parseResetArgs, type EnvSpec, type EnvMetadata, type Info, type ResetArgs, type StepResult } from "./core/env.js";
export { Wrapper } from "./core/wrapper.js";
export * from "./core/errors.js";
export * from "./core/optionPaths.js";
export { Rng, hash32, type RngState } from "./core/rng.js";
export { type JsonValue, type JsonObject, stableStringify, jsonEquals, cloneJson } from "./core/json.js";
export { isTypedArray, type TypedArray, toJsonObject, toJsonValue } from "./core/json.js";
export { type JsonSchema, zodFromJsonSchema, sampleFromJsonSchema } from "./core/jsonSchema.js";
export * from "./core/spaces/index.js";
export {
  register,
  make,
  listEnvs,
  registryEntry,
  parseEnvOptions,
  registerMakeLayer,
  type MakeLayer,
  type EnvEntry,
  type EnvListing,
  type Policy,
  type PolicyEntry,
  type EpisodeResult,
  type AggregateReport,
} from "./core/registry.js";
export type { BreakdownTable } from "./core/registry.js";
export { checkEnv, CheckEnvError, type CheckEnvOptions } from "./checker.js";
export { episodeSteps, type EpisodeLoopOptions, type PlayedStep } from "./episodeLoop.js";
export { LIBRARY_VERSION } from "./core/version.js";

export * from "./engine/actions.js";
export { ToolActionSpace, type ActionKind } from "./engine/actionSpace.js";
export * from "./engine/events.js";
export {
  type ToolDefinition,
  type ToolMeta,
  type ToolOutcome,
  type ToolContext,
  type ToolErrorPayload,
  toolSchemaOf,
} from "./engine/tool.js";
export {
  type FaultSpec,
  type FaultTrigger,
  type FaultEffect,
  type FaultPersistence,
  type FaultState,
  type CorruptionFn,
  faultFires,
} from "./engine/faults.js";
export { type Taint, ValueProvenance } from "./engine/ledger.js";
export { ToolEpisode, type CallRecord, type EpisodeData, type CallResult } from "./engine/episode.js";
export {
  ToolEnv,
  toolEnvOptionsSchema,
  CORE_INFO_KEYS,
  type ToolEnvOptions,
  type EpisodeSetup,
  type ToolEnvConfig,
  type FamilyActionResult,
  type ToolStepInfo,
  type ToolResetInfo,
} from "./engine/toolEnv.js";
export type { ToolObservation, BudgetView } from "./engine/observation.js";
export { type HistoryEntry, renderEpisode } from "./engine/render.js";
export {
  toChatMessages,
  toChatTools,
  chatTurn,
  noToolCallMessage,
  ASSISTANT_TEXT_ACTION,
  DEFAULT_SYSTEM_PROMPT,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
} from "./engine/chat.js";
export { ChatEnv, ChatActionSpace, chatModeOptionsSchema, type ChatModeObservation, type ChatStepInfo } from "./engine/chat/mode.js";
export {
  CHAT_PARSERS,
  hermesParser,
  planbenchTagsParser,
  readAssistantTurn,
  type AssistantInput,
  type AssistantMessage,
  type ChatParser,
  type ChatItem,
} from "./engine/chat/parsers.js";
export { actionToolSchemas, CORE_ACTION_TOOLS } from "./engine/chat/tools.js";
export { CORE_TERMS } from "./engine/terms.js";
export type { TaskParameter, TaskRequest, ToolSemantics } from "./engine/parameters.js";
export {
  DiscreteToolEnv,
  MaskedDiscrete,
  DEFAULT_MAX_CANDIDATES,
  maskedSlotAction,
  type DiscreteObservation,
} from "./engine/discrete/mode.js";
export { candidates, type Candidate, type CandidateKind, type ValueSource } from "./engine/discrete/candidates.js";
export { GLOBAL_FEATURES, CANDIDATE_FEATURES, featureSize } from "./engine/discrete/features.js";

export { RewardComputer, recomputeRewards, discountedReturn, type RawTerms } from "./rewards/compute.js";
export { rewardSpecSchema, parseRewardSpec, loadRewardSpecFile, type RewardSpec, type RewardTerm } from "./rewards/spec.js";
export {
  CORE_TERM_KINDS,
  REWARD_TERM_KINDS,
  registerRewardTermKinds,
  rewardTermCatalog,
  type RewardTermCatalog,
  type RewardTermKind,
  type RewardTermKinds,
} from "./rewards/catalog.js";
export { resolveRewardSpec, listRewardPresets, CONFIGS_DIR } from "./rewards/presets.js";

export * from "./metrics/index.js";
export * from "./vector/index.js";
export {
  trajectorySchema,
  trajectoryStepSchema,
  TRAJECTORY_SCHEMA_VERSION,
  type Trajectory,
  type TrajectoryStep,
} from "./core/trajectory.js";
export { JsonlWriter, readTrajectories } from "./trajectories/writer.js";
export { rollout, rolloutAsync, type RolloutConfig, type RolloutControl } from "./rollout.js";
export { drainOnSignals, stopOnSignals, SIGNAL_EXIT_CODES, type StopSignal } from "./cli/signals.js";
export { type CommandSpec, type FlagKind, type ParsedArgs, parseArgs as parseCommandLine } from "./cli/args.js";
export {
  recordEpisodes,
  returnsUnder,
  policyEntry,
  episodePolicyRng,
  episodeResults,
  withGamma,
  type RecordedEpisode,
} from "./ablation.js";
export { ADVERSARIES } from "./policies/adversarial.js";
export { registerGenerator, listGenerators, type GeneratorEntry } from "./generators.js";

export * from "../wrappers/index.js";

import "../envs/index.js";
