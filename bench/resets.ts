/**
 * ToolMaze reset latency (issue 19: canonical reset ≤ 10 µs, sampled-task reset p99 ≤ 2 ms), each reset timed alone
 * (wall clock), with the CPU the process's other threads burnt meanwhile (V8's compiler and GC helpers).
 *
 * Sampled tasks: the same n seeds twice, first right after the env's first reset (a cold process: V8 is still
 * optimizing the generator and enumerator, which a user sees at the start of every run), then again after a warm-up
 * of other seeds (the steady state of a long run). Per pass: p50 / p99 / max, resets over 2 ms, GC pauses inside;
 * then each seed's best CPU of 3 more resets (the work itself, in passes of their own). Canonical instances: a first
 * pass over seeds the warm-up missed (each instance's first visit builds its cache entry) and a second pass (every
 * instance warm).
 * Run alone with `npx tsx bench/resets.ts [--n 2000] [--warmup 4000] [--env ToolMaze-v0]`, or through
 * `npm run bench -- resets`. See bench/timing/resetTail.ts for why the other threads matter.
 */
import { type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import type { Env } from "../src/core/env.js";
import { make } from "../src/core/registry.js";
import { cpuPass, quantile, type ResetPass, tailLine, timeResets } from "./timing/resetTail.js";
import "../envs/toolmaze/index.js";

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : dflt;
};
const n = Number(arg("n", "2000"));
const warmup = Number(arg("warmup", "4000"));
const envId = arg("env", "ToolMaze-v0");
const ms = (us: number): string => us.toFixed(1);

/** A pass with a GC observer on: which resets had a pause inside. */
async function observedPass(
  env: Env<unknown, unknown>,
  seeds: readonly number[],
): Promise<{ pass: ResetPass; gcHit: boolean[]; pauses: number }> {
  const gcs: PerformanceEntry[] = [];
  const obs = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  obs.observe({ entryTypes: ["gc"] });
  const pass = timeResets(env, seeds);
  // GC entries arrive asynchronously: let the observer deliver the last ones before matching them.
  await new Promise((r) => setTimeout(r, 20));
  obs.disconnect();
  const gcHit = pass.spans.map(([a, b]) => gcs.some((g) => g.startTime < b && g.startTime + g.duration > a));
  return { pass, gcHit, pauses: gcs.length };
}

function histogram(wallUs: readonly number[]): string {
  const buckets = [0.1, 0.2, 0.5, 1, 2, 5, 10, 50, Infinity];
  const edges = ["<0.1", "<0.2", "<0.5", "<1", "<2", "<5", "<10", "<50", "≥50"];
  const counts = buckets.map((b, k) => wallUs.filter((x) => x / 1000 < b && x / 1000 >= (buckets[k - 1] ?? 0)).length);
  return `wall histogram (ms): ${edges.map((e, k) => `${e}: ${counts[k]}`).join(", ")}`;
}

function passLines(label: string, o: { pass: ResetPass; gcHit: boolean[]; pauses: number }): void {
  const { pass, gcHit, pauses } = o;
  console.log(`  ${label}: ${tailLine(pass)}`);
  console.log(
    `    process CPU ${ms(pass.cpuUs / pass.wallUs.length)} µs per reset (all threads); ${gcHit.filter(Boolean).length} resets ` +
      `had a GC pause inside (${pauses} pauses)`,
  );
  console.log(`    ${histogram(pass.wallUs)}`);
}

async function sampledSuite(): Promise<void> {
  const env = make(envId, { suite: "sampled" }) as Env<unknown, unknown>;
  // The env's first reset builds the corpus and tool definitions (tens of ms, once per process): not a reset's cost.
  env.reset({ seed: 10_000_000 });
  const seeds = Array.from({ length: n }, (_, i) => i);
  console.log(`\n${envId} sampled-task reset: seeds 0..${n - 1}, each timed alone, µs`);
  const cold = await observedPass(env, seeds);
  passLines(`cold (the process's first ${n} sampled resets: V8 still optimizing)`, cold);
  for (let s = 0; s < warmup; s++) env.reset({ seed: 1_000_000 + s });
  const steady = await observedPass(env, seeds);
  passLines(`steady (the same seeds after ${warmup} warm-up resets)`, steady);
  const cpu = [cpuPass(env, seeds), cpuPass(env, seeds), cpuPass(env, seeds)];
  const best = seeds.map((_, i) => Math.min(cpu[0]![i]!, cpu[1]![i]!, cpu[2]![i]!));
  console.log(
    `  each seed's best CPU of 3 resets (the work itself): p50 ${ms(quantile(best, 0.5))}, p99 ${ms(quantile(best, 0.99))}, ` +
      `max ${ms(Math.max(...best))}`,
  );
  env.close();
}

async function canonicalSuite(): Promise<void> {
  const env = make(envId, {}) as Env<unknown, unknown>;
  // Warm-up on other seeds: JIT, corpus and the instance caches of the instances it visits.
  for (let s = 0; s < 300; s++) env.reset({ seed: 1_000_000 + s });
  const seeds = Array.from({ length: n }, (_, i) => i);
  console.log(`\n${envId} canonical reset: seeds 0..${n - 1}, each timed alone, µs`);
  // The first pass pays each instance's cache entry for every instance the warm-up missed (its first visit); the
  // second pass is the steady state of a long run.
  const first = await observedPass(env, seeds);
  passLines("first pass (first visits of the instances the warm-up missed)", first);
  const second = await observedPass(env, seeds);
  passLines("second pass (every instance seen once before)", second);
  env.close();
}

await sampledSuite();
await canonicalSuite();
