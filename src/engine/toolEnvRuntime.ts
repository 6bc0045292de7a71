/**
 * The running part of the tool-episode env: reset (seeding) and step (the call pipeline, budgets, events, rewards,
 * observations and the Gymnasium contract) over the state and hooks of toolEnvBase.ts.
 */
import { parseResetArgs, type ResetArgs, type StepResult } from "../core/env.js";
import { ActionError, ResetNeededError } from "../core/errors.js";
import type { JsonObject, JsonValue } from "../core/json.js";
import { Rng } from "../core/rng.js";
import type { Action, FamilyAction, ToolCallAction } from "./actions.js";
import type { EpisodeEvent, TerminationReason } from "./events.js";
import { episodeStepLimit } from "./budgets.js";
import type { ToolEpisode } from "./episode.js";
import type { CallReport, EpisodeEnd, ToolEnvOptions, RuntimeSnapshot, ToolResetInfo, ToolStepInfo } from "./toolEnvContract.js";

import type { ToolObservation } from "./observation.js";
import { coreRawTerms } from "./terms.js";
import { NO_NAMES } from "./observationLists.js";
import { withKeys } from "../core/objects.js";
import { HistoryRecord, ResetInfoOf, StepInfo, youngArray, youngArray5, youngPair } from "./plainRecords.js";
import { ToolEnvBase } from "./toolEnvBase.js";

// The snapshot contract lives with the others; `RuntimeSnapshot` keeps its import path.
export type { RuntimeSnapshot } from "./toolEnvContract.js";

/** `info.terminationReason` of an episode that ended without success. */
function reasonOf(end: EpisodeEnd): TerminationReason {
  return end.kind === "answer" ? "answered" : end.kind === "abort" ? "aborted" : end.reason;
}

/**
 * Reset and step of the tool-episode env. Families subclass `ToolEnv` (toolEnv.ts), which adds snapshots and
 * counterfactual replay on top of this class.
 */
export abstract class ToolEnvRuntime<S, O extends ToolEnvOptions = ToolEnvOptions> extends ToolEnvBase<S, O> {
  private lastSeed = 0;
  private resetOptions: JsonObject = {};
  private unseededResets = 0;

  /** What `toolCall` returns: one object per env, refilled per call and read by `step` right away. */
  private readonly callOutcome: { response: JsonValue; end: CallReport["end"] | null; events: EpisodeEvent[] } = {
    response: null,
    end: null,
    events: [],
  };

  /** Runs one tool call through the engine's pipeline (budgets included), then the family's `onCall`. */
  private toolCall(call: ToolCallAction): { response: JsonValue; end: CallReport["end"] | null; events: EpisodeEvent[] } {
    const r = (this.episode as ToolEpisode<S>).call(call.name, call.arguments, this.stepCount);
    // The step history keeps the parsed action (the env's own object, made by the parse) until the episode ends: it
    // holds the episode's copy of the arguments rather than the caller's, which then dies young instead of being
    // copied by every scavenge, and a caller reusing its arguments object cannot rewrite the history.
    if (r.arguments !== null) call.arguments = r.arguments;
    // The step's events are the call's own list (a parsed action has no step event before it): the family's onCall
    // below reads it first; nothing else holds it.
    const events = r.events;
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
    const out = this.callOutcome;
    out.response = r.response;
    out.end = end;
    out.events = events;
    return out;
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
    // Not a literal: see plainRecords.ts (a pretenured history kept a finished episode's steps alive).
    this.history = youngArray();
    this.lists.lastVisible = NO_NAMES;
    const phi = this.potential();
    this.computer.reset(phi);
    const info: ToolResetInfo = new ResetInfoOf(setup.taskId, 0, phi);
    if (this.options.hiddenInfo) info.hidden = setup.hidden ?? {};
    return youngPair(this.observe(null), info);
  }

  /** The action last passed to `checkAction` and its parse, reused by the `step` that follows (no double parse). */
  private checkedAction: unknown = undefined;
  private checkedParse: Action | null = null;

  override checkAction(action: Action): void {
    // With `invalidAction: "penalize"` a malformed action is an in-episode event, never an error.
    if (this.options.invalidAction !== "raise") return;
    this.checkedParse = null; // a throwing parse leaves nothing to reuse
    this.checkedParse = this.actionSpace.parse(action);
    this.checkedAction = action;
  }

  step(action: Action): StepResult<ToolObservation, ToolStepInfo> {
    if (!this.episode || !this.setup) throw new ResetNeededError("step() called before reset()");
    if (this.done) throw new ResetNeededError("step() called after the episode ended; call reset() first");
    let parsed: Action | null = null;
    let invalid: ActionError | null = null;
    const checked = this.checkedParse;
    this.checkedParse = null;
    try {
      const reuse = checked !== null && this.checkedAction === action;
      this.checkedAction = undefined;
      parsed = reuse ? checked : this.actionSpace.parse(action);
    } catch (e) {
      if (this.options.invalidAction === "raise" || !(e instanceof ActionError)) throw e;
      invalid = e;
    }
    this.stepCount += 1;
    let response: JsonValue = null;
    let end: EpisodeEnd | null = null;
    let success = false;
    // A tool call's step events are the call's own list (no empty list is made first to be dropped).
    let events: EpisodeEvent[];
    if (parsed === null) {
      const { field, message } = invalid as ActionError;
      events = [{ type: "invalid_action", field, message }];
      response = { error: { code: "invalid_action", message } };
    } else if (parsed.type === "tool_call" && this.config.familyToolCalls !== true) {
      const r = this.toolCall(parsed as ToolCallAction);
      events = r.events;
      response = r.response;
      if (r.end) end = { kind: "limit", reason: r.end.reason, success: r.end.success };
    } else if (parsed.type === "answer") {
      events = [];
      const content = (parsed as { content: string }).content;
      const answer: EpisodeEnd = { kind: "answer", content };
      end = answer;
      success = this.judge(answer) ?? false;
      events.push({ type: "answered", content, correct: success });
      response = null;
    } else if (parsed.type === "abort") {
      events = [];
      const reason = (parsed as { reason?: string }).reason ?? null;
      const abort: EpisodeEnd = { kind: "abort", reason };
      end = abort;
      success = this.judge(abort) ?? false;
      events.push({ type: "aborted", reason });
    } else {
      events = [];
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
    // The list lives in the history until the episode ends; one grown by push carries up to 16 spare slots that
    // every scavenge would copy. An exact copy (the grown one dies young) is what the step hands out and keeps.
    if (events.length > 1) events = events.slice();
    this.done = ended;
    const reason: TerminationReason | null = success ? "success" : end === null ? null : reasonOf(end);
    const raw = coreRawTerms(events, ended, success);
    const report = this.stepReport({ events, ended, success, end, hidden: this.options.hiddenInfo });
    const family = report.rawTerms;
    if (family) for (const k in family) raw[k] = (raw[k] ?? 0) + family[k];
    const phi = this.potential();
    const { reward, terms } = this.computer.step(raw, phi);
    this.history.push(new HistoryRecord(this.stepCount, parsed ?? action, response, events, reward));
    const info: ToolStepInfo = new StepInfo(events, terms, raw, phi, this.setup.taskId, this.stepCount);
    if (this.options.hiddenInfo) {
      const stepHidden = report.hidden ?? null;
      if (ended) {
        info.hidden = withKeys(this.setup.hidden ?? {}, stepHidden ?? {});
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
    // Not a literal: a pretenured result kept the observation and info alive a scavenge longer (plainRecords.ts).
    return youngArray5(this.observe(response), reward, terminated, truncated, info);
  }

  override limitEpisodeSteps(maxSteps: number): boolean {
    this.stepLimit = Math.min(this.stepLimit, maxSteps);
    return true;
  }

  /** This layer's part of a snapshot (the replay layer, toolEnv.ts, writes and validates the rest). */
  protected runtimeSnapshot(): RuntimeSnapshot {
    return {
      rngPath: this.rng.path,
      resetOptions: this.resetOptions,
      reward: this.computer.getState(),
      lastVisible: this.lists.lastVisible,
      lastSeed: this.lastSeed,
      unseededResets: this.unseededResets,
    };
  }

  /** Restores this layer's part of a snapshot that the replay layer has checked (see `runtimeSnapshot`). */
  protected restoreRuntime(rng: Rng, r: Omit<RuntimeSnapshot, "rngPath">): void {
    this.rng = rng;
    this.resetOptions = r.resetOptions;
    this.computer.setState(r.reward);
    this.lists.lastVisible = Object.freeze(r.lastVisible.slice());
    this.lastSeed = r.lastSeed;
    this.unseededResets = r.unseededResets;
  }
}
