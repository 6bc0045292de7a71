// No leakage through the retry budget (issue 13): the structured observation's `budget.retries` and the retry
// budget's end count only retries the agent can see (the same tool again after an error response), never a retry
// after a silent fault.
import { describe, expect, it } from "vitest";
import type { Action, EpisodeEvent, ToolObservation } from "../../src/index.js";
import { QuoteEnv } from "../helpers/quoteEnv.js";

const FETCH: Action = { type: "tool_call", name: "fetch_quote", arguments: { symbol: "ACME" } };

/** Fetches the quote `times` times; the observations, end flags and events after each step. */
function fetchRepeatedly(env: QuoteEnv, times: number): { obs: ToolObservation[]; ends: boolean[][]; events: EpisodeEvent[][] } {
  const [first] = env.reset({ seed: 7 });
  const out = { obs: [first], ends: [] as boolean[][], events: [] as EpisodeEvent[][] };
  for (let i = 0; i < times; i++) {
    const [obs, , terminated, truncated, info] = env.step(FETCH);
    out.obs.push(obs);
    out.ends.push([terminated, truncated]);
    out.events.push(info.events);
    if (terminated || truncated) break;
  }
  return out;
}

describe("retry budget: observable only", () => {
  it("a silently corrupted and a clean world with the same observable history give identical structured observations", () => {
    const clean = fetchRepeatedly(new QuoteEnv("clean"), 4);
    const silent = fetchRepeatedly(new QuoteEnv("silent"), 4);
    // Four calls, nothing visibly failed: the retry budget (1) is untouched and no budget ends the episode.
    expect(silent.obs).toEqual(clean.obs);
    expect(silent.ends).toEqual(clean.ends);
    expect(silent.ends).toHaveLength(4);
    expect(silent.obs.at(-1)?.budget.retries).toBe(1);
    // Underneath the worlds differ: faults fired, and the repeated fetches are retries (events, for rewards/metrics).
    const retries = (r: { events: EpisodeEvent[][] }) => r.events.flat().filter((e) => e.type === "retry").length;
    expect(retries(clean)).toBe(0);
    expect(retries(silent)).toBe(3);
    expect(silent.events.flat().some((e) => e.type === "fault_injected")).toBe(true);
  });

  it("a retry after an error response is charged, a repeat after a success is not", () => {
    const env = new QuoteEnv("visible");
    env.reset({ seed: 7 });
    const [failed] = env.step(FETCH); // 503: a visible failure
    expect(failed.budget.retries).toBe(1);
    const [retried, , terminated] = env.step(FETCH); // the transient fault is gone: a charged retry that succeeds
    expect([retried.budget.retries, terminated]).toEqual([0, false]);
    // A success in between: the next fetch is no retry of a failure, so nothing more is charged.
    const [again, , ended] = env.step(FETCH);
    expect([again.budget.retries, ended]).toEqual([0, false]);
  });
});
