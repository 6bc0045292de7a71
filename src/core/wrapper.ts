import { Env, type EnvMetadata, type EnvSpec, type Info, type ResetArgs, type StepResult } from "./env.js";
import type { Space } from "./spaces/space.js";

/**
 * Base class for wrappers (Gymnasium's `Wrapper`): forwards everything to the inner env; subclasses override what
 * they change. Wrappers compose: `new TimeLimit(new RecordEpisodeStatistics(env), 50)`.
 */
export class Wrapper<Obs, Act, InnerObs = Obs, InnerAct = Act> extends Env<Obs, Act> {
  constructor(readonly env: Env<InnerObs, InnerAct>) {
    super();
  }
  get observationSpace(): Space<Obs> {
    return this.env.observationSpace as unknown as Space<Obs>;
  }
  get actionSpace(): Space<Act> {
    return this.env.actionSpace as unknown as Space<Act>;
  }
  get spec(): EnvSpec {
    return this.env.spec;
  }
  get metadata(): EnvMetadata {
    return this.env.metadata;
  }
  reset(args?: ResetArgs): [Obs, Info] {
    return this.env.reset(args) as unknown as [Obs, Info];
  }
  step(action: Act): StepResult<Obs> {
    return this.env.step(action as unknown as InnerAct) as unknown as StepResult<Obs>;
  }
  override checkAction(action: Act): void {
    this.env.checkAction(action as unknown as InnerAct);
  }
  override render(): string {
    return this.env.render();
  }
  override close(): void {
    this.env.close();
  }
  override limitEpisodeSteps(maxSteps: number): boolean {
    return this.env.limitEpisodeSteps(maxSteps);
  }
  override get unwrapped(): Env<Obs, Act> {
    return this.env.unwrapped as unknown as Env<Obs, Act>;
  }
  /**
   * An outer wrapper (TimeLimit) ended the episode that this wrapper and the envs inside it still consider running.
   * Wrappers that track episodes (recorders, order checks) override this to close their episode the same way;
   * the default passes the news inwards.
   */
  episodeTruncated(reason: string): void {
    if (this.env instanceof Wrapper) this.env.episodeTruncated(reason);
  }
}
