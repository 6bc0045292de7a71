import type { Env, Info } from "./core/env.js";
import type { JsonObject } from "./core/json.js";
import { type EpisodeResult, make } from "./core/registry.js";
import { policyEntry } from "./ablation.js";
import { Rng } from "./core/rng.js";
import type { Wrapper } from "./core/wrapper.js";

export interface RolloutConfig {
  envId: string;
  options?: Record<string, unknown>;
  policy: string;
  episodes: number;
  /** Episode i is reset with seed + i. */
  seed?: number;
  /** Wraps the env (e.g. with RecordTrajectory) before the rollout. */
  wrap?: (env: Env<unknown, unknown>) => Env<unknown, unknown> | Wrapper<unknown, unknown>;
  onEpisode?: (result: EpisodeResult, index: number) => void;
  /** Hard cap on steps per episode, in case an env has no limit. */
  maxStepsPerEpisode?: number;
}

/** Runs a registered policy on a registered env for N seeded episodes and returns per-episode results. */
export function rollout(config: RolloutConfig): EpisodeResult[] {
  const entry = policyEntry(config.envId, config.policy);
  const base = make(config.envId, config.options ?? {});
  const env = config.wrap ? config.wrap(base) : base;
  const seed0 = config.seed ?? 0;
  const policy = entry.create(base, new Rng(seed0).derive(`policy:${config.policy}`));
  const results: EpisodeResult[] = [];
  const cap = config.maxStepsPerEpisode ?? 10_000;
  try {
    for (let ep = 0; ep < config.episodes; ep++) {
      const seed = seed0 + ep;
      let [obs, info] = env.reset({ seed });
      policy.reset?.(obs, info);
      let ret = 0;
      let len = 0;
      let last: Info = info;
      for (;;) {
        const action = policy.act(obs, info);
        const [o, r, term, trunc, i] = env.step(action);
        ret += r;
        len += 1;
        obs = o;
        info = i;
        last = i;
        if (term || trunc || len >= cap) break;
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
    }
  } finally {
    env.close();
  }
  return results;
}
