import type { JsonObject } from "./json.js";
import type { Space } from "./spaces/space.js";

/** The `info` dictionary returned by reset and step. Keys an env may set are documented in `metadata.infoKeys`. */
export type Info = Record<string, unknown>;

/** `step()`'s result, in Gymnasium's order. */
export type StepResult<Obs> = [observation: Obs, reward: number, terminated: boolean, truncated: boolean, info: Info];

export interface ResetArgs {
  seed?: number;
  options?: JsonObject;
}

/** How an env was made: enough to make it again (Gymnasium's EnvSpec). */
export interface EnvSpec {
  id: string;
  /** The validated `make()` options, defaults filled in. */
  entryOptions: JsonObject;
  /** Steps after which the episode is truncated, or null when the env has no limit. */
  maxEpisodeSteps: number | null;
  /** The library version that made it (trajectories record it). */
  libraryVersion: string;
}

export interface EnvMetadata {
  renderModes: readonly string[];
  /** Documented `info` keys: key -> what it holds. `checkEnv` fails on undocumented keys. */
  infoKeys: Readonly<Record<string, string>>;
  /** Event types beyond the core ones that this env may emit (namespaced `family:name`). */
  familyEventTypes?: readonly string[];
  [key: string]: unknown;
}

/**
 * A reinforcement-learning environment with Gymnasium's contract: `reset` starts an episode and returns the first
 * observation; `step` applies one action. Everything is synchronous and in-process; nothing in `step` does I/O.
 */
export abstract class Env<Obs, Act> {
  abstract readonly observationSpace: Space<Obs>;
  abstract readonly actionSpace: Space<Act>;
  abstract readonly spec: EnvSpec;
  abstract readonly metadata: EnvMetadata;

  abstract reset(args?: ResetArgs): [Obs, Info];
  abstract step(action: Act): StepResult<Obs>;

  /** A readable text view of the episode so far. */
  render(): string {
    return "";
  }

  close(): void {}

  /** The innermost env (wrappers forward to it). */
  get unwrapped(): Env<Obs, Act> {
    return this;
  }
}
