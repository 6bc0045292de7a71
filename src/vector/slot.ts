import type { Env, Info } from "../core/env.js";
import { ResetNeededError } from "../core/errors.js";
import { type JsonObject, type JsonValue, toJsonValue } from "../core/json.js";
import { StateError } from "../core/errors.js";

/** The replay surface of ToolEnv, seen structurally (the vector module does not depend on the engine). */
interface Stateful {
  getState(): unknown;
  setState(state: unknown): void;
  isDone(): boolean;
  currentObservation(): unknown;
}

function isStateful(x: object): x is Stateful {
  return "getState" in x && typeof x.getState === "function" && "setState" in x && typeof x.setState === "function";
}

function stateful(env: Env<unknown, unknown>): Stateful {
  const inner = env.unwrapped;
  if (!isStateful(inner)) throw new StateError("state", `${env.spec.id} does not support getState/setState`);
  return inner;
}
import type { AutoresetMode } from "./vectorEnv.js";
import { withKeys } from "../core/objects.js";

/** One env's result inside a vector step. */
export interface SlotStep<Obs> {
  obs: Obs;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Info;
}

/**
 * One env of a vector env with its autoreset bookkeeping. Shared by the sync vector env and the async workers so
 * both have exactly the same semantics.
 */
export class EnvSlot<Obs, Act> {
  private needsReset = true;
  private started = false;
  private autoresetPending = false;
  constructor(
    readonly env: Env<Obs, Act>,
    private readonly mode: AutoresetMode,
  ) {}

  reset(seed: number | undefined, options: JsonObject | undefined): [Obs, Info] {
    const res = this.env.reset({ seed, options });
    this.needsReset = false;
    this.started = true;
    this.autoresetPending = false;
    return res;
  }

  /** The two cases need different fixes, so they get different messages. */
  private resetNeeded(): ResetNeededError {
    if (!this.started) return new ResetNeededError("vector env stepped before reset(); call reset() first");
    return new ResetNeededError(
      "vector env stepped after an env's episode ended with autoreset Disabled; " +
        "reset the ended envs first (reset() with options.resetMask)",
    );
  }

  /** After the env's state was replaced: an ended episode needs its (auto)reset, as if it had just ended here. */
  restored(done: boolean): void {
    this.started = true;
    this.needsReset = done && this.mode !== "NextStep";
    this.autoresetPending = done && this.mode === "NextStep";
  }

  /** Snapshot of env i (ToolEnv.getState), or a typed error for envs without counterfactual replay. */
  getState(): JsonValue {
    return toJsonValue(stateful(this.env as Env<unknown, unknown>).getState(), "state");
  }

  /** Restores env i and returns its full current observation. */
  setState(state: JsonValue): Obs {
    const env = stateful(this.env as Env<unknown, unknown>);
    env.setState(state);
    this.restored(env.isDone());
    return env.currentObservation() as Obs;
  }

  /** Throws what `step(action)` would throw before changing anything (see `Env.checkAction`). */
  check(action: Act): void {
    if (this.mode === "NextStep" && this.autoresetPending) return; // the action is ignored: this step resets
    if (this.needsReset) throw this.resetNeeded();
    this.env.checkAction(action);
  }

  /** The last `advance`'s reward, flags and info (read at once by the sync vector env: no result object per step). */
  lastReward = 0;
  lastTerminated = false;
  lastTruncated = false;
  lastInfo: Info = {};

  step(action: Act): SlotStep<Obs> {
    const obs = this.advance(action);
    return { obs, reward: this.lastReward, terminated: this.lastTerminated, truncated: this.lastTruncated, info: this.lastInfo };
  }

  /** `step` without its result object: returns the observation and leaves the rest in the `last*` fields. */
  advance(action: Act): Obs {
    if (this.mode === "NextStep" && this.autoresetPending) {
      const [obs, info] = this.reset(undefined, undefined);
      return this.done(obs, 0, false, false, info);
    }
    if (this.needsReset) throw this.resetNeeded();
    const [obs, reward, terminated, truncated, info] = this.env.step(action);
    if (!(terminated || truncated)) return this.done(obs, reward, terminated, truncated, info);
    if (this.mode === "NextStep") {
      this.autoresetPending = true;
      return this.done(obs, reward, terminated, truncated, info);
    }
    if (this.mode === "SameStep") {
      const [resetObs, resetInfo] = this.reset(undefined, undefined);
      return this.done(resetObs, reward, terminated, truncated, withKeys(resetInfo, { final_obs: obs, final_info: info }));
    }
    this.needsReset = true;
    return this.done(obs, reward, terminated, truncated, info);
  }

  private done(obs: Obs, reward: number, terminated: boolean, truncated: boolean, info: Info): Obs {
    this.lastReward = reward;
    this.lastTerminated = terminated;
    this.lastTruncated = truncated;
    this.lastInfo = info;
    return obs;
  }
}
