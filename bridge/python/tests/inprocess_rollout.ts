/**
 * In-process reference rollouts for the Python tests: reads a JSON list of {env_id, num_envs, seed, steps,
 * options} on stdin and prints, per item, the whole trajectory collected exactly like a bridge session with
 * `make(seed)`, `reset()` and `step(sample: true)` would: same vector env, same sampler stream.
 */
import { makeVec } from "../../../src/index.js";
import { createCoreBackend } from "../../coreBackend.js";
import { envActionSpace } from "../../../bridge/backend.js";

interface Item {
  env_id: string;
  num_envs: number;
  seed: number;
  steps: number;
  options?: Record<string, unknown>;
}

const backend = createCoreBackend();
const chunks: Buffer[] = [];
process.stdin.on("data", (c: Buffer) => chunks.push(c));
process.stdin.on("end", () => {
  const items = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Item[];
  const out = items.map((it) => {
    const env = makeVec(it.env_id, it.num_envs, it.options ?? {});
    const samplers = backend.createSamplers(it.seed, 0, it.num_envs);
    const [obs0, info0] = env.reset({ seed: it.seed });
    const steps: unknown[] = [];
    for (let t = 0; t < it.steps; t++) {
      const actions = samplers.map((rng, i) => backend.sampleAction(envActionSpace(env, i), rng));
      const [obs, rewards, terminated, truncated, infos] = env.step(actions);
      steps.push({ actions, observations: obs, rewards: Array.from(rewards), terminated, truncated, infos });
    }
    env.close();
    return { reset: { observations: obs0, infos: info0 }, steps };
  });
  process.stdout.write(JSON.stringify(out, (_k, v: unknown) => (v === undefined ? null : ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v)));
});
