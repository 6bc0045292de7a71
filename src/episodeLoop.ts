import type { Env, Info } from "./core/env.js";
import type { Policy } from "./core/registry.js";

/** One step of an episode as the loop played it. */
export interface PlayedStep<Obs, Act> {
  /** 0-based index of the step. */
  t: number;
  action: Act;
  obs: Obs;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Info;
}

export interface EpisodeLoopOptions<Obs, Act> {
  /** At most this many steps (a cap for envs without a step limit). */
  maxSteps: number;
  /** Sees the reset observation and info (before the policy's own reset). */
  onReset?: (obs: Obs, info: Info) => void;
  /**
   * The action actually taken at step t instead of the policy's proposal; the policy is still asked every step, so
   * it sees every observation (pairs replays a prefix this way).
   */
  override?: (t: number, proposed: Act) => Act;
}

/**
 * The one episode loop under `rollout`, `ablate` (recordEpisodes) and `pairs`: resets `env` with `seed`, lets
 * `policy` act until the episode ends or `maxSteps` steps were taken, and yields every step, so a caller can total
 * rewards, keep raw terms, snapshot state, or pause for the event loop between steps.
 */
export function* episodeSteps<Obs, Act>(
  env: Env<Obs, Act>,
  policy: Policy<Obs, Act>,
  seed: number,
  options: EpisodeLoopOptions<Obs, Act>,
): Generator<PlayedStep<Obs, Act>, void, void> {
  let [obs, info] = env.reset({ seed });
  options.onReset?.(obs, info);
  policy.reset?.(obs, info);
  for (let t = 0; t < options.maxSteps; t++) {
    const proposed = policy.act(obs, info);
    const action = options.override ? options.override(t, proposed) : proposed;
    const [o, reward, terminated, truncated, i] = env.step(action);
    obs = o;
    info = i;
    yield { t, action, obs, reward, terminated, truncated, info };
    if (terminated || truncated) return;
  }
}
