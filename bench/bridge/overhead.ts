/**
 * Where a bridge step's server time goes, without sockets. Part by part: server-side sampling, the vector env's
 * step, observation deltas with tool references, info filtering and msgpack encoding; then the real request path
 * (`handleRequest("step", { sample: true })` + encoding the response) end to end; then the bridge alone (recorded
 * steps replayed through the request path, see replay.ts) with per-env and column deltas. CPU µs per env-step, so a
 * busy machine disturbs it little.
 *
 *   node --import tsx bench/bridge/overhead.ts [--env ToolMaze-v0] [--batch 256] [--iters 200] [--info none|all]
 */
import { envActionSpace, type VecEnvLike } from "../../bridge/backend.js";
import { encode } from "../../bridge/codec.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { encodeDelta } from "../../bridge/delta.js";
import { handleRequest, type HandlerContext } from "../../bridge/handlers.js";
import { limitsSchema } from "../../bridge/protocol.js";
import { SessionManager } from "../../bridge/sessions.js";
import { ToolRefEncoder } from "../../bridge/toolRefs.js";
import { makeVec } from "../../src/index.js";
import { record, replayTiming } from "./replay.js";

const argv = process.argv.slice(2);
const arg = (n: string, d: string) => (argv.indexOf(`--${n}`) >= 0 ? argv[argv.indexOf(`--${n}`) + 1] : d);
const envId = arg("env", "ToolMaze-v0");
const batch = Number(arg("batch", "256"));
const iters = Number(arg("iters", "200"));
const info = arg("info", "none");
const backend = createCoreBackend();
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000; // ms
};

function parts(): void {
  const env = makeVec(envId, batch, {});
  const samplers = backend.createSamplers(1, 0, batch);
  const refs = new ToolRefEncoder();
  let [prev] = env.reset({ seed: 1 });
  const t = { sample: 0, step: 0, delta: 0, infos: 0, encode: 0 };
  let bytes = 0;
  for (let i = 0; i < iters + 20; i++) {
    const a0 = cpu();
    const actions = samplers.map((rng, k) => backend.sampleAction(envActionSpace(env, k), rng));
    const a1 = cpu();
    const [obs, rewards, terminated, truncated, infos] = env.step(actions);
    const a2 = cpu();
    const wire = obs.map((o, j) => {
      const w = encodeDelta(prev[j], o);
      return "s" in w ? { ...w, s: refs.compact(w.s) } : { f: refs.compact(w.f) };
    });
    prev = obs;
    const a3 = cpu();
    const kept = info === "all" ? infos : {};
    const a4 = cpu();
    const buf = encode({
      id: i,
      ok: true,
      result: { observations: wire, rewards: Array.from(rewards), terminated, truncated, infos: kept, actions },
    });
    const a5 = cpu();
    if (i >= 20) {
      t.sample += a1 - a0;
      t.step += a2 - a1;
      t.delta += a3 - a2;
      t.infos += a4 - a3;
      t.encode += a5 - a4;
      bytes += buf.length;
    }
  }
  env.close();
  const per = (ms: number) => ((ms * 1000) / (iters * batch)).toFixed(2);
  const total = t.sample + t.step + t.delta + t.infos + t.encode;
  console.log(
    `${envId} batch ${batch}, info=${info}: CPU µs per env-step — sample ${per(t.sample)}, env ` +
      `step ${per(t.step)}, deltas+tool refs ${per(t.delta)}, encode ${per(t.encode)}; sum ` +
      `${per(total)}; ${Math.round(bytes / iters)} B per response`,
  );
}

async function requestPath(): Promise<void> {
  const limits = limitsSchema.parse({});
  const sessions = new SessionManager(backend, limits, 0, () => 0);
  const ctx: HandlerContext = { owner: "bench", backend, sessions, limits, worker: { index: 0, count: 1 }, endpoints: [] };
  // make reads option files asynchronously first, so it answers with a promise.
  const made = (await handleRequest(ctx, "make", {
    env_id: envId,
    num_envs: batch,
    seed: 1,
    tool_refs: true,
    ...(info === "all" ? {} : { info_keys: [] }),
  })) as { session: string };
  handleRequest(ctx, "reset", { session: made.session });
  let ms = 0;
  for (let i = 0; i < iters + 20; i++) {
    const a0 = cpu();
    const result = handleRequest(ctx, "step", { session: made.session, sample: true });
    encode({ id: i, ok: true, result });
    if (i >= 20) ms += cpu() - a0;
  }
  console.log(
    `request path (handleRequest + encode): ${((ms * 1000) / (iters * batch)).toFixed(2)} CPU ` +
      `µs per env-step → ${Math.round((iters * batch) / (ms / 1000)).toLocaleString("en-US")} ` +
      `env-steps/s per core, before transport`,
  );
}

/** The bridge's own work alone (bench/bridge/replay.ts): recorded env steps replayed through the request path. */
function replayed(): void {
  // The library's vector env, seen through the bridge's narrow interface (as coreBackend hands it to the bridge).
  const env = makeVec(envId, batch, {}) as unknown as VecEnvLike;
  const rec = record(backend, env, iters);
  const make = info === "all" ? { info_keys: null } : {};
  for (const enc of ["delta", "columns"]) {
    const t = replayTiming(backend, rec, 15, { ...make, obs_encoding: enc });
    console.log(
      `bridge alone, ${enc} (recorded steps replayed, least of 15 rounds): handler ${t.handle.toFixed(2)} + encode ` +
        `${t.encode.toFixed(2)} = ${(t.handle + t.encode).toFixed(2)} CPU µs per env-step; ${Math.round(t.bytes)} B per response`,
    );
  }
  env.close();
}

parts();
await requestPath();
replayed();
