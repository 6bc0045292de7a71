import { type Info, type ResetArgs, ResetNeededError, type StepResult, Wrapper } from "../src/index.js";

/**
 * Throws a typed error on `step()` before `reset()` or after the episode ended, for envs that do not enforce it
 * themselves (every ToolEnv already does; this makes the contract hold for any Env).
 */
export class OrderEnforcing<Obs, Act> extends Wrapper<Obs, Act> {
  private state: "fresh" | "running" | "ended" = "fresh";
  override reset(args?: ResetArgs): [Obs, Info] {
    const res = this.env.reset(args);
    this.state = "running";
    return res;
  }
  override step(action: Act): StepResult<Obs> {
    if (this.state === "fresh") throw new ResetNeededError("step() called before reset()");
    if (this.state === "ended") throw new ResetNeededError("step() called after the episode ended; call reset() first");
    const res = this.env.step(action);
    if (res[2] || res[3]) this.state = "ended";
    return res;
  }
  override episodeTruncated(reason: string): void {
    if (this.state === "running") this.state = "ended";
    super.episodeTruncated(reason);
  }
  override render(): string {
    if (this.state === "fresh") throw new ResetNeededError("render() called before reset()");
    return this.env.render();
  }
}
