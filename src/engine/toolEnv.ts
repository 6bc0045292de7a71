import { StateError } from "../core/errors.js";
import { asJson, cloneJson, type JsonValue, stableStringify, toJsonObject, toJsonValue } from "../core/json.js";
import { make } from "../core/registry.js";
import { Rng } from "../core/rng.js";
import type { Action } from "./actions.js";
import type { EpisodeEvent } from "./events.js";
import type { ToolObservation } from "./observation.js";
import {
  type CheckedToolEnvState,
  checkStateAgainstEpisode,
  checkWorldSchema,
  checkWorldShape,
  parseToolEnvState,
  TOOL_ENV_STATE_VERSION,
  trustedSnapshotPart,
} from "./stateSchema.js";
import type { ToolEnvOptions, ToolEnvState } from "./toolEnvContract.js";
import { ToolEnvRuntime } from "./toolEnvRuntime.js";
import { withKeys } from "../core/objects.js";

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

/**
 * The one tool-episode env. Families subclass it and supply the episode (`createEpisode`), their events per call
 * (`onCall`), judging (`judge`), reward terms and hidden annotations per step (`stepReport`), metrics and an
 * optional potential (the contract: toolEnvContract.ts); the base classes hold the hooks' defaults and the views
 * (ToolEnvBase, toolEnvBase.ts) and run the call pipeline, budgets, events, rewards, observations and the Gymnasium
 * contract (ToolEnvRuntime, toolEnvRuntime.ts). This class adds what a snapshot needs: `getState` / `setState`
 * (validated, atomic), `fork`, and the family-state hooks.
 */
export abstract class ToolEnv<S, O extends ToolEnvOptions = ToolEnvOptions> extends ToolEnvRuntime<S, O> {
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
    const rt = this.runtimeSnapshot();
    return {
      kind: "recovery-gym/tool-env-state",
      version: TOOL_ENV_STATE_VERSION,
      envId: this.spec.id,
      options: toJsonObject(this.spec.entryOptions, "state.options"),
      rngPath: rt.rngPath,
      resetOptions: cloneJson(rt.resetOptions),
      stepCount: this.stepCount,
      done: this.done,
      // The world type S is the family's own: whether it is JSON data is checked here, at run time.
      data: toJsonValue(this.episode.data, "state.data"),
      faultRngs: asJson(this.episode.rngStates()),
      reward: asJson(rt.reward),
      history: toJsonValue(this.history, "state.history"),
      lastVisible: [...rt.lastVisible],
      lastSeed: rt.lastSeed,
      unseededResets: rt.unseededResets,
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
    this.restoreRuntime(rng, s);
    this.setup = setup;
    this.episode = episode;
    this.stepCount = s.stepCount;
    this.done = s.done;
    this.history = s.history.map((h) => ({
      ...h,
      action: trustedSnapshotPart<Action>(h.action),
      events: trustedSnapshotPart<EpisodeEvent[]>(h.events),
    }));
    this.restoreFamilyState(s.family);
  }

  /** The observation of the current state in full (every visible tool schema), e.g. after `setState`. */
  currentObservation(): ToolObservation {
    if (!this.episode || !this.setup) throw new StateError("state", "currentObservation() before reset()");
    const obs = this.observe(this.history.length ? this.history[this.history.length - 1].response : null);
    return withKeys(obs, { newTools: this.visibleToolSchemas(), removedTools: [] });
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
}
