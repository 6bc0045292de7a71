/**
 * The bridge's own work per env-step, isolated: a real env's steps (and its server-sampled actions) are recorded
 * once, then replayed through the real request path — `handleRequest("step", { sample: true })` and encoding the
 * response — with the env and the sampler swapped for the recording. What remains is exactly what the bridge adds
 * over the env (request check, deltas, tool references, result building, `toWire`, msgpack), minus the socket send.
 */
import type { Backend, SamplerRng, SpaceLike, VecEnvLike, VecStepResult } from "../../bridge/backend.js";
import { envActionSpace } from "../../bridge/backend.js";
import { encode } from "../../bridge/codec.js";
import { handleRequest, type HandlerContext } from "../../bridge/handlers.js";
import { limitsSchema } from "../../bridge/protocol.js";
import { SessionManager } from "../../bridge/sessions.js";

export interface Recording {
  readonly env: VecEnvLike;
  readonly resetObs: unknown[];
  readonly steps: VecStepResult[];
  readonly actions: unknown[][];
}

/** Steps `env` `n` times with actions from `backend`'s samplers (seed 1), keeping every result. */
export function record(backend: Backend, env: VecEnvLike, n: number): Recording {
  const samplers = backend.createSamplers(1, 0, env.numEnvs);
  const [resetObs] = env.reset({ seed: 1 }) as [unknown[], unknown];
  const steps: VecStepResult[] = [];
  const actions: unknown[][] = [];
  for (let k = 0; k < n; k++) {
    const a = samplers.map((rng, i) => backend.sampleAction(envActionSpace(env, i), rng));
    const [obs, r, te, tr, infos] = env.step(a) as VecStepResult;
    // Copies: a vector env may reuse its reward and flag arrays from step to step.
    steps.push([obs.slice(), Array.from(r), Array.from(te), Array.from(tr), infos]);
    actions.push(a);
  }
  return { env, resetObs, steps, actions };
}

/** A backend whose one env replays `rec` and whose sampler hands out the recorded actions, in order. */
function replayBackend(base: Backend, rec: Recording): Backend {
  let k = 0;
  let i = 0;
  const n = rec.env.numEnvs;
  const env: VecEnvLike = {
    numEnvs: n,
    singleObservationSpace: rec.env.singleObservationSpace,
    singleActionSpace: rec.env.singleActionSpace,
    actionSpace: rec.env.actionSpace,
    metadata: rec.env.metadata,
    spec: rec.env.spec,
    reset: () => [rec.resetObs.slice(), {}],
    step: () => {
      const out = rec.steps[k];
      k = (k + 1) % rec.steps.length;
      return out;
    },
    close: () => undefined,
  };
  return {
    ...base,
    withOptionFiles: undefined,
    makeVec: () => env,
    createSamplers: (_seed: number, _offset: number, count: number): SamplerRng[] => Array.from({ length: count }, () => ({})),
    sampleAction: (_space: SpaceLike, _rng: SamplerRng): unknown => {
      const a = rec.actions[k][i];
      i = (i + 1) % n;
      return a;
    },
  };
}

export interface ReplayTiming {
  /** CPU µs per env-step: the handler (request check, deltas, tool references, result). */
  handle: number;
  /** CPU µs per env-step: `encode` of the response (toWire + msgpack). */
  encode: number;
  bytes: number;
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Replays `rec` through the real request path `rounds` times; per round, CPU time of the handler and of encoding,
 * summed over the recording's steps. Returns the round with the least total (the least disturbed by other work).
 */
export function replayTiming(base: Backend, rec: Recording, rounds: number, make: Record<string, unknown> = {}): ReplayTiming {
  const backend = replayBackend(base, rec);
  const limits = limitsSchema.parse({});
  const sessions = new SessionManager(backend, limits, 0, () => 0);
  const ctx: HandlerContext = { owner: "bench", backend, sessions, limits, worker: { index: 0, count: 1 }, endpoints: [] };
  const fields = { env_id: "replay", num_envs: rec.env.numEnvs, seed: 1, tool_refs: true, info_keys: [], ...make };
  const { session } = handleRequest(ctx, "make", fields) as { session: string };
  handleRequest(ctx, "reset", { session });
  let best: ReplayTiming | null = null;
  const per = rec.steps.length * rec.env.numEnvs;
  for (let r = 0; r < rounds; r++) {
    let h = 0;
    let e = 0;
    let bytes = 0;
    for (let s = 0; s < rec.steps.length; s++) {
      const c0 = cpu();
      const result = handleRequest(ctx, "step", { session, sample: true });
      const c1 = cpu();
      bytes += encode({ id: s, ok: true, result }).length;
      e += cpu() - c1;
      h += c1 - c0;
    }
    if (best === null || h + e < (best.handle + best.encode) * per)
      best = { handle: h / per, encode: e / per, bytes: bytes / rec.steps.length };
  }
  return best as ReplayTiming;
}
