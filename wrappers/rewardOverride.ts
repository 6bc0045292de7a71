import {
  type Env,
  type Info,
  type RawTerms,
  type ResetArgs,
  resolveRewardSpec,
  RewardComputer,
  type RewardSpec,
  type StepResult,
  Wrapper,
} from "../src/index.js";

/**
 * Re-scores an env's steps under another RewardSpec, from `info.rawTerms` and `info.phi` — the same computation the
 * env runs, so it equals making the env with that spec. Useful to compare specs on one stream of episodes.
 */
export class RewardSpecOverride<Obs, Act> extends Wrapper<Obs, Act> {
  readonly rewardSpec: RewardSpec;
  private readonly computer: RewardComputer;
  constructor(env: Env<Obs, Act>, spec: string | RewardSpec) {
    super(env);
    const terms = Object.keys((env.metadata.rewardTerms as Record<string, string> | undefined) ?? {});
    this.rewardSpec = resolveRewardSpec(spec, (env.metadata.family as string | undefined) ?? null, terms);
    this.computer = new RewardComputer(this.rewardSpec);
  }
  override reset(args?: ResetArgs): [Obs, Info] {
    const [obs, info] = this.env.reset(args);
    this.computer.reset((info.phi as number | null | undefined) ?? null);
    return [obs, info];
  }
  override step(action: Act): StepResult<Obs> {
    const [obs, , terminated, truncated, info] = this.env.step(action);
    const { reward, terms } = this.computer.step(
      (info.rawTerms as RawTerms | undefined) ?? {},
      (info.phi as number | null | undefined) ?? null,
    );
    // Object.assign, not a spread: see src/core/objects.ts (a key added after a spread is slow in Node 20's V8).
    return [obs, reward, terminated, truncated, Object.assign({}, info, { rewardTerms: terms })];
  }
}
