import { type Env, type EnvSpec, type Info, type ResetArgs, ResetNeededError, type StepResult, Wrapper } from "../src/index.js";

/**
 * Truncates an episode after `maxEpisodeSteps` steps (reason `max_steps`), as Gymnasium's TimeLimit, and reports
 * that limit in `spec.maxEpisodeSteps`. There is one step limit: the wrapper lowers the env's own
 * (`limitEpisodeSteps`), so the env ends the episode itself, with the same final info (`success`, `metrics`,
 * `hidden`), reward and end-of-episode checks as when its own limit is reached. Only an env without a step limit
 * of its own is truncated here; wrappers inside then learn of it through `episodeTruncated`, so a RecordTrajectory
 * under the TimeLimit still records the episode as truncated at max_steps.
 */
export class TimeLimit<Obs, Act> extends Wrapper<Obs, Act> {
  private elapsed = 0;
  /** The episode this wrapper truncated (an env without its own limit would go on stepping). */
  private truncatedHere = false;
  private readonly limitedSpec: EnvSpec;
  /** Whether the env enforces the limit itself (every ToolEnv does). */
  private readonly enforcedByEnv: boolean;
  constructor(
    env: Env<Obs, Act>,
    readonly maxEpisodeSteps: number,
  ) {
    super(env);
    if (!Number.isInteger(maxEpisodeSteps) || maxEpisodeSteps < 1)
      throw new RangeError(`TimeLimit: maxEpisodeSteps must be a positive integer, got ${maxEpisodeSteps}`);
    this.limitedSpec = { ...env.spec, maxEpisodeSteps };
    this.enforcedByEnv = env.limitEpisodeSteps(maxEpisodeSteps);
  }
  override get spec(): EnvSpec {
    return this.limitedSpec;
  }
  override reset(args?: ResetArgs): [Obs, Info] {
    this.elapsed = 0;
    this.truncatedHere = false;
    return this.env.reset(args);
  }
  override step(action: Act): StepResult<Obs> {
    if (this.truncatedHere) throw new ResetNeededError("step() called after the episode ended (TimeLimit); call reset() first");
    const res = this.env.step(action);
    // The inner result is passed on as is unless this wrapper truncates: no copy of the tuple per step.
    if (this.enforcedByEnv) return res;
    this.elapsed += 1;
    const [obs, reward, terminated, truncated, info] = res;
    if (!terminated && !truncated && this.elapsed >= this.maxEpisodeSteps) {
      this.truncatedHere = true;
      this.episodeTruncated("max_steps");
      return [obs, reward, false, true, { ...info, terminationReason: "max_steps" }];
    }
    return res;
  }
}
