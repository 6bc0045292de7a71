import { performance } from "node:perf_hooks";
import type { Env, Info } from "./core/env.js";
import type { JsonObject } from "./core/json.js";
import { type EpisodeResult, make } from "./core/registry.js";
import { episodePolicyRng, policyEntry } from "./ablation.js";
import { episodeSteps } from "./episodeLoop.js";
import type { Wrapper } from "./core/wrapper.js";

export interface RolloutConfig {
  envId: string;
  options?: Record<string, unknown>;
  policy: string;
  episodes: number;
  /** Episode i is reset with seed + i. */
  seed?: number;
  /** Explicit seeds, one episode each, in order (instead of `seed` and `episodes`), e.g. to resume a collection. */
  seeds?: readonly number[];
  /** Wraps the env (e.g. with RecordTrajectory) before the rollout. */
  wrap?: (env: Env<unknown, unknown>) => Env<unknown, unknown> | Wrapper<unknown, unknown>;
  onEpisode?: (result: EpisodeResult, index: number) => void;
  /** Hard cap on steps per episode, in case an env has no limit. */
  maxStepsPerEpisode?: number;
}

/**
 * The rollout as a sequence of steps: it yields after every env step and appends each finished episode to
 * `results`. `rollout` runs it straight through; `rolloutAsync` pauses at the yields to let the event loop run
 * (signals, timers). Returning it early (`.return()`) closes the env, so a recorder flushes its episode.
 */
function* rolloutSteps(config: RolloutConfig, results: EpisodeResult[]): Generator<void, void, void> {
  const entry = policyEntry(config.envId, config.policy);
  const base = make(config.envId, config.options ?? {});
  const env = config.wrap ? config.wrap(base) : base;
  const seed0 = config.seed ?? 0;
  const seeds = config.seeds ?? Array.from({ length: config.episodes }, (_, i) => seed0 + i);
  const cap = config.maxStepsPerEpisode ?? 10_000;
  try {
    for (let ep = 0; ep < seeds.length; ep++) {
      const seed = seeds[ep];
      // A fresh policy per episode, seeded from the episode's seed: episode k is the same whether it runs alone or
      // after others (and the same as `recordEpisodes`, so eval and ablate see identical episodes).
      const policy = entry.create(base, episodePolicyRng(seed, config.policy));
      let ret = 0;
      let len = 0;
      let last: Info = {};
      for (const s of episodeSteps(env, policy, seed, { maxSteps: cap })) {
        ret += s.reward;
        len += 1;
        last = s.info;
        if (!s.terminated && !s.truncated && len < cap) yield;
      }
      const result: EpisodeResult = {
        seed,
        taskId: String(last.taskId ?? ""),
        return: ret,
        length: len,
        success: last.success === true,
        terminationReason: String(last.terminationReason ?? "max_steps"),
        metrics: (last.metrics as JsonObject | undefined) ?? {},
      };
      results.push(result);
      config.onEpisode?.(result, ep);
      yield;
    }
  } finally {
    env.close();
  }
}

/** Runs a registered policy on a registered env for N seeded episodes and returns per-episode results (synchronous). */
export function rollout(config: RolloutConfig): EpisodeResult[] {
  const results: EpisodeResult[] = [];
  const steps = rolloutSteps(config, results);
  while (!steps.next().done);
  return results;
}

export interface RolloutControl {
  /** Stops the rollout at the next pause: the env is closed (recorders flush) and the results so far returned. */
  signal?: AbortSignal;
  /** Longest stretch of stepping between two pauses for the event loop (default 20 ms). */
  yieldEveryMs?: number;
}

/**
 * `rollout` for long-running callers such as the CLI: it gives the event loop a turn at least every
 * `yieldEveryMs`, so signal handlers (Ctrl-C) and timers run, and stops promptly when `signal` aborts. Episodes
 * are the same as with `rollout` (the same step sequence); only the pauses differ.
 */
export async function rolloutAsync(
  config: RolloutConfig,
  control: RolloutControl = {},
): Promise<{ results: EpisodeResult[]; interrupted: boolean }> {
  const results: EpisodeResult[] = [];
  const every = control.yieldEveryMs ?? 20;
  if (control.signal?.aborted) return { results, interrupted: true };
  const steps = rolloutSteps(config, results);
  let lastPause = performance.now();
  while (!steps.next().done) {
    if (performance.now() - lastPause < every) continue;
    await new Promise<void>((resolve) => setImmediate(resolve));
    lastPause = performance.now();
    if (control.signal?.aborted) {
      steps.return();
      return { results, interrupted: true };
    }
  }
  return { results, interrupted: false };
}
