import { type EnvMetadata, type EnvSpec, Env, parseResetArgs, type ResetArgs, type StepResult } from "../core/env.js";
import { ActionError, ResetNeededError, StateError } from "../core/errors.js";
import { make } from "../core/registry.js";
import { cloneJson, type JsonObject, type JsonValue, stableStringify } from "../core/json.js";
import { Rng, type RngState } from "../core/rng.js";
import { ToolActionSpace } from "./actionSpace.js";
import { ToolCallSpace, type ToolSchema } from "../core/spaces/toolCall.js";
import type { Space } from "../core/spaces/space.js";
import { RewardComputer, type RawTerms } from "../rewards/compute.js";
import { resolveRewardSpec } from "../rewards/presets.js";
import type { RewardSpec } from "../rewards/spec.js";
import type { Action, FamilyAction, ToolCallAction } from "./actions.js";
import type { EpisodeEvent, TerminationReason } from "./events.js";
import { type CallRecord, type EpisodeData, ToolEpisode } from "./episode.js";
import { CORE_INFO_KEYS, type EpisodeSetup, type FamilyActionResult, type ToolEnvConfig, type ToolEnvOptions, type ToolEnvState, type ToolResetInfo, type ToolStepInfo } from "./toolEnvContract.js";

export { CORE_INFO_KEYS, toolEnvOptionsSchema, type EpisodeSetup, type FamilyActionResult, type ToolEnvConfig, type ToolEnvOptions, type ToolEnvState, type ToolResetInfo, type ToolStepInfo } from "./toolEnvContract.js";
import type { CorruptionFn } from "./faults.js";
import { type ToolObservation, toolObservationSpace } from "./observation.js";
import { renderEpisode, type HistoryEntry } from "./render.js";
import {
  type CheckedToolEnvState,
  checkStateAgainstEpisode,
  checkWorldSchema,
  checkWorldShape,
  parseToolEnvState,
  TOOL_ENV_STATE_VERSION,
} from "./stateSchema.js";
import { CORE_TERMS, coreRawTerms } from "./terms.js";
import { type ToolDefinition, toolSchemaOf } from "./tool.js";
import { type ObservableEpisode, projectEpisode } from "./discrete/source.js";

/**
 * The one tool-episode env. Families subclass it and supply the world (`createEpisode`), answer judging, family
 * events, metrics and an optional potential; the base class runs the call pipeline, budgets, events, rewards,
 * observations and the Gymnasium contract.
 */
export abstract class ToolEnv<S, O extends ToolEnvOptions = ToolEnvOptions> extends Env<ToolObservation, Action, ToolStepInfo, ToolResetInfo> {
  readonly observationSpace: Space<ToolObservation>;
  readonly actionSpace: ToolActionSpace;
  /** Calls valid against the tools visible now (a dynamic space, for samplers and validation). */
  readonly toolCallSpace: ToolCallSpace;
  readonly metadata: EnvMetadata;
  readonly rewardSpec: RewardSpec;
  readonly maxSteps: number;

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
  private budgets: { toolCalls: number | null; retries: number | null } = { toolCalls: null, retries: null };

  constructor(
    protected readonly config: ToolEnvConfig,
    protected readonly options: O,
    readonly spec: EnvSpec,
  ) {
    super();
    this.maxSteps = options.maxSteps ?? config.maxEpisodeSteps;
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

  // ---- hooks for families -------------------------------------------------------------------------------------

  /** Builds one episode's task, tools, world and faults from the episode's root stream. */
  protected abstract createEpisode(rng: Rng, options: JsonObject): EpisodeSetup<S>;
  /** Named corruption transforms that this family's fault specs refer to. */
  protected corruptions(): Readonly<Record<string, CorruptionFn<S>>> {
    return {};
  }
  /** Is this final answer correct? (null: the family judges nothing at answer time.) */
  protected judgeAnswer(_content: string): boolean {
    return false;
  }
  /** Is aborting a success here (e.g. an unsolvable task where stopping is the right call)? */
  protected judgeAbort(_reason: string | null): boolean {
    return false;
  }
  /** Family-specific actions (beyond tool_call / answer / abort). */
  protected onFamilyAction(action: FamilyAction): FamilyActionResult {
    return { response: { error: { code: "unsupported_action", message: `action type "${action.type}" is not supported` } }, events: [] };
  }
  /** Family events after a tool call (forbidden calls, progress annotations, staged disclosure...). */
  protected afterCall(_record: CallRecord, _events: EpisodeEvent[]): EpisodeEvent[] {
    return [];
  }
  /** Family raw reward terms of a step, added to the core ones. */
  protected familyRawTerms(_events: readonly EpisodeEvent[], _terminal: boolean, _success: boolean): RawTerms {
    return {};
  }
  /** Φ(s): minus the optimal number of calls still needed. Null: no potential. */
  protected potential(): number | null {
    return null;
  }
  /** Per-episode metric values, computed when the episode ends. */
  protected episodeMetrics(_success: boolean, _reason: TerminationReason): JsonObject {
    return {};
  }
  /**
   * Runs one tool call. The default is the engine's pipeline with the episode's call and retry budgets; a family
   * whose benchmark prescribes another order of validation and faults (ToolMisuseBench, PlanBench-XL) overrides
   * this one method and keeps everything else of `step` (events, rewards, info, termination).
   */
  protected handleToolCall(call: ToolCallAction, events: EpisodeEvent[]): { response: JsonValue; terminal?: TerminationReason; truncate?: boolean } {
    const episode = this.episode as ToolEpisode<S>;
    if (this.budgets.toolCalls !== null && episode.data.calls.length >= this.budgets.toolCalls) {
      events.push({ type: "budget_exceeded", budget: "tool_calls", limit: this.budgets.toolCalls });
      return { response: { error: { code: "budget_exceeded", message: `tool-call budget of ${this.budgets.toolCalls} exhausted` } }, terminal: "budget_exceeded" };
    }
    const { record, events: callEvents } = episode.call(call.name, call.arguments, this.stepCount);
    for (const e of callEvents) events.push(e);
    for (const e of this.afterCall(record, callEvents)) events.push(e);
    if (this.budgets.retries !== null && episode.data.retries > this.budgets.retries) {
      events.push({ type: "budget_exceeded", budget: "retries", limit: this.budgets.retries });
      return { response: record.response, terminal: "retry_exceeded" };
    }
    return { response: record.response };
  }
  /**
   * Success of an episode that ended without an answer or abort (budget, step limit, family termination). Null
   * keeps the default (not a success); benchmarks that judge the final state however the episode ended override it.
   */
  protected judgeAtEnd(_reason: TerminationReason): boolean | null {
    return null;
  }
  /** Small per-step ground-truth annotations for `info.hidden` (full ground truth comes at reset and end). */
  protected hiddenStepInfo(_events: readonly EpisodeEvent[], _ended: boolean): JsonObject | null {
    return null;
  }
  /** Whether a step's events make the episode end (beyond answer/abort/budgets). */
  protected extraTermination(_events: readonly EpisodeEvent[]): { reason: TerminationReason; success: boolean } | null {
    return null;
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
    this.episode = new ToolEpisode<S>({ tools: setup.tools, visible: setup.visible, world: setup.world, faults: setup.faults, corruptions: this.corruptions(), rng: this.rng.derive("engine"), valueProvenance: this.config.valueProvenance });
    this.budgets = { toolCalls: setup.budgets?.toolCalls ?? null, retries: setup.budgets?.retries ?? null };
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
    let terminal: TerminationReason | null = null;
    let success = false;
    let truncateNow = false;
    if (parsed === null) {
      response = { error: { code: "invalid_action", message: (events[0] as { message: string }).message } };
    } else if (parsed.type === "tool_call") {
      const r = this.handleToolCall(parsed as ToolCallAction, events);
      response = r.response;
      terminal = r.terminal ?? null;
      truncateNow = r.truncate === true;
    } else if (parsed.type === "answer") {
      const content = (parsed as { content: string }).content;
      success = this.judgeAnswer(content);
      events.push({ type: "answered", content, correct: success });
      terminal = "answered";
      response = null;
    } else if (parsed.type === "abort") {
      const reason = (parsed as { reason?: string }).reason ?? null;
      success = this.judgeAbort(reason);
      events.push({ type: "aborted", reason });
      terminal = "aborted";
    } else {
      const r = this.onFamilyAction(parsed as FamilyAction);
      events.push(...r.events);
      response = r.response;
      if (r.terminal) {
        terminal = r.terminal;
        success = r.success ?? false;
      }
    }
    if (terminal === null) {
      const extra = this.extraTermination(events);
      if (extra) {
        terminal = extra.reason;
        success = extra.success;
      }
    }
    const truncated = terminal === null && (truncateNow || this.stepCount >= this.maxSteps);
    const terminated = terminal !== null;
    const ended = terminated || truncated;
    if (ended && parsed?.type !== "answer" && parsed?.type !== "abort") success = this.judgeAtEnd(terminal ?? "max_steps") ?? success;
    if (success) events.push({ type: "success" });
    this.done = ended;
    const reason: TerminationReason | null = success ? "success" : (terminal ?? (truncated ? "max_steps" : null));
    const raw = coreRawTerms(events, ended, success);
    const family = this.familyRawTerms(events, ended, success);
    for (const k in family) raw[k] = (raw[k] ?? 0) + family[k];
    const phi = this.potential();
    const { reward, terms } = this.computer.step(raw, phi);
    this.history.push({ step: this.stepCount, action: parsed ?? (action as unknown as JsonValue as Action), response, events, reward });
    const info: ToolStepInfo = { events, rewardTerms: terms, rawTerms: raw, phi, taskId: this.setup.taskId, step: this.stepCount };
    if (this.options.hiddenInfo) {
      const stepHidden = this.hiddenStepInfo(events, ended);
      if (ended) {
        info.hidden = { ...(this.setup.hidden ?? {}), ...(stepHidden ?? {}) };
        // The merge above can hide the step's own annotation (keys equal to the ground truth's); keep it apart.
        if (stepHidden) info.hiddenStep = stepHidden;
      } else if (stepHidden) info.hidden = stepHidden;
    }
    if (ended) {
      const why = reason as TerminationReason; // set whenever the episode ended
      info.terminationReason = why;
      info.success = success;
      info.metrics = this.episodeMetrics(success, why);
    }
    return [this.observe(response), reward, terminated, truncated, info];
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
    return cloneJson({
      kind: "recovery-gym/tool-env-state",
      version: TOOL_ENV_STATE_VERSION,
      envId: this.spec.id,
      options: this.spec.entryOptions,
      rngPath: this.rng.path,
      resetOptions: this.resetOptions,
      stepCount: this.stepCount,
      done: this.done,
      data: this.episode.data as unknown as JsonValue,
      faultRngs: this.episode.rngStates() as unknown as JsonValue,
      reward: this.computer.getState() as unknown as JsonValue,
      history: this.history as unknown as JsonValue,
      lastVisible: this.lastVisible,
      lastSeed: this.lastSeed,
      unseededResets: this.unseededResets,
      family: this.familyState(),
    } as unknown as JsonObject) as unknown as ToolEnvState;
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
    const s = cloneJson(parseToolEnvState(state) as unknown as JsonObject) as unknown as CheckedToolEnvState;
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
    checkStateAgainstEpisode(s, setup.tools.map((t) => t.name), faultIds, engine, setup.world as unknown as JsonValue);
    if (this.config.worldSchema) checkWorldSchema(this.config.worldSchema, s.data.world);
    // createEpisode just set the family's runtime up for this episode: its snapshot is the reference shape.
    checkWorldShape(this.familyState(), s.family, "state.family");
    if (this.config.familyStateSchema) checkWorldSchema(this.config.familyStateSchema, s.family, "state.family");
    this.checkFamilyState(s);
    const { tools, visible, world, faults } = setup;
    const episode = new ToolEpisode<S>({ tools, visible, world, faults, corruptions: this.corruptions(), rng: engine, valueProvenance: this.config.valueProvenance });
    episode.data = s.data as unknown as EpisodeData<S>;
    episode.restoreRngStates(s.faultRngs as unknown as Record<string, RngState>);
    this.rng = rng;
    this.resetOptions = s.resetOptions;
    this.setup = setup;
    this.episode = episode;
    this.budgets = { toolCalls: setup.budgets?.toolCalls ?? null, retries: setup.budgets?.retries ?? null };
    this.computer.setState(s.reward);
    this.stepCount = s.stepCount;
    this.done = s.done;
    this.history = s.history as unknown as HistoryEntry[];
    this.lastVisible = s.lastVisible;
    this.lastSeed = s.lastSeed;
    this.unseededResets = s.unseededResets;
    this.restoreFamilyState(s.family);
  }

  /** The observation of the current state in full (every visible tool schema), e.g. after `setState`. */
  currentObservation(): ToolObservation {
    if (!this.episode || !this.setup) throw new StateError("state", "currentObservation() before reset()");
    const obs = this.observe(this.history.length ? this.history[this.history.length - 1].response : null);
    return { ...obs, newTools: this.visibleToolSchemas(), removedTools: [] };
  }

  /** A new, independent env continuing from this exact point (same id and options). */
  fork(): this {
    const copy = make(this.spec.id, this.spec.entryOptions) as unknown as this;
    copy.setState(this.getState());
    return copy;
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
      familyKinds: this.config.extraActionKinds ?? {}, step: this.stepCount, maxSteps: this.maxSteps, budgets: this.budgets,
      lastResponse: last, done: this.done,
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
    const calls = episode.data.calls.length;
    return {
      task: (this.setup as EpisodeSetup<S>).prompt,
      visibleTools: visible.slice(),
      newTools: newNames.map((n) => toolSchemaOf(episode.tools.get(n) as ToolDefinition<S>)),
      removedTools: removed,
      response,
      step: this.stepCount,
      budget: {
        steps: this.maxSteps - this.stepCount,
        toolCalls: this.budgets.toolCalls === null ? null : Math.max(0, this.budgets.toolCalls - calls),
        retries: this.budgets.retries === null ? null : Math.max(0, this.budgets.retries - episode.data.retries),
      },
    };
  }
}
