import { type Env, type EnvSpec, type Info, type ResetArgs, type StepResult, Wrapper } from "../src/index.js";

/**
 * Truncates an episode after `maxEpisodeSteps` steps (reason `max_steps`), as Gymnasium's TimeLimit, and reports
 * that limit in `spec.maxEpisodeSteps`. Wrappers inside it learn of the truncation (`episodeTruncated`), so a
 * RecordTrajectory under a TimeLimit records the episode as truncated at max_steps.
 */
export class TimeLimit<Obs, Act> extends Wrapper<Obs, Act> {
  private elapsed = 0;
  private readonly limitedSpec: EnvSpec;
  constructor(
    env: Env<Obs, Act>,
    readonly maxEpisodeSteps: number,
  ) {
    super(env);
    if (!Number.isInteger(maxEpisodeSteps) || maxEpisodeSteps < 1) throw new RangeError(`TimeLimit: maxEpisodeSteps must be a positive integer, got ${maxEpisodeSteps}`);
    this.limitedSpec = { ...env.spec, maxEpisodeSteps };
  }
  override get spec(): EnvSpec {
    return this.limitedSpec;
  }
  override reset(args?: ResetArgs): [Obs, Info] {
    this.elapsed = 0;
    return this.env.reset(args);
  }
  override step(action: Act): StepResult<Obs> {
    const [obs, reward, terminated, truncated, info] = this.env.step(action);
    this.elapsed += 1;
    if (!terminated && !truncated && this.elapsed >= this.maxEpisodeSteps) {
      this.episodeTruncated("max_steps");
      return [obs, reward, false, true, { ...info, terminationReason: "max_steps" }];
    }
    return [obs, reward, terminated, truncated, info];
  }
}
