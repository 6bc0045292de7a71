import { z } from "zod";
import { describeZodIssues, OptionsError } from "./errors.js";
import type { JsonObject } from "./json.js";
import { checkSeed, describeValue } from "./seed.js";
import type { Space } from "./spaces/space.js";

/**
 * The `info` dictionary returned by reset and step. Keys an env may set are documented in `metadata.infoKeys`.
 * Envs with a known info shape narrow it through Env's `StepInfo`/`ResetInfo` parameters (ToolEnv: ToolStepInfo).
 */
export type Info = Record<string, unknown>;

/** `step()`'s result, in Gymnasium's order. */
export type StepResult<Obs, I extends Info = Info> = [observation: Obs, reward: number, terminated: boolean, truncated: boolean, info: I];

export interface ResetArgs {
  seed?: number;
  options?: JsonObject;
}

const resetArgsSchema = z.object({
  options: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Checks `reset()`'s arguments: an object whose `seed` is a non-negative safe integer and whose `options` is an
 * object. Anything else throws an OptionsError naming the field and saying what it must be: a plain `reset(42)`
 * (Gymnasium's keyword argument written positionally) would otherwise be ignored and start an unseeded episode,
 * and a misspelt key (`{ Seed: 42 }`) likewise. The common valid call skips zod.
 */
export function parseResetArgs(args: ResetArgs | undefined): ResetArgs {
  if (args === undefined) return {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    const hint = typeof args === "number" || typeof args === "bigint" ? `; to seed the episode, call reset({ seed: ${String(args)} })` : "";
    throw new OptionsError("(root)", `reset(): expected an object { seed?, options? }, got ${describeValue(args)}${hint}`);
  }
  for (const key in args) {
    if (key !== "seed" && key !== "options") {
      throw new OptionsError(key, `reset(): unknown argument "${key}"; reset() takes { seed?, options? }`);
    }
  }
  if (args.seed !== undefined) checkSeed(args.seed, "seed", "reset()");
  const a = args;
  if (a.options === undefined || (typeof a.options === "object" && a.options !== null && !Array.isArray(a.options))) return a;
  const res = resetArgsSchema.safeParse(a);
  const { field, message } = res.success
    ? { field: "options", message: "options: must be an object" }
    : describeZodIssues(res.error.issues, a);
  throw new OptionsError(field, `reset(): invalid ${message}`);
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
export abstract class Env<Obs, Act, StepInfo extends Info = Info, ResetInfo extends Info = Info> {
  abstract readonly observationSpace: Space<Obs>;
  abstract readonly actionSpace: Space<Act>;
  abstract readonly spec: EnvSpec;
  abstract readonly metadata: EnvMetadata;

  abstract reset(args?: ResetArgs): [Obs, ResetInfo];
  abstract step(action: Act): StepResult<Obs, StepInfo>;

  /**
   * Throws the typed error `step(action)` would throw for a malformed action, without touching the episode; does
   * nothing for a well-formed one. Vector envs check a whole batch with it before stepping any env, so a bad
   * action never leaves the batch half-stepped. Envs without a cheap shape check keep this default (no check).
   */
  checkAction(_action: Act): void {}

  /** A readable text view of the episode so far. */
  render(): string {
    return "";
  }

  close(): void {}

  /**
   * Asks the env to end its episodes after at most `maxSteps` steps itself, exactly as its own step limit does
   * (truncated, reason `max_steps`, with the env's own final info and reward). Returns false when the env has no
   * such limit to lower; the `TimeLimit` wrapper then truncates on its own. A lower limit already set wins.
   */
  limitEpisodeSteps(_maxSteps: number): boolean {
    return false;
  }

  /** The innermost env (wrappers forward to it). */
  get unwrapped(): Env<Obs, Act, StepInfo, ResetInfo> {
    return this;
  }
}
