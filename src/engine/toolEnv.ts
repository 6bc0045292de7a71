import { type EnvMetadata, type EnvSpec, Env, parseResetArgs, type ResetArgs, type StepResult } from "../core/env.js";
import { ActionError, ResetNeededError, StateError } from "../core/errors.js";
import { make } from "../core/registry.js";
import { asJson, cloneJson, type JsonObject, type JsonValue, stableStringify, toJsonObject, toJsonValue } from "../core/json.js";
import { Rng } from "../core/rng.js";
import { ToolActionSpace } from "./actionSpace.js";
import { ToolCallSpace, type ToolSchema } from "../core/spaces/toolCall.js";
import type { Space } from "../core/spaces/space.js";
import { RewardComputer } from "../rewards/compute.js";
import { resolveRewardSpec } from "../rewards/presets.js";
import type { RewardSpec } from "../rewards/spec.js";
import type { Action, FamilyAction, ToolCallAction } from "./actions.js";
import type { EpisodeEvent, TerminationReason } from "./events.js";
import { episodeStepLimit, remainingBudgets } from "./budgets.js";
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
  type ToolEnvState,
  type ToolResetInfo,
  type ToolStepInfo,
} from "./toolEnvContract.js";

export {
  type CallReport,
  CORE_INFO_KEYS,
  type EpisodeEnd,
  type EpisodeSetup,
  type FamilyActionResult,
  type StepContext,
  type StepReport,
  toolEnvOptionsSchema,
  type ToolEnvConfig,
  type ToolEnvOptions,
  type ToolEnvState,
  type ToolResetInfo,
  type ToolStepInfo,
} from "./toolEnvContract.js";
import { type ToolObservation, toolObservationSpace } from "./observation.js";
import { renderEpisode, type HistoryEntry } from "./render.js";
import {
  type CheckedToolEnvState,
  checkStateAgainstEpisode,
  checkWorldSchema,
  checkWorldShape,
  parseToolEnvState,
  TOOL_ENV_STATE_VERSION,
  trustedSnapshotPart,
} from "./stateSchema.js";
import { CORE_TERMS, coreRawTerms } from "./terms.js";
import { type ToolDefinition, toolSchemaOf } from "./tool.js";
import { type ObservableEpisode, projectEpisode } from "./discrete/source.js";

// The default hooks' answers, shared: they run on every call / step and the engine only reads them.
const NO_CALL_REPORT: CallReport = Object.freeze({});
const NO_STEP_REPORT: StepReport = Object.freeze({});

/** `info.terminationReason` of an episode that ended without success. */
function reasonOf(end: EpisodeEnd): TerminationReason {
  return end.kind === "answer" ? "answered" : end.kind === "abort" ? "aborted" : end.reason;
}

/**
 * The one tool-episode env. Families subclass it and supply the episode (`createEpisode`), their events per call
 * (`onCall`), judging (`judge`), reward terms and hidden annotations per step (`stepReport`), metrics and an
 * optional potential (the contract: toolEnvContract.ts); the base class runs the call pipeline, budgets, events,
 * rewards, observations and the Gymnasium contract.
 */
export abstract class ToolEnv<S, O extends ToolEnvOptions = ToolEnvOptions> extends Env<
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
  private stepLimit: number;

  protected episode: ToolEpisode<S> | null = null;
  protected setup: EpisodeSetup<S> | null = null;
  protected rng: Rng = new Rng(0);
  protected stepCount = 0;
  protected done = false;
  protected history: HistoryEntry[] = [];
  private readonly computer: RewardComputer;
  private lastSeed = 0;
  private resetOptions: JsonObject = {};
  private unseededResets = 0;
  private lastVisible: string[] = [];

  constructor(
    protected readonly config: ToolEnvConfig,
    protected readonly options: O,
    readonly spec: EnvSpec,
  ) {
    super();
    this.maxSteps = options.maxSteps ?? config.maxEpisodeSteps;
    this.stepLimit = this.maxSteps;
    this.toolCallSpace = new ToolCallSpace(() => (this.episode ? this.episode.visibleToolsView() : []));
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

  /** Runs one tool call through the engine's pipeline (budgets included), then the family's `onCall`. */
  private toolCall(call: ToolCallAction, events: EpisodeEvent[]): { response: JsonValue; end: CallReport["end"] | null } {
    const r = (this.episode as ToolEpisode<S>).call(call.name, call.arguments, this.stepCount);
    for (const e of r.events) events.push(e);
    let end: CallReport["end"] | null = null;
    if (r.record) {
      const report = this.onCall(r.record, r.events);
      if (report.events) for (const e of report.events) events.push(e);
      if (report.end) end = report.end;
    }
    if (r.end !== null) {
      events.push(r.end.event);
      if (end === null) end = { reason: r.end.reason, success: false };
    }
    return { response: r.response, end };
  }

  // ---- Gymnasium API ------------------------------------------------------------------------------------------

  /**
   * Starts an episode. With a seed, the episode is a pure function of (options, seed, actions); without one, the
   * env continues a deterministic sequence from the last seed given (0 if none), so unseeded runs still replay.
   */
  reset(resetArgs: ResetArgs = {}): [ToolObservation, ToolResetInfo] {
    const args = parseResetArgs(resetArgs);
    if (args.seed !== undefined) {
      this.lastSeed = args.seed;
      this.unseededResets = 0;
      this.rng = new Rng(args.seed);
    } else {
      this.unseededResets += 1;
      this.rng = new Rng(this.lastSeed).derive(`next:${this.unseededResets}`);
    }
    this.resetOptions = args.options ?? {};
    const setup = this.createEpisode(this.rng, this.resetOptions);
    this.setup = setup;
    this.episode = this.newEpisode(setup, this.rng.derive("engine"));
    this.stepCount = 0;
    this.done = false;
    this.history = [];
    this.lastVisible = [];
    const phi = this.potential();
    this.computer.reset(phi);
    const info: ToolResetInfo = { taskId: setup.taskId, step: 0, phi };
    if (this.options.hiddenInfo) info.hidden = setup.hidden ?? {};
    return [this.observe(null), info];
  }

  /** The parse of the action last passed to `checkAction`, reused by the `step` that follows (no double parse). */
  private checked: { action: unknown; parsed: Action } | null = null;

  override checkAction(action: Action): void {
    // With `invalidAction: "penalize"` a malformed action is an in-episode event, never an error.
    if (this.options.invalidAction === "raise") this.checked = { action, parsed: this.actionSpace.parse(action) };
  }

  step(action: Action): StepResult<ToolObservation, ToolStepInfo> {
    if (!this.episode || !this.setup) throw new ResetNeededError("step() called before reset()");
    if (this.done) throw new ResetNeededError("step() called after the episode ended; call reset() first");
    let parsed: Action | null = null;
    const events: EpisodeEvent[] = [];
    const checked = this.checked;
    this.checked = null;
    try {
      parsed = checked !== null && checked.action === action ? checked.parsed : this.actionSpace.parse(action);
    } catch (e) {
      if (this.options.invalidAction === "raise" || !(e instanceof ActionError)) throw e;
      events.push({ type: "invalid_action", field: e.field, message: e.message });
    }
    this.stepCount += 1;
    let response: JsonValue = null;
    let end: EpisodeEnd | null = null;
    let success = false;
    if (parsed === null) {
      response = { error: { code: "invalid_action", message: (events[0] as { message: string }).message } };
    } else if (parsed.type === "tool_call" && this.config.familyToolCalls !== true) {
      const r = this.toolCall(parsed as ToolCallAction, events);
      response = r.response;
      if (r.end) end = { kind: "limit", reason: r.end.reason, success: r.end.success };
    } else if (parsed.type === "answer") {
      const content = (parsed as { content: string }).content;
      const answer: EpisodeEnd = { kind: "answer", content };
      end = answer;
      success = this.judge(answer) ?? false;
      events.push({ type: "answered", content, correct: success });
      response = null;
    } else if (parsed.type === "abort") {
      const reason = (parsed as { reason?: string }).reason ?? null;
      const abort: EpisodeEnd = { kind: "abort", reason };
      end = abort;
      success = this.judge(abort) ?? false;
      events.push({ type: "aborted", reason });
    } else {
      const r = this.onFamilyAction(parsed as FamilyAction);
      events.push(...r.events);
      response = r.response;
      if (r.terminal) end = { kind: "limit", reason: r.terminal, success: r.success ?? false };
    }
    const terminated = end !== null;
    const truncated = !terminated && this.stepCount >= episodeStepLimit(this.stepLimit, (this.episode as ToolEpisode<S>).budgets);
    if (truncated) end = { kind: "limit", reason: "max_steps", success: false };
    const ended = end !== null;
    if (end !== null && end.kind === "limit") success = this.judge(end) ?? end.success;
    if (success) events.push({ type: "success" });
    this.done = ended;
    const reason: TerminationReason | null = success ? "success" : end === null ? null : reasonOf(end);
    const raw = coreRawTerms(events, ended, success);
    const report = this.stepReport({ events, ended, success, end, hidden: this.options.hiddenInfo });
    const family = report.rawTerms;
    if (family) for (const k in family) raw[k] = (raw[k] ?? 0) + family[k];
    const phi = this.potential();
    const { reward, terms } = this.computer.step(raw, phi);
    this.history.push({ step: this.stepCount, action: parsed ?? action, response, events, reward });
    const info: ToolStepInfo = { events, rewardTerms: terms, rawTerms: raw, phi, taskId: this.setup.taskId, step: this.stepCount };
    if (this.options.hiddenInfo) {
      const stepHidden = report.hidden ?? null;
      if (ended) {
        info.hidden = { ...(this.setup.hidden ?? {}), ...(stepHidden ?? {}) };
        // The merge above can hide the step's own annotation (keys equal to the ground truth's); keep it apart.
        if (stepHidden) info.hiddenStep = stepHidden;
      } else if (stepHidden) info.hidden = stepHidden;
    }
    if (end !== null) {
      const why = reason as TerminationReason; // set whenever the episode ended
      info.terminationReason = why;
      info.success = success;
      info.metrics = this.episodeMetrics(success, why, end);
    }
    return [this.observe(response), reward, terminated, truncated, info];
  }

  override limitEpisodeSteps(maxSteps: number): boolean {
    this.stepLimit = Math.min(this.stepLimit, maxSteps);
    return true;
  }

  override render(): string {
    if (!this.setup) return "(no episode: call reset())";
    return renderEpisode(this.spec.id, this.setup.taskId, this.setup.prompt, this.history, this.done);
  }

  // ---- counterfactual replay --------------------------------------------------------------------------------

  /** Family state not held in EpisodeData nor rebuilt by createEpisode (override both hooks together). */
  protected familyState(): JsonValue {
    return null;
  }
  protected restoreFamilyState(_state: JsonValue): void {}
  /**
   * Checks a snapshot's family state against the episode just rebuilt from it (tool names that must exist, counts
   * that must agree) before anything is restored; throws a StateError naming the field. Default: nothing more.
   */
  protected checkFamilyState(_state: CheckedToolEnvState): void {}

  /**
   * A serialisable snapshot of the episode (plain JSON): world, visible tools, calls, fault and RNG states, reward
   * progress, history. `setState` on any env made with the same id and options continues it exactly.
   */
  getState(): ToolEnvState {
    if (!this.episode || !this.setup) throw new StateError("state", "getState() before reset()");
    return {
      kind: "recovery-gym/tool-env-state",
      version: TOOL_ENV_STATE_VERSION,
      envId: this.spec.id,
      options: toJsonObject(this.spec.entryOptions, "state.options"),
      rngPath: this.rng.path,
      resetOptions: cloneJson(this.resetOptions),
      stepCount: this.stepCount,
      done: this.done,
      // The world type S is the family's own: whether it is JSON data is checked here, at run time.
      data: toJsonValue(this.episode.data, "state.data"),
      faultRngs: asJson(this.episode.rngStates()),
      reward: asJson(this.computer.getState()),
      history: toJsonValue(this.history, "state.history"),
      lastVisible: [...this.lastVisible],
      lastSeed: this.lastSeed,
      unseededResets: this.unseededResets,
      family: cloneJson(this.familyState()),
    };
  }

  /**
   * Continues the episode a `getState()` snapshot describes. The snapshot is validated first (schema, env id,
   * options, tools, faults, world shape: see stateSchema.ts) and applied atomically: a refused or failing state
   * leaves the env exactly as it was.
   */
  setState(state: ToolEnvState): void {
    if (!state || (state as { kind?: unknown }).kind !== "recovery-gym/tool-env-state") {
      throw new StateError("state", "not a tool-env state (missing kind)");
    }
    // zod's output is a fresh copy: nothing of the caller's snapshot is shared with the env.
    const s = parseToolEnvState(state);
    if (s.envId !== this.spec.id) throw new StateError("state.envId", `state belongs to ${s.envId}, this env is ${this.spec.id}`);
    if (stableStringify(s.options) !== stableStringify(this.spec.entryOptions)) {
      throw new StateError("state.options", "state was made with different env options");
    }
    const before = this.episode && this.setup ? this.getState() : null;
    try {
      this.applyState(s);
    } catch (e) {
      if (before) this.applyState(parseToolEnvState(before));
      else {
        this.episode = null;
        this.setup = null;
      }
      if (e instanceof StateError) throw e;
      throw new StateError("state", `state could not be restored (${(e as Error).message}); the env is unchanged`);
    }
  }

  private applyState(s: CheckedToolEnvState): void {
    const rng = new Rng(s.rngPath);
    const setup = this.createEpisode(rng, s.resetOptions);
    const engine = rng.derive("engine");
    const faultIds = (setup.faults ?? []).map((f) => f.id);
    checkStateAgainstEpisode(
      s,
      setup.tools.map((t) => t.name),
      faultIds,
      engine,
      toJsonValue(setup.world, "world"),
    );
    if (this.config.worldSchema) checkWorldSchema(this.config.worldSchema, s.data.world);
    // createEpisode just set the family's runtime up for this episode: its snapshot is the reference shape.
    checkWorldShape(this.familyState(), s.family, "state.family");
    if (this.config.familyStateSchema) checkWorldSchema(this.config.familyStateSchema, s.family, "state.family");
    this.checkFamilyState(s);
    const episode = this.newEpisode(setup, engine);
    episode.data = { ...s.data, world: trustedSnapshotPart<S>(s.data.world) };
    episode.restoreRngStates(s.faultRngs);
    this.rng = rng;
    this.resetOptions = s.resetOptions;
    this.setup = setup;
    this.episode = episode;
    this.computer.setState(s.reward);
    this.stepCount = s.stepCount;
    this.done = s.done;
    this.history = s.history.map((h) => ({
      ...h,
      action: trustedSnapshotPart<Action>(h.action),
      events: trustedSnapshotPart<EpisodeEvent[]>(h.events),
    }));
    this.lastVisible = s.lastVisible;
    this.lastSeed = s.lastSeed;
    this.unseededResets = s.unseededResets;
    this.restoreFamilyState(s.family);
  }

  private newEpisode(setup: EpisodeSetup<S>, rng: Rng): ToolEpisode<S> {
    const { tools, visible, world, faults, budgets, pipeline } = setup;
    const { corruptions } = setup;
    const { valueProvenance } = this.config;
    return new ToolEpisode<S>({ tools, visible, world, faults, corruptions, rng, valueProvenance, budgets, pipeline });
  }

  /** The observation of the current state in full (every visible tool schema), e.g. after `setState`. */
  currentObservation(): ToolObservation {
    if (!this.episode || !this.setup) throw new StateError("state", "currentObservation() before reset()");
    const obs = this.observe(this.history.length ? this.history[this.history.length - 1].response : null);
    return { ...obs, newTools: this.visibleToolSchemas(), removedTools: [] };
  }

  /** A new, independent env continuing from this exact point (same id and options). */
  fork(): this {
    const copy = make(this.spec.id, this.spec.entryOptions);
    if (!this.isSameKind(copy)) throw new StateError("state", `make("${this.spec.id}") did not build a ${this.constructor.name}`);
    copy.setState(this.getState());
    return copy;
  }

  private isSameKind(env: unknown): env is this {
    return typeof env === "object" && env !== null && Object.getPrototypeOf(env) === Object.getPrototypeOf(this);
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
  /** The episode's steps so far (actions, responses, events, rewards), for chat rendering and recorders. */
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
      familyKinds: this.config.extraActionKinds ?? {},
      step: this.stepCount,
      maxSteps: this.maxSteps,
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
    const visible = episode.data.visible;
    const prev = this.lastVisible;
    let newNames: string[] = [];
    let removed: string[] = [];
    // Fast path: the visible set rarely changes between steps.
    let changed = prev.length !== visible.length;
    for (let i = 0; i < visible.length && !changed; i++) changed = prev[i] !== visible[i];
    if (changed) {
      const before = new Set(prev);
      const now = new Set(visible);
      newNames = visible.filter((n) => !before.has(n));
      removed = prev.filter((n) => !now.has(n));
      this.lastVisible = visible.slice();
    }
    return {
      task: (this.setup as EpisodeSetup<S>).prompt,
      visibleTools: visible.slice(),
      newTools: newNames.map((n) => toolSchemaOf(episode.tools.get(n) as ToolDefinition<S>)),
      removedTools: removed,
      response,
      step: this.stepCount,
      budget: remainingBudgets(episode.budgets, this.maxSteps, this.stepCount, episode.data.calls.length, episode.data.retries),
    };
  }
}
