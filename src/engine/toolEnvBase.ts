/**
 * What a tool env is before it runs: its configuration (spaces, metadata, reward spec), the episode state its layers
 * share, the family hooks with their defaults, and the read-only views families, wrappers and baselines use.
 * toolEnvRuntime.ts runs reset and step on top of it; toolEnv.ts adds snapshots and counterfactual replay.
 */
import { type EnvMetadata, type EnvSpec, Env } from "../core/env.js";
import type { JsonObject, JsonValue } from "../core/json.js";
import { Rng } from "../core/rng.js";
import { ToolActionSpace } from "./actionSpace.js";
import { ToolCallSpace, type ToolSchema } from "../core/spaces/toolCall.js";
import type { Space } from "../core/spaces/space.js";
import { RewardComputer } from "../rewards/compute.js";
import { resolveRewardSpec } from "../rewards/presets.js";
import type { RewardSpec } from "../rewards/spec.js";
import type { Action, FamilyAction } from "./actions.js";
import type { EpisodeEvent, TerminationReason } from "./events.js";
import { remainingBudgets } from "./budgets.js";
import { type CallRecord, ToolEpisode } from "./episode.js";
import {
  type CallReport,
  CORE_INFO_KEYS,
  type EpisodeEnd,
  type EpisodeSetup,
  type FamilyActionResult,
  type StepContext,
  type StepReport,
  type ToolEnvConfig,
  type ToolEnvOptions,
  type ToolResetInfo,
  type ToolStepInfo,
} from "./toolEnvContract.js";

import { type ToolObservation, toolObservationSpace } from "./observation.js";
import { renderEpisode, type HistoryEntry } from "./render.js";
import { CORE_TERMS } from "./terms.js";
import { toolSchemaOf } from "./tool.js";
import { NO_TOOLS, ObservationLists } from "./observationLists.js";
import { type ObservableEpisode, projectEpisode } from "./discrete/source.js";
import { EpisodeConfigOf, Observation } from "./plainRecords.js";

// The default hooks' answers, shared: they run on every call / step and the engine only reads them.
const NO_CALL_REPORT: CallReport = Object.freeze({});
const NO_STEP_REPORT: StepReport = Object.freeze({});

/**
 * The shared part of the tool-episode env (see the header). Families subclass `ToolEnv` (toolEnv.ts), never this
 * class: its layers are split by concern only.
 */
export abstract class ToolEnvBase<S, O extends ToolEnvOptions = ToolEnvOptions> extends Env<
  ToolObservation,
  Action,
  ToolStepInfo,
  ToolResetInfo
> {
  readonly observationSpace: Space<ToolObservation>;
  readonly actionSpace: ToolActionSpace;
  /** Calls valid against the tools visible now (a dynamic space, for samplers and validation). */
  readonly toolCallSpace: ToolCallSpace;
  readonly metadata: EnvMetadata;
  readonly rewardSpec: RewardSpec;
  readonly maxSteps: number;
  /** Where episodes truncate: maxSteps, or an outer TimeLimit's lower limit (`limitEpisodeSteps`). */
  protected stepLimit: number;

  protected episode: ToolEpisode<S> | null = null;
  protected setup: EpisodeSetup<S> | null = null;
  protected rng: Rng = new Rng(0);
  protected stepCount = 0;
  protected done = false;
  protected history: HistoryEntry[] = [];
  protected readonly computer: RewardComputer;
  /** The tool lists of the last observation (see observationLists.ts). */
  protected readonly lists = new ObservationLists<S>();

  constructor(
    protected readonly config: ToolEnvConfig,
    protected readonly options: O,
    readonly spec: EnvSpec,
  ) {
    super();
    this.maxSteps = options.maxSteps ?? config.maxEpisodeSteps;
    this.stepLimit = this.maxSteps;
    this.toolCallSpace = new ToolCallSpace(() => this.toolsNow());
    this.actionSpace = new ToolActionSpace(this.toolCallSpace, { ...(config.extraActionKinds ?? {}) }, undefined, config.normalizeAction);
    this.observationSpace = toolObservationSpace(this.maxSteps);
    this.rewardSpec = resolveRewardSpec(options.reward as string | object, config.family, this.knownTerms());
    this.computer = new RewardComputer(this.rewardSpec);
    this.metadata = {
      renderModes: ["ansi"],
      family: config.family,
      infoKeys: { ...CORE_INFO_KEYS, ...(config.familyInfoKeys ?? {}) },
      familyEventTypes: config.familyEventTypes ?? [],
      rewardTerms: { ...CORE_TERMS, ...(config.familyTerms ?? {}) },
    };
  }

  knownTerms(): string[] {
    return [...Object.keys(CORE_TERMS), ...Object.keys(this.config.familyTerms ?? {})];
  }

  // ---- hooks for families (the contract: src/engine/toolEnvContract.ts) ------------------------------------

  /** Builds one episode's task, tools, world, faults, budgets and pipeline options from the episode's root stream. */
  protected abstract createEpisode(rng: Rng, options: JsonObject): EpisodeSetup<S>;
  /** The family's events after a recorded tool call, and whether its own rules end the episode there. */
  protected onCall(_record: CallRecord, _events: readonly EpisodeEvent[]): CallReport {
    return NO_CALL_REPORT;
  }
  /** Family-specific actions (beyond tool_call / answer / abort). */
  protected onFamilyAction(action: FamilyAction): FamilyActionResult {
    return { response: { error: { code: "unsupported_action", message: `action type "${action.type}" is not supported` } }, events: [] };
  }
  /**
   * Success of the episode, once, when it ends. Default: an answer or an abort is not a success; any other end
   * keeps the verdict it came with (`end.success`).
   */
  protected judge(_end: EpisodeEnd): boolean | null {
    return null;
  }
  /** The family's raw reward terms of a step (added to the core ones) and its `info.hidden` annotation. */
  protected stepReport(_step: StepContext): StepReport {
    return NO_STEP_REPORT;
  }
  /** Φ(s): minus the optimal number of calls still needed. Null: no potential. */
  protected potential(): number | null {
    return null;
  }
  /** Per-episode metric values, computed when the episode ends. */
  protected episodeMetrics(_success: boolean, _reason: TerminationReason, _end: EpisodeEnd): JsonObject {
    return {};
  }

  private toolsNow(): readonly ToolSchema[] {
    return this.episode === null ? NO_TOOLS : this.lists.toolsOf(this.episode);
  }

  override render(): string {
    if (!this.setup) return "(no episode: call reset())";
    return renderEpisode(this.spec.id, this.setup.taskId, this.setup.prompt, this.history, this.done);
  }

  /** The engine's episode for a family's setup (reset, and the replay layer's setState). */
  protected newEpisode(setup: EpisodeSetup<S>, rng: Rng): ToolEpisode<S> {
    const { tools, visible, world, faults, budgets, pipeline } = setup;
    const { corruptions } = setup;
    const { valueProvenance } = this.config;
    // A class, not a literal: a pretenured config kept the new episode's world alive a scavenge longer (plainRecords.ts).
    return new ToolEpisode<S>(new EpisodeConfigOf(tools, visible, world, faults, corruptions, rng, valueProvenance, budgets, pipeline));
  }

  // ---- helpers for families, wrappers and baselines -----------------------------------------------------------

  /** Schemas of the tools visible now. */
  visibleToolSchemas(): ToolSchema[] {
    return this.episode ? this.episode.visibleTools().map(toolSchemaOf) : [];
  }
  /** Every event of the episode's finished steps, in order (derived from the history, so never out of sync). */
  protected episodeEvents(): EpisodeEvent[] {
    return this.history.flatMap((h) => h.events);
  }
  /**
   * The episode's steps so far (actions, responses, events, rewards), for chat rendering and recorders. A tool call's
   * action is the parsed action with the episode's own copy of its arguments (the call record's), never the object
   * passed to `step`: changing that object after the step leaves the history as it was.
   */
  episodeHistory(): readonly HistoryEntry[] {
    return this.history;
  }
  /** What an agent has observed of the episode (no ground truth), for the discrete action mode; null before reset. */
  observableEpisode(): ObservableEpisode | null {
    if (!this.episode || !this.setup) return null;
    const last = this.history.length ? this.history[this.history.length - 1].response : null;
    return projectEpisode({
      parameters: this.setup.parameters,
      visible: this.episode.visibleToolsView(),
      definitions: this.episode.tools,
      history: this.history,
      callCount: this.episode.data.calls.length,
      suspicious: this.config.suspiciousValue,
      inconsistent: this.config.inconsistentResponse,
      familyKinds: this.config.extraActionKinds ?? {},
      step: this.stepCount,
      maxSteps: this.stepLimit,
      budgets: this.episode.budgets,
      lastResponse: last,
      done: this.done,
    });
  }
  taskPrompt(): string {
    return this.setup?.prompt ?? "";
  }
  isDone(): boolean {
    return this.done;
  }

  protected observe(response: JsonValue): ToolObservation {
    const episode = this.episode as ToolEpisode<S>;
    const lists = this.lists;
    lists.update(episode.data.visible, episode.tools);
    const budget = remainingBudgets(episode.budgets, this.stepLimit, this.stepCount, episode.data.calls.length, episode.data.retries);
    return new Observation(
      (this.setup as EpisodeSetup<S>).prompt,
      lists.lastVisible,
      lists.newTools,
      lists.removed,
      response,
      this.stepCount,
      budget,
    );
  }
}
