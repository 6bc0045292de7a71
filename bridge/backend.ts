/**
 * What the bridge needs from the library, as a narrow interface. The server depends on this, not on `src/`
 * directly, so tests can run it against a scripted fake and the bridge stays a thin transport.
 */
import type { ErrorCode } from "./protocol.js";

export type AutoresetMode = "NextStep" | "SameStep" | "Disabled";

/** A space that can describe itself (and, for actions, sample). */
export interface SpaceLike {
  toJSON(): unknown;
}

export interface ActionSpaceLike extends SpaceLike {
  sample(rng: never): unknown;
}

export type VecResetResult = [unknown[], Record<string, unknown>];
export type VecStepResult = [unknown[], ArrayLike<number>, ArrayLike<boolean>, ArrayLike<boolean>, Record<string, unknown>];

/** The vector env contract of the core (Gymnasium 1.x semantics). Results may be sync or async. */
export interface VecEnvLike {
  readonly numEnvs: number;
  readonly singleObservationSpace: SpaceLike;
  readonly singleActionSpace: SpaceLike;
  /** The batched action space: a Tuple of each env's own space (tool envs sample from the tools *they* show). */
  readonly actionSpace?: SpaceLike;
  readonly metadata?: unknown;
  readonly spec?: unknown;
  reset(opts?: { seed?: number | (number | null)[]; options?: Record<string, unknown> }): VecResetResult | Promise<VecResetResult>;
  step(actions: unknown[]): VecStepResult | Promise<VecStepResult>;
  /** Counterfactual replay: snapshot of env i, and restoring one (returns env i's full observation). */
  getEnvState?(index: number): unknown;
  setEnvState?(index: number, state: unknown): unknown;
  close(): void | Promise<void>;
}

/** Env i's own action space (element i of the batched Tuple), or the single space when there is no batched one. */
export function envActionSpace(env: Pick<VecEnvLike, "actionSpace" | "singleActionSpace">, i: number): SpaceLike {
  const spaces = (env.actionSpace as { spaces?: readonly SpaceLike[] } | undefined)?.spaces;
  return spaces?.[i] ?? env.singleActionSpace;
}

export interface EnvDescription {
  id: string;
  description?: string;
  [key: string]: unknown;
}

/** A seeded stream for server-side action sampling; opaque to the bridge. */
export type SamplerRng = object;

/** How the bridge wants a session's vector env built. */
export interface BackendVecOptions {
  autoresetMode?: AutoresetMode;
  /** Where env i appends its trajectories (JSON lines), when the session records. */
  recordPath?: (i: number) => string;
  /**
   * Info keys the vector env must batch (at least the ones the session sends; the bridge filters exactly after). Absent:
   * every key. Lets the env skip batching infos nobody reads.
   */
  infoKeys?: readonly string[];
}

export interface Backend {
  /** Library version reported by `hello`. */
  readonly libraryVersion: string;
  listEnvs(): EnvDescription[];
  makeVec(id: string, numEnvs: number, options: Record<string, unknown>, vector?: BackendVecOptions): VecEnvLike;
  /** A description of a registered env without instantiating a session (for `get_spec` by id). */
  envSpec(id: string): unknown;
  /**
   * Seeded sampler streams (the core's Rng) for `step` with `sample: true`, one per env: stream `i` depends only
   * on `seed` and the global env index `offset + i`, so sampled actions do not depend on batching or sharding.
   */
  createSamplers(seed: number, offset: number, n: number): SamplerRng[];
  /** Samples one action from a single-env action space with the given stream. */
  sampleAction(space: SpaceLike, rng: SamplerRng): unknown;
  /**
   * Confines env options that name files to `roots` (null: the library's default data root, its own configs), for
   * the whole process: a client must not make the server read arbitrary files. Returns the undo.
   */
  restrictOptionPaths?(roots: readonly string[] | null): () => void;
  /**
   * Runs a synchronous call (make) that may read files named by options, reading them asynchronously first (see
   * src/core/optionPaths.ts). Without it, the call runs as is.
   */
  withOptionFiles?<T>(fn: () => T): Promise<T>;
  /** Maps a library exception to a protocol error; anything unrecognised is ENV_ERROR. */
  classifyError(err: unknown): { code: ErrorCode; message: string; details: Record<string, unknown> };
}
