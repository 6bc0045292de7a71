import { performance } from "node:perf_hooks";
import { type Env, type Info, type ResetArgs, type StepResult, Wrapper } from "../src/index.js";

/** Episode statistics reported at the end: return, length, wall time in seconds. */
export interface EpisodeStatistics {
  r: number;
  l: number;
  t: number;
}

/**
 * Adds `info.episode = { r, l, t }` on the final step (Gymnasium's RecordEpisodeStatistics). Wall time is for
 * reporting only and never feeds back into the episode, so determinism is unaffected.
 */
export class RecordEpisodeStatistics<Obs, Act> extends Wrapper<Obs, Act> {
  private ret = 0;
  private len = 0;
  private start = 0;
  readonly returnQueue: number[] = [];
  readonly lengthQueue: number[] = [];
  constructor(
    env: Env<Obs, Act>,
    readonly bufferLength = 100,
  ) {
    super(env);
  }
  override reset(args?: ResetArgs): [Obs, Info] {
    this.ret = 0;
    this.len = 0;
    this.start = performance.now();
    return this.env.reset(args);
  }
  override step(action: Act): StepResult<Obs> {
    const res = this.env.step(action);
    const [obs, reward, terminated, truncated, info] = res;
    this.ret += reward;
    this.len += 1;
    // Mid-episode the inner result is passed on as is (no copy of the tuple per step).
    if (!(terminated || truncated)) return res;
    const episode: EpisodeStatistics = { r: this.ret, l: this.len, t: (performance.now() - this.start) / 1000 };
    this.returnQueue.push(this.ret);
    this.lengthQueue.push(this.len);
    if (this.returnQueue.length > this.bufferLength) {
      this.returnQueue.shift();
      this.lengthQueue.shift();
    }
    // Object.assign, not a spread: see src/core/objects.ts (a key added after a spread is slow in Node 20's V8).
    return [obs, reward, terminated, truncated, Object.assign({}, info, { episode })];
  }
}
