/**
 * The bridge benchmark's references without sockets: the same vector env stepped in this process (the ceiling the
 * bridge can reach), and the bridge's own code replayed alone.
 */
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { envActionSpace, type VecEnvLike } from "../../bridge/backend.js";
import { makeVec, Rng } from "../../src/index.js";
import { record, replayTiming } from "./replay.js";

/** What the in-process cells share with the bridge cells they are compared with (see RunOptions). */
export interface CellSettings {
  info: string;
  warmupS: number;
}

export type InProcessSpeed = { stepsPerS: number; cpuUs: number };

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Never written: `Atomics.wait` on it is a plain blocking sleep. */
const PAUSE_CELL = new Int32Array(new SharedArrayBuffer(4));

/**
 * How long the server sat idle before each request in a lockstep bridge cell (ms): the round trip minus the
 * server's CPU per batch. The same env in process, paused that long before each batch, costs 1.5-2x its back-to-back
 * CPU (caches gone cold; session 27 measured it in the server's own main loop too), so the overhead over that cell
 * is what the bridge's code adds in lockstep, where the plain overhead column also counts the cold env step.
 */
export function lockstepPauseMs(bridge: Record<string, number>, batch: number): number {
  return Math.max(0, (1000 * batch) / bridge.steps_per_s - (bridge.server_cpu_us * batch) / 1000);
}

/** A uniformly random valid slot per env, from each observation's `action_mask` (the discrete mode). */
function maskedActions(obs: readonly unknown[], rng: Rng): number[] {
  return obs.map((o) => {
    const mask = (o as { action_mask: ArrayLike<number> }).action_mask;
    let valid = 0;
    for (let k = 0; k < mask.length; k++) if (mask[k]) valid++;
    let pick = rng.int(valid);
    for (let k = 0; k < mask.length; k++) if (mask[k] && pick-- === 0) return k;
    return 0;
  });
}

/**
 * The env's own speed in this process (sampling + vector step, no bridge): the ceiling the bridge can reach.
 * Wall-clock env-steps/s, and CPU µs per env-step (what the server's CPU per env-step is compared against).
 * `masked`: random valid actions from the observations' action masks instead of the action spaces' samplers.
 */
export function inProcess(
  cell: CellSettings,
  id: string,
  batch: number,
  secs: number,
  opts: Record<string, unknown>,
  masked = false,
  pauseMs = 0,
): InProcessSpeed {
  const backend = createCoreBackend();
  // The bridge cells' sessions batch only the infos they were asked for (`--info none`: none), so this cell must too,
  // or it counts info batching the bridge never does against the bridge (ToolMaze-v0 batches ~2% of its step in infos).
  const env = makeVec(id, batch, opts, cell.info === "none" ? { infoKeys: [] } : {});
  const samplers = backend.createSamplers(1, 0, batch);
  const rng = new Rng(1).derive("bench-masked");
  let [obs] = env.reset({ seed: 1 });
  const step = () => {
    const actions = masked ? maskedActions(obs, rng) : samplers.map((r, i) => backend.sampleAction(envActionSpace(env, i), r));
    [obs] = env.step(actions);
  };
  // Untimed steps first, as long as bench.py warms each bridge cell up (`--warmup`, seconds, at least 3 steps).
  const w0 = performance.now();
  for (let k = 0; k < 3 || performance.now() - w0 < cell.warmupS * 1000; k++) step();
  let n = 0;
  const c0 = cpuUs();
  const t0 = performance.now();
  while (performance.now() - t0 < secs * 1000 || n < 20) {
    // A blocking sleep uses no CPU: the process CPU over the loop stays the steps' own, as for the server.
    if (pauseMs > 0) Atomics.wait(PAUSE_CELL, 0, 0, pauseMs);
    step();
    n++;
  }
  const dt = (performance.now() - t0) / 1000;
  const cpu = cpuUs() - c0;
  env.close();
  return { stepsPerS: (n * batch) / dt, cpuUs: cpu / (n * batch) };
}

/**
 * The bridge's own CPU per env-step without sockets (bench/bridge/replay.ts: recorded steps of this env replayed
 * through the request path and the encoder, least of several rounds), in the encoding the Python client uses.
 * Unlike the end-to-end overhead column it hardly moves with the machine's load, so it is the figure to hold
 * against the ≤ 3 µs target; the end-to-end column adds transport and what lockstep does to the env's own step.
 */
export function bridgeAlone(info: string, id: string, batch: number, opts: Record<string, unknown>): number {
  const backend = createCoreBackend();
  const env = makeVec(id, batch, opts) as unknown as VecEnvLike;
  const rec = record(backend, env, 60);
  const t = replayTiming(backend, rec, 7, { obs_encoding: "columns", ...(info === "none" ? {} : { info_keys: null }) });
  env.close();
  return t.handle + t.encode;
}

/**
 * The best bridge/in-proc ratio lockstep allows at this batch: the env's own time per batch over that plus one raw
 * echo round trip of the same bytes (a server that added nothing to the echo). Issue 19 asks for >= 0.8; where this
 * ceiling is below it, no server-side work can reach the target without overlapping round trips with stepping.
 */
export function lockstepCeiling(batch: number, inProcessStepsPerS: number, echoRoundTripsPerS: number): number {
  const envS = batch / inProcessStepsPerS;
  return envS / (envS + 1 / echoRoundTripsPerS);
}
