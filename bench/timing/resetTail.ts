/**
 * Timing of single reset passes, shared by `bench/resets.ts` and `bench/toolmaze.ts` so both report the same thing:
 * each reset timed alone (wall and process CPU), and the CPU this process's other threads burnt meanwhile.
 *
 * Why the other threads: the sampled reset's p99 spikes (2–15 ms) are mostly not its own work. The generator,
 * enumerator and solver are a lot of code, and V8 keeps optimizing it for the first ~3,000 sampled resets of a
 * process: its compiler threads (4 by default) then take ~450 ms of CPU per 1,000 resets, on a machine with 2 cores,
 * and the main thread waits in the run queue in the middle of a reset. After that the same seeds' p99 is ~0.4 ms.
 * A user sees both (a run starts cold), so the benches print both, each labelled.
 *
 * Wall time only inside the loop: `process.cpuUsage()` is a system call, and a thread due to be preempted is switched
 * out on its way back from one. Called between resets it moves the run-queue waits out of the timed windows (a plain
 * loop read p99 3–7 ms where the same loop with it read 1–3 ms, with the same total loop time), so per-reset CPU is
 * taken in separate passes (`cpuPass`) whose wall times are not reported.
 */
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { Env } from "../../src/core/env.js";

/** Per-reset wall time (µs), in seed order, plus what the process did meanwhile. */
export interface ResetPass {
  readonly wallUs: number[];
  /** Wall-clock span of each reset (performance.now() ms), to match against GC pauses afterwards. */
  readonly spans: [number, number][];
  /** Process CPU over the whole pass (µs, all threads). */
  readonly cpuUs: number;
  /** CPU of this process's threads other than the main one during the pass (ms); null where /proc is missing. */
  readonly helperCpuMs: number | null;
}

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * CPU time (ms) of this process's threads other than the main one (V8's compiler and GC helpers), from each thread's
 * schedstat. Linux only: null elsewhere.
 */
function helperThreadCpuMs(): number | null {
  try {
    let ms = 0;
    for (const tid of readdirSync("/proc/self/task")) {
      if (tid === String(process.pid)) continue;
      ms += Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    }
    return ms;
  } catch {
    return null;
  }
}

/** One reset per seed, in order, each timed alone (wall clock only: no system call between resets). */
export function timeResets(env: Env<unknown, unknown>, seeds: readonly number[]): ResetPass {
  const wallUs: number[] = [];
  const spans: [number, number][] = [];
  const h0 = helperThreadCpuMs();
  const c0 = cpuUs();
  for (const seed of seeds) {
    const t0 = performance.now();
    env.reset({ seed });
    const t1 = performance.now();
    wallUs.push((t1 - t0) * 1000);
    spans.push([t0, t1]);
  }
  const cpu = cpuUs() - c0;
  const h1 = helperThreadCpuMs();
  return { wallUs, spans, cpuUs: cpu, helperCpuMs: h0 === null || h1 === null ? null : h1 - h0 };
}

/** Process CPU (µs) of each reset, in seed order: a pass of its own, since reading the CPU clock shifts wall tails. */
export function cpuPass(env: Env<unknown, unknown>, seeds: readonly number[]): number[] {
  const out: number[] = [];
  for (const seed of seeds) {
    const c0 = cpuUs();
    env.reset({ seed });
    out.push(cpuUs() - c0);
  }
  return out;
}

/** The p-quantile (nearest rank below) of `xs`. */
export function quantile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
}

/** "wall p50 …, p99 …, max … µs, k over 2 ms; other threads … ms of CPU" for one pass. */
export function tailLine(pass: ResetPass): string {
  const w = pass.wallUs;
  const over = w.filter((x) => x > 2000).length;
  const helpers = pass.helperCpuMs === null ? "" : `; other threads of the process: ${pass.helperCpuMs.toFixed(0)} ms CPU`;
  return (
    `wall p50 ${quantile(w, 0.5).toFixed(1)}, p99 ${quantile(w, 0.99).toFixed(1)}, max ${Math.max(...w).toFixed(1)} µs, ` +
    `${over} of ${w.length} over 2 ms${helpers}`
  );
}
