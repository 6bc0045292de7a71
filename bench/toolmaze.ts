/**
 * ToolMaze benchmarks: the bridge's workload in process (a SyncVectorEnv of 256 envs stepped with actions sampled
 * from each env's own action space, in CPU time per env-step), env steps/s per policy, reset cost per task
 * (canonical instance vs freshly sampled task), and cold generation of the 400-task canonical suite. Run alone with
 * `npx tsx bench/toolmaze.ts`, or through `npm run bench -- toolmaze`.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Env } from "../src/core/env.js";
import { make } from "../src/core/registry.js";
import type { Tuple } from "../src/core/spaces/composite.js";
import type { Space } from "../src/core/spaces/space.js";
import { makeVec } from "../src/vector/make.js";
import { formatTable } from "../src/metrics/table.js";
import { rollout } from "../src/rollout.js";
import { Rng } from "../src/core/rng.js";
import "../envs/toolmaze/index.js";
import { quantile, type ResetPass, tailLine, timeResets } from "./timing/resetTail.js";
import { COMPLEXITIES, generateLevel } from "../envs/toolmaze/tasks.js";

interface BenchRow {
  name: string;
  opsPerSec: number;
  nsPerOp: number;
}

const now = () => performance.now();
/** Sampled resets before the steady pass: V8 optimizes the generator and enumerator over the first ~3,000. */
const SAMPLED_WARMUP = 3000;
const row = (name: string, ops: number, ms: number): BenchRow => ({ name, opsPerSec: (ops * 1000) / ms, nsPerOp: (ms * 1e6) / ops });

function stepsPerSec(policy: string, episodes: number): BenchRow {
  rollout({ envId: "ToolMaze-v0", policy, episodes: 50, seed: 0 }); // warm-up (JIT, canonical suite)
  const t0 = now();
  const res = rollout({ envId: "ToolMaze-v0", policy, episodes, seed: 0 });
  const steps = res.reduce((a, r) => a + r.length, 0);
  return row(`env step, ${policy} policy (${steps} steps)`, steps, now() - t0);
}

const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Random play as the bridge runs it (issue 7's target workload): `batch` envs in one SyncVectorEnv, env i's action
 * sampled from its own action space with its own stream, autoresets included. CPU time (not wall clock: the
 * machine is shared), after a warm-up; sampling and stepping are timed apart. `rounds` rounds of `vectorSteps`
 * vector steps each: the row is the fastest round (other load on the machine only ever adds time), the note lists
 * every round with its wall clock and the load average.
 */
function vectorRandomPlay(batch: number, vectorSteps: number, rounds: number): { row: BenchRow; note: string } {
  const env = makeVec("ToolMaze-v0", batch, {});
  const spaces = (env.actionSpace as Tuple).spaces as readonly Space<unknown>[];
  const root = new Rng(1).derive("bench-sample");
  const samplers = Array.from({ length: batch }, (_, i) => root.derive(i));
  env.reset({ seed: 0 });
  let sampleUs = 0;
  let stepUs = 0;
  let episodes = 0;
  const run = (n: number) => {
    for (let k = 0; k < n; k++) {
      const c0 = cpuMicros();
      const actions = spaces.map((space, i) => space.sample(samplers[i]!));
      const c1 = cpuMicros();
      const [, , terminated, truncated] = env.step(actions);
      stepUs += cpuMicros() - c1;
      sampleUs += c1 - c0;
      for (let i = 0; i < batch; i++) if (terminated[i] || truncated[i]) episodes++;
    }
  };
  run(100);
  const envSteps = batch * vectorSteps;
  const measured: { sample: number; step: number; wall: number }[] = [];
  let allEpisodes = 0;
  for (let r = 0; r < rounds; r++) {
    sampleUs = stepUs = episodes = 0;
    const w0 = now();
    run(vectorSteps);
    measured.push({ sample: sampleUs / envSteps, step: stepUs / envSteps, wall: ((now() - w0) * 1000) / envSteps });
    allEpisodes += episodes;
  }
  env.close();
  const best = measured.reduce((a, b) => (b.sample + b.step < a.sample + a.step ? b : a));
  const us = best.sample + best.step;
  const each = measured.map((m) => `${(m.sample + m.step).toFixed(2)} (${m.step.toFixed(2)} stepping, wall ${m.wall.toFixed(1)})`);
  return {
    row: { name: `SyncVectorEnv(${batch}) random play incl. sampling, CPU per env-step`, opsPerSec: 1e6 / us, nsPerOp: us * 1000 },
    note:
      `vector random play (batch ${batch}, fastest of ${rounds} rounds): ${us.toFixed(2)} µs CPU per env-step = ` +
      `${best.sample.toFixed(2)} sampling + ${best.step.toFixed(2)} stepping ` +
      `(autoresets included: ${((envSteps * rounds) / allEpisodes).toFixed(1)} env-steps per episode); ` +
      `rounds, µs per env-step: ${each.join(", ")}; load average ${loadavg()[0]!.toFixed(1)}`,
  };
}

/**
 * Reset cost over seeds 0..n-1 after one reset, each reset timed alone (wall clock only, see bench/timing/resetTail.ts).
 * With a warm-up, the same seeds run again after `warmup` resets of other seeds: a cold pass (a fresh env's first n
 * resets, while V8 is still optimizing what they run) and a steady one; the row is the steady pass.
 */
function resetCost(
  options: Record<string, unknown>,
  label: string,
  n: number,
  warmup = 0,
): { row: BenchRow; pass: ResetPass; cold: ResetPass | null } {
  const env = make("ToolMaze-v0", options) as Env<unknown, unknown>;
  env.reset({ seed: 0 });
  const seeds = Array.from({ length: n }, (_, s) => s);
  let cold: ResetPass | null = null;
  if (warmup > 0) {
    cold = timeResets(env, seeds);
    for (let s = 0; s < warmup; s++) env.reset({ seed: 1_000_000 + s });
  }
  const pass = timeResets(env, seeds);
  const total = pass.wallUs.reduce((a, b) => a + b, 0) / 1000;
  return { row: row(label, n, total), pass, cold };
}

// CPU time as well: wall-clock means and tails mostly measure the other processes on a shared machine.
const meanCpuUs = (pass: ResetPass): number => pass.cpuUs / pass.wallUs.length;

export async function bench(): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const t0 = now();
  for (const level of COMPLEXITIES) generateLevel(new Rng("bench-cold"), level, 100, "b-");
  const genMs = now() - t0;
  const vector = vectorRandomPlay(256, 400, 3);
  const bigYoung = vectorWithYoungGeneration(SEMI_SPACE_MB);
  const random = stepsPerSec("random", 2000);
  const rows: BenchRow[] = [
    vector.row,
    ...(bigYoung ? [bigYoung.row] : []),
    random,
    stepsPerSec("heuristic", 2000),
    stepsPerSec("oracle", 2000),
  ];
  const canon = resetCost({}, "reset, canonical instance (seed -> index)", 2000);
  const sampled = resetCost({ suite: "sampled" }, "reset, sampled task (generate + enumerate)", 1000, SAMPLED_WARMUP);
  rows.push(canon.row, sampled.row);
  for (const level of COMPLEXITIES) {
    const r = resetCost({ suite: "sampled", complexity: level }, `reset, sampled ${level} task`, 300);
    rows.push(r.row);
  }
  const notes = [
    vector.note,
    ...(bigYoung ? [`with --max-semi-space-size=${SEMI_SPACE_MB}: ${bigYoung.note}`] : []),
    `canonical suite generation (400 base tasks, validated, solutions enumerated): ${genMs.toFixed(0)} ms cold`,
    `reset p99 (wall, each reset timed alone): canonical ${(quantile(canon.pass.wallUs, 0.99) / 1000).toFixed(3)} ms, ` +
      `mean CPU ${meanCpuUs(canon.pass).toFixed(1)} µs ` +
      "(seeds 0..1,999, the instances the rollouts above cached; first visits: bench/resets.ts)",
    ...(sampled.cold ? [`reset, sampled task, the env's first 1,000 (V8 still optimizing): ${tailLine(sampled.cold)}`] : []),
    `reset, sampled task, the same seeds after ${SAMPLED_WARMUP} warm-up resets: ${tailLine(sampled.pass)}; ` +
      `mean CPU ${meanCpuUs(sampled.pass).toFixed(1)} µs`,
    `ratio random-policy step / canonical reset: ${(random.opsPerSec / canon.row.opsPerSec).toFixed(2)}`,
  ];
  return { rows, notes };
}

/**
 * Most of the vector run's GC is scavenges copying and promoting live per-episode data (history, call records, the
 * scorer's log: 256 episodes in flight); a larger young generation lets most of it die before it is copied. Measured
 * in a child process (V8 sizes the heap at start-up), with the same workload.
 */
const SEMI_SPACE_MB = 64;
const VECTOR_ONLY = "--vector-only";

function vectorWithYoungGeneration(mb: number): { row: BenchRow; note: string } | null {
  const script = fileURLToPath(import.meta.url);
  const res = spawnSync(process.execPath, [`--max-semi-space-size=${mb}`, "--import", "tsx", script, VECTOR_ONLY], { encoding: "utf8" });
  if (res.status !== 0) return null;
  const out = JSON.parse(res.stdout.trim().split("\n").pop() ?? "null") as { row: BenchRow; note: string } | null;
  if (out) out.row.name += `, --max-semi-space-size=${mb}`;
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv.includes(VECTOR_ONLY)) {
  console.log(JSON.stringify(vectorRandomPlay(256, 400, 3)));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { rows, notes } = await bench();
  const base = rows[0]!.opsPerSec;
  console.log(
    formatTable(
      ["benchmark", "ops/s", "µs/op", "× first row"],
      rows.map((r) => [r.name, Math.round(r.opsPerSec), Math.round(r.nsPerOp / 100) / 10, Math.round((r.opsPerSec / base) * 100) / 100]),
    ),
  );
  for (const n of notes) console.log(n);
}
