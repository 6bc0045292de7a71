/**
 * Where a bridge step's server time goes, without sockets: the vector env's step alone, then the bridge's work on
 * top (server-side sampling, observation deltas, msgpack encoding). Prints µs per env-step for each part.
 *
 *   node --import tsx bench/bridge/overhead.ts [--env Demo-v0] [--batch 256] [--iters 200]
 */
import { encode } from "../../bridge/codec.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { encodeDelta } from "../../bridge/delta.js";
import { makeVec } from "../../src/index.js";
import { envActionSpace } from "../../bridge/backend.js";

const argv = process.argv.slice(2);
const arg = (n: string, d: string) => (argv.indexOf(`--${n}`) >= 0 ? argv[argv.indexOf(`--${n}`) + 1] : d);
const envId = arg("env", "Demo-v0");
const batch = Number(arg("batch", "256"));
const iters = Number(arg("iters", "200"));
const backend = createCoreBackend();
const env = makeVec(envId, batch, {});
const samplers = backend.createSamplers(1, 0, batch);
let [prev] = env.reset({ seed: 1 });
const t = { sample: 0, step: 0, delta: 0, encode: 0 };
let bytes = 0;
for (let i = 0; i < iters + 20; i++) {
  const a0 = performance.now();
  const actions = samplers.map((rng, i) => backend.sampleAction(envActionSpace(env, i), rng));
  const a1 = performance.now();
  const [obs, rewards, terminated, truncated, infos] = env.step(actions);
  const a2 = performance.now();
  const wire = obs.map((o, j) => encodeDelta(prev[j], o));
  prev = obs;
  const a3 = performance.now();
  const buf = encode({ id: i, ok: true, result: { observations: wire, rewards: Array.from(rewards), terminated, truncated, infos } });
  const a4 = performance.now();
  if (i >= 20) {
    t.sample += a1 - a0;
    t.step += a2 - a1;
    t.delta += a3 - a2;
    t.encode += a4 - a3;
    bytes += buf.length;
  }
}
const per = (ms: number) => ((ms * 1000) / (iters * batch)).toFixed(2);
const total = t.sample + t.step + t.delta + t.encode;
console.log(`${envId} batch ${batch}: µs per env-step — sample ${per(t.sample)}, env step ${per(t.step)}, delta ${per(t.delta)}, encode ${per(t.encode)}; total ${per(total)} (${Math.round((iters * batch) / (total / 1000)).toLocaleString("en-US")} env-steps/s ceiling); ${Math.round(bytes / iters)} B per response`);
