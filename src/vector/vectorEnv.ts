import type { JsonObject, JsonValue } from "../core/json.js";
import type { Space } from "../core/spaces/space.js";

/** Gymnasium 1.x autoreset modes. */
export type AutoresetMode = "NextStep" | "SameStep" | "Disabled";

export interface VectorEnvOptions {
  /** `sync` steps envs in this thread; `async` in worker threads (a pool no larger than the core count). */
  mode?: "sync" | "async";
  autoresetMode?: AutoresetMode;
  /** Async only: number of worker threads (default: min(numEnvs, cores)). */
  workers?: number;
  /** Async only: extra modules each worker imports first (to register custom envs). */
  modules?: string[];
}

/**
 * Info batched per key (Gymnasium 1.x): `info[k][i]` is env i's value (null when absent) and `info["_" + k][i]`
 * says whether env i set it.
 */
export type BatchedInfo = Record<string, unknown[]>;

export interface VectorResetArgs {
  /** One seed (env i gets seed + i) or one per env. */
  seed?: number | readonly (number | null)[];
  /** `resetMask[i]` false leaves env i untouched (partial reset); other options pass to each env's reset. */
  options?: JsonObject & { resetMask?: boolean[] };
}

export type VectorStepResult<Obs> = [observations: Obs[], rewards: Float64Array, terminated: boolean[], truncated: boolean[], infos: BatchedInfo];

/** A batch of `numEnvs` independent copies of one env, stepped together. */
export interface VectorEnv<Obs = unknown, Act = unknown> {
  readonly numEnvs: number;
  readonly singleObservationSpace: Space<Obs>;
  readonly singleActionSpace: Space<Act>;
  readonly observationSpace: Space<unknown>;
  readonly actionSpace: Space<unknown>;
  readonly metadata: { autoresetMode: AutoresetMode; envId: string; [key: string]: unknown };
  reset(args?: VectorResetArgs): [Obs[], BatchedInfo];
  step(actions: readonly Act[]): VectorStepResult<Obs>;
  /** Snapshot of env i (counterfactual replay; plain JSON). */
  getEnvState(index: number): JsonValue;
  /** Restores env i from a snapshot and returns its full current observation. */
  setEnvState(index: number, state: JsonValue): Obs;
  close(): void;
}

/** Merges per-env infos into Gymnasium's batched form. */
export function batchInfos(infos: readonly (Record<string, unknown> | null)[]): BatchedInfo {
  const n = infos.length;
  const out: BatchedInfo = {};
  infos.forEach((info, i) => {
    if (!info) return;
    for (const [k, v] of Object.entries(info)) {
      if (v === undefined) continue;
      if (!out[k]) {
        out[k] = new Array(n).fill(null);
        out[`_${k}`] = new Array(n).fill(false);
      }
      out[k][i] = v;
      out[`_${k}`][i] = true;
    }
  });
  return out;
}

/** Per-env seeds from the `seed` argument. */
export function seedsFor(seed: VectorResetArgs["seed"], n: number): (number | undefined)[] {
  if (seed === undefined) return new Array(n).fill(undefined);
  if (typeof seed === "number") return Array.from({ length: n }, (_, i) => seed + i);
  if (seed.length !== n) throw new RangeError(`seed: expected ${n} seeds, got ${seed.length}`);
  return seed.map((s) => (s === null ? undefined : s));
}
