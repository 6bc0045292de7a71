/**
 * Before/after of the per-step layers, side by side in one process: this checkout's modules and another
 * checkout's (`--base`, e.g. a worktree of main) each drive their own SyncVectorEnv of `--batch` envs with random
 * actions sampled from each env's own action space, in alternating blocks (the order flips every block), so both
 * see the same machine load. CPU time per env-step (`process.cpuUsage`), sampling and stepping apart; the median
 * and the first quartile over the blocks. Both checkouts share one heap, so neither gets a quieter young generation.
 *
 *   node --import tsx bench/ab-step.ts --base /work/main [--env Demo-v0] [--batch 256] [--blocks 30] [--steps 20]
 */
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const base = arg("base", "");
if (!base) throw new Error("--base: give the other checkout's directory (e.g. --base /work/main)");
const envId = arg("env", "Demo-v0");
const batch = Number(arg("batch", "256"));
const blocks = Number(arg("blocks", "30"));
const steps = Number(arg("steps", "20"));
const here = resolve(fileURLToPath(new URL("..", import.meta.url)));

interface SampleSpace {
  sample(rng: unknown): unknown;
}
interface Side {
  name: string;
  sample: number[];
  step: number[];
  run(n: number): { sample: number; step: number };
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function side(root: string, name: string): Promise<Side> {
  const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
  const { makeVec } = await load("src/vector/make.ts");
  const { Rng } = await load("src/core/rng.ts");
  await load("envs/index.ts");
  const env = makeVec(envId, batch, {});
  const spaces = (env.actionSpace as { spaces: readonly SampleSpace[] }).spaces;
  const streams = Array.from({ length: batch }, (_, i) => new Rng(1).derive("bench-sample").derive(i));
  env.reset({ seed: 0 });
  return {
    name,
    sample: [],
    step: [],
    run(n) {
      let sample = 0;
      let step = 0;
      for (let k = 0; k < n; k++) {
        const c0 = cpu();
        const actions = spaces.map((s, i) => s.sample(streams[i]));
        const c1 = cpu();
        env.step(actions);
        step += cpu() - c1;
        sample += c1 - c0;
      }
      return { sample: sample / (n * batch), step: step / (n * batch) };
    },
  };
}

const sides = [await side(resolve(base), "base"), await side(here, "this")];
for (const s of sides) s.run(50); // warm-up: JIT, caches of both checkouts
for (let b = 0; b < blocks; b++) {
  for (const s of b % 2 === 0 ? sides : [...sides].reverse()) {
    const r = s.run(steps);
    s.sample.push(r.sample);
    s.step.push(r.step);
  }
}
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
const fmt = (xs: number[]): string => `${quantile(xs, 0.5).toFixed(2)} / ${quantile(xs, 0.25).toFixed(2)}`;
console.log(`${envId}, SyncVectorEnv(${batch}), ${blocks} blocks of ${steps} steps; CPU µs per env-step, median / p25`);
for (const s of sides) console.log(`  ${s.name.padEnd(5)} sampling ${fmt(s.sample)}   stepping ${fmt(s.step)}`);
console.log(
  `  load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
