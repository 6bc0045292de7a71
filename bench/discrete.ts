/**
 * Issue 13's "fast enough" workload: ToolMaze in the action-masked discrete mode, random valid actions, batch 256.
 * In process: a SyncVectorEnv stepped with a uniformly random valid slot per env, in CPU µs per env-step, split into
 * the structured tool env underneath (the same structured actions replayed on a default-mode vector env: same
 * trajectories, so the difference is what the discrete layer costs: candidates, features, mask) and the rest. Then,
 * side by side, the same workload over the bridge with the numpy client (bench/bridge/run.ts --discrete-only).
 *
 *   npm run bench -- discrete
 *   node --import tsx bench/discrete.ts [--seconds 3] [--rounds 3] [--bridge-seconds 10] [--batch 256] [--no-bridge]
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Action, type DiscreteObservation, type DiscreteToolEnv, makeVec, Rng, type SyncVectorEnv } from "../src/index.js";

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const seconds = Number(arg("seconds", "3"));
// Wall-clock seconds per bridge cell: long enough that JIT warm-up and new tasks' setup do not dominate at ~1k/s.
const bridgeSeconds = arg("bridge-seconds", "10");
const batch = Number(arg("batch", "256"));
const rounds = Math.max(1, Number(arg("rounds", "3")));
const id = "ToolMaze-v0";

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** A uniformly random slot among those the mask allows (slot 0, abort, when none: it never is). */
function pick(mask: Uint8Array, rng: Rng): number {
  let valid = 0;
  for (let k = 0; k < mask.length; k++) valid += mask[k];
  let n = rng.int(Math.max(1, valid));
  for (let k = 0; k < mask.length; k++) if (mask[k] && n-- === 0) return k;
  return 0;
}

interface Run {
  vectorSteps: number;
  cpuUs: number;
  wallMs: number;
}

/**
 * The discrete vector env under random valid play, recording each step's structured actions for the replay: for
 * `seconds` of CPU time, or exactly `vectorSteps` steps when given.
 */
function discreteRun(vectorSteps?: number): Run & { warmup: Action[][]; actions: Action[][]; k: number; f: number } {
  const env = makeVec(id, batch, { actionMode: "discrete" }) as SyncVectorEnv;
  const discrete = env.envs.map((e) => e.unwrapped as unknown as DiscreteToolEnv);
  const rng = new Rng(1).derive("bench-discrete");
  let [obs] = env.reset({ seed: 1 }) as [DiscreteObservation[], unknown];
  const warmup: Action[][] = [];
  const actions: Action[][] = [];
  const step = (into: Action[][]) => {
    const slots = obs.map((o) => pick(o.action_mask, rng));
    into.push(slots.map((s, i) => discrete[i].structuredAction(s)));
    [obs] = env.step(slots) as [DiscreteObservation[], ...unknown[]];
  };
  for (let k = 0; k < 30; k++) step(warmup);
  const c0 = cpuUs();
  const t0 = performance.now();
  // CPU time, not wall clock, bounds the run: the machine is shared, and a busy neighbour should not shorten it.
  if (vectorSteps !== undefined) while (actions.length < vectorSteps) step(actions);
  else while (cpuUs() - c0 < seconds * 1e6 || actions.length < 20) step(actions);
  const run = { vectorSteps: actions.length, cpuUs: cpuUs() - c0, wallMs: performance.now() - t0 };
  env.close();
  return { ...run, warmup, actions, k: discrete[0].maxCandidates, f: obs[0].observation.length };
}

/** The default-mode vector env stepped with the recorded structured actions (same trajectories): the tool env's share. */
function structuredReplay(warmup: Action[][], actions: Action[][]): Run {
  const env = makeVec(id, batch, {});
  env.reset({ seed: 1 });
  for (const a of warmup) env.step(a);
  const c0 = cpuUs();
  const t0 = performance.now();
  for (const a of actions) env.step(a);
  const run = { vectorSteps: actions.length, cpuUs: cpuUs() - c0, wallMs: performance.now() - t0 };
  env.close();
  return run;
}

// An untimed first pass with the same seed, then the timed pass over exactly the same steps: ToolMaze caches each
// canonical instance on first use (process-wide), so without it the discrete run would pay for building the
// instances and the structured replay after it would not, and that cost would be billed to the discrete layer.
// Then `rounds` timed passes of each, keeping the least CPU time: neighbours' jobs on a shared machine only add to it.
const first = discreteRun();
let d = discreteRun(first.vectorSteps);
let s = structuredReplay(d.warmup, d.actions);
for (let r = 1; r < rounds; r++) {
  const d2 = discreteRun(first.vectorSteps);
  if (d2.cpuUs < d.cpuUs) d = d2;
  const s2 = structuredReplay(d.warmup, d.actions);
  if (s2.cpuUs < s.cpuUs) s = s2;
}
const envSteps = d.vectorSteps * batch;
const perStep = d.cpuUs / envSteps;
const inner = s.cpuUs / envSteps;
const fmt = (x: number, digits = 0) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(
  `${id} discrete mode, K = ${d.k}, F = ${d.f}: SyncVectorEnv(${batch}), random valid actions, ${fmt(envSteps)} env-steps, ` +
    `least CPU time of ${rounds} rounds`,
);
console.log(
  `in process: ${fmt(envSteps / (d.wallMs / 1000))} env-steps/s wall clock; ${fmt(perStep, 1)} CPU µs per env-step ` +
    `(${fmt(1e6 / perStep)} env-steps/s per core, ${fmt(2e6 / perStep)} on 2 cores)`,
);
console.log(`  bytes per env-step of a packed observation: ${fmt(d.f * 4 + d.k)} (float32 features ${fmt(d.f * 4)} + mask ${fmt(d.k)})`);
console.log(
  `  the structured tool env underneath (same actions replayed in the default mode): ${fmt(inner, 1)} µs; ` +
    `the discrete layer (candidates, features, mask, action mapping): ${fmt(perStep - inner, 1)} µs`,
);

if (!argv.includes("--no-bridge")) {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const res = spawnSync(process.execPath, ["--import", "tsx", "bench/bridge/run.ts", "--discrete-only", "--seconds", bridgeSeconds], {
    cwd: repo,
    stdio: "inherit",
  });
  if (res.status !== 0) console.log(`(bridge benchmark exited with ${res.status})`);
}
