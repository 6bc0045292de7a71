import { Env, type EnvMetadata, type EnvSpec, type Info, type ResetArgs, type StepResult } from "./env.js";
import type { Space } from "./spaces/space.js";

/**
 * A value passed through unchanged between the wrapper's types and the inner env's. They are the same types unless a
 * subclass changes them (`Wrapper<Obs, Act, InnerObs, InnerAct>`), and such a subclass overrides every member that
 * converts; the compiler cannot see that pairing, so the one cast of the forwarding boundary lives here.
 */
function forwarded<T>(value: unknown): T {
  return value as unknown as T;
}

/**
 * Base class for wrappers (Gymnasium's `Wrapper`): forwards everything to the inner env; subclasses override what
 * they change. Wrappers compose: `new TimeLimit(new RecordEpisodeStatistics(env), 50)`.
 */
export class Wrapper<Obs, Act, InnerObs = Obs, InnerAct = Act> extends Env<Obs, Act> {
  constructor(readonly env: Env<InnerObs, InnerAct>) {
    super();
  }
  get observationSpace(): Space<Obs> {
    return forwarded<Space<Obs>>(this.env.observationSpace);
  }
  get actionSpace(): Space<Act> {
    return forwarded<Space<Act>>(this.env.actionSpace);
  }
  get spec(): EnvSpec {
    return this.env.spec;
  }
  get metadata(): EnvMetadata {
    return this.env.metadata;
  }
  reset(args?: ResetArgs): [Obs, Info] {
    return forwarded<[Obs, Info]>(this.env.reset(args));
  }
  step(action: Act): StepResult<Obs> {
    return forwarded<StepResult<Obs>>(this.env.step(forwarded<InnerAct>(action)));
  }
  override checkAction(action: Act): void {
    this.env.checkAction(forwarded<InnerAct>(action));
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
    return forwarded<Env<Obs, Act>>(this.env.unwrapped);
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
