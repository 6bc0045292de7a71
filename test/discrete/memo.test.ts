import { describe, expect, it } from "vitest";
import { type DiscreteObservation, type DiscreteToolEnv, make, Rng, stableStringify } from "../../src/index.js";
import { candidates } from "../../src/engine/discrete/candidates.js";
import { encodeFeatures } from "../../src/engine/discrete/features.js";

/**
 * The discrete mode keeps per-env memos (held values, each tool's calls, history facts) so a step only computes what
 * the last one changed. They must never change a result: every observation, mask and candidate list of the env
 * equals what the memo-less functions compute from scratch for the same observable episode — through resets,
 * random play (failed calls, contradictions, templates) and `setState` jumps back and forth in an episode.
 */
const discrete = (id: string, options: Record<string, unknown> = {}) =>
  make(id, { ...options, actionMode: "discrete" }) as unknown as DiscreteToolEnv;

function fromScratch(env: DiscreteToolEnv): { observation: Float32Array; list: string } {
  const ep = env.inner.observableEpisode();
  if (!ep) throw new Error("no episode");
  const k = env.maxCandidates;
  const list = candidates(ep, { maxCandidates: k, perTool: Math.max(4, k >> 2), perArgument: 8, answers: Math.max(2, k >> 1) });
  return { observation: encodeFeatures(ep, list, k), list: stableStringify(list) };
}

function expectFromScratch(env: DiscreteToolEnv, obs: DiscreteObservation): void {
  const scratch = fromScratch(env);
  expect(stableStringify(env.currentCandidates())).toBe(scratch.list);
  expect(Buffer.from(obs.observation.buffer).equals(Buffer.from(scratch.observation.buffer))).toBe(true);
}

/** A random valid slot, or (one step in eight) any slot: a masked slot is an in-episode mistake. */
function pick(obs: DiscreteObservation, rng: Rng): number {
  if (rng.int(8) === 0) return rng.int(obs.action_mask.length);
  const valid = [...obs.action_mask.keys()].filter((k) => obs.action_mask[k] === 1);
  return valid[rng.int(valid.length)];
}

describe("discrete mode memos", () => {
  for (const [id, options, steps] of [
    ["ToolMaze-v0", {}, 80],
    ["ToolMaze-v1", { maxCandidates: 8 }, 40],
    ["Demo-v0", {}, 60],
    ["FailingTools-v0", {}, 80],
    ["ToolMisuseBench-v0", {}, 80],
  ] as const) {
    it(`${id}: each step's observation and candidates equal a from-scratch computation`, () => {
      const env = discrete(id, options);
      const rng = new Rng(11).derive(id);
      let [obs] = env.reset({ seed: 3 });
      expectFromScratch(env, obs);
      let episodes = 0;
      for (let t = 0; t < steps; t++) {
        const [next, , terminated, truncated] = env.step(pick(obs, rng));
        obs = next;
        expectFromScratch(env, obs);
        if (terminated || truncated) [obs] = env.reset({ seed: 3 + ++episodes });
        if (t === 0) expectFromScratch(env, obs);
      }
      expect(episodes).toBeGreaterThan(0);
    });
  }

  it("ToolMaze-v0: jumps back to an earlier state and forward again start the memo over", () => {
    const env = discrete("ToolMaze-v0");
    const rng = new Rng(5);
    for (let episode = 0; episode < 6; episode++) {
      let [obs] = env.reset({ seed: 40 + episode });
      const snapshots = [env.getState()];
      for (let t = 0; t < 6 && !env.isDone(); t++) {
        [obs] = env.step(pick(obs, rng));
        snapshots.push(env.getState());
      }
      const last = snapshots[snapshots.length - 1];
      for (const s of [snapshots[1] ?? snapshots[0], snapshots[0], last, snapshots[Math.floor(snapshots.length / 2)]]) {
        env.setState(s);
        expectFromScratch(env, env.currentObservation());
        if (!env.isDone()) {
          const [o] = env.step(pick(env.currentObservation(), rng));
          expectFromScratch(env, o);
        }
      }
    }
  });

  it("ToolMaze-v0: a tool call that binds the same values from the same sources stays the same object from step to step", () => {
    // The features' per-candidate memos key on the object: a rebuilt call list must keep unchanged calls.
    const env = discrete("ToolMaze-v0");
    const rng = new Rng(7);
    let kept = 0;
    for (let episode = 0; episode < 10; episode++) {
      let [obs] = env.reset({ seed: 60 + episode });
      let before = new Map(env.currentCandidates().map((c) => [stableStringify({ action: c.action, sources: c.sources }), c]));
      while (!env.isDone()) {
        [obs] = env.step(pick(obs, rng));
        const now = env.currentCandidates().filter((c) => c.kind === "tool_call");
        for (const c of now) {
          const earlier = before.get(stableStringify({ action: c.action, sources: c.sources }));
          if (earlier === undefined) continue;
          expect(earlier).toBe(c);
          kept++;
        }
        before = new Map(env.currentCandidates().map((c) => [stableStringify({ action: c.action, sources: c.sources }), c]));
      }
    }
    expect(kept).toBeGreaterThan(0);
  });
});
