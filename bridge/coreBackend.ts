/**
 * The bridge's view of the library: the registry's vector envs, the core Rng for server-side sampling, and the
 * mapping from the library's typed errors to protocol error codes.
 */
import {
  Box,
  CONFIGS_DIR,
  type Env,
  confineOptionPaths,
  Dict,
  LIBRARY_VERSION,
  listEnvs,
  make,
  makeVec,
  RecordTrajectory,
  RecoveryGymError,
  registryEntry,
  Rng,
  runWithOptionFiles,
  setOptionPathPolicy,
  type Space,
  SyncVectorEnv,
  Tuple,
} from "../src/index.js";
import type { Backend, BackendVecOptions, EnvDescription, SamplerRng, SpaceLike, VecEnvLike } from "./backend.js";
import type { ErrorCode } from "./protocol.js";

const TYPED: Record<
  string,
  { new (n: number): Float32Array | Float64Array | Int32Array; from(a: ArrayLike<number>): Float32Array | Float64Array | Int32Array }
> = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
};

/**
 * Actions arrive as MessagePack lists and maps; the library's Box holds typed arrays. Converts where the space
 * says so and leaves everything else untouched (a wrong shape is still reported by the env, with its field).
 */
export function coerceAction(space: unknown, action: unknown): unknown {
  if (space instanceof Box) {
    if (Array.isArray(action)) {
      const flat = action.flat(Infinity as 1) as unknown[];
      if (flat.every((v) => typeof v === "number")) return TYPED[space.dtype].from(flat as number[]);
    }
    return action;
  }
  if (space instanceof Dict && action !== null && typeof action === "object" && !Array.isArray(action)) {
    const out: Record<string, unknown> = { ...(action as Record<string, unknown>) };
    for (const k of space.keys) if (k in out) out[k] = coerceAction(space.spaces[k], out[k]);
    return out;
  }
  if (space instanceof Tuple && Array.isArray(action)) {
    return action.map((a, i) => (i < space.spaces.length ? coerceAction(space.spaces[i], a) : a));
  }
  return action;
}

function needsCoercion(space: unknown): boolean {
  if (space instanceof Box) return true;
  if (space instanceof Dict) return space.keys.some((k) => needsCoercion(space.spaces[k]));
  if (space instanceof Tuple) return space.spaces.some(needsCoercion);
  return false;
}

/** Wraps a library vector env so that list-shaped actions become the typed values its spaces expect. */
function withCoercion(env: VecEnvLike): VecEnvLike {
  const space = env.singleActionSpace;
  if (!needsCoercion(space)) return env;
  const step = env.step.bind(env);
  return Object.assign(Object.create(env) as VecEnvLike, {
    step: (actions: unknown[]) => step(actions.map((a) => coerceAction(space, a))),
  });
}

const CODE_MAP: Record<string, ErrorCode> = {
  OPTIONS_ERROR: "VALIDATION_ERROR",
  ACTION_ERROR: "VALIDATION_ERROR",
  CONFIG_ERROR: "VALIDATION_ERROR",
  UNKNOWN_ENV: "UNKNOWN_ENV",
  RESET_NEEDED: "ENV_ERROR",
  STATE_ERROR: "ENV_ERROR",
};

let confiningServers = 0;

export function createCoreBackend(): Backend {
  return {
    libraryVersion: LIBRARY_VERSION,
    listEnvs: (): EnvDescription[] => listEnvs().map((e) => ({ ...e })),
    makeVec(id: string, numEnvs: number, options: Record<string, unknown>, vector: BackendVecOptions = {}): VecEnvLike {
      const { autoresetMode, recordPath, infoKeys } = vector;
      if (recordPath) {
        registryEntry(id);
        // The recorder wraps the family env itself, under any make layer (chat mode), so the file is a trajectory.
        const record = (i: number) => (env: Env<unknown, unknown>) => new RecordTrajectory(env, recordPath(i));
        const factories = Array.from({ length: numEnvs }, (_, i) => () => make(id, options, record(i)));
        return withCoercion(new SyncVectorEnv(factories, autoresetMode, infoKeys) as unknown as VecEnvLike);
      }
      const env = makeVec(id, numEnvs, options, {
        ...(autoresetMode ? { autoresetMode } : {}),
        ...(infoKeys ? { infoKeys: [...infoKeys] } : {}),
      });
      return withCoercion(env as unknown as VecEnvLike);
    },
    envSpec(id: string): unknown {
      const listing = listEnvs().find((e) => e.id === id);
      if (!listing) registryEntry(id); // throws UnknownEnvError with the known ids
      const env = make(id, {});
      try {
        return { ...listing, observation_space: env.observationSpace.toJSON(), action_space: env.actionSpace.toJSON() };
      } finally {
        env.close();
      }
    },
    createSamplers(seed: number, offset: number, n: number): SamplerRng[] {
      const root = new Rng(seed).derive("bridge-sample");
      return Array.from({ length: n }, (_, i) => root.derive(offset + i));
    },
    sampleAction: (space: SpaceLike, rng: SamplerRng): unknown => (space as Space<unknown>).sample(rng as Rng),
    restrictOptionPaths(roots) {
      // Several servers in one process (tests) share the process-wide policy; the last one stopped removes it.
      setOptionPathPolicy(confineOptionPaths(roots ?? [CONFIGS_DIR]));
      confiningServers++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--confiningServers === 0) setOptionPathPolicy(null);
      };
    },
    withOptionFiles: (fn) => runWithOptionFiles(fn),
    classifyError(err: unknown) {
      if (err instanceof RecoveryGymError) {
        return {
          code: CODE_MAP[err.code] ?? "ENV_ERROR",
          message: err.message,
          details: { ...err.details, field: err.field, libraryCode: err.code },
        };
      }
      if (err instanceof RangeError) return { code: "VALIDATION_ERROR", message: err.message, details: {} };
      const e = err as Error;
      return { code: "ENV_ERROR", message: e?.message ?? String(err), details: { name: e?.name ?? typeof err } };
    },
  };
}
