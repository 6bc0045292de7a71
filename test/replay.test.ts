import { describe, expect, it } from "vitest";
import { type Action, Rng, StateError, type ToolEnv, listEnvs, make, stableStringify } from "../src/index.js";

const envIds = listEnvs().map((e) => e.id);

/** Plays sampled actions; returns the trace of step results (excluding wall-clock-free info only). */
function play(env: ToolEnv<unknown>, rng: Rng, steps: number): string {
  const out: unknown[] = [];
  for (let t = 0; t < steps && !env.isDone(); t++) out.push(env.step(env.actionSpace.sample(rng) as Action));
  return stableStringify(out);
}

describe("counterfactual replay: getState / setState / fork", () => {
  for (const id of envIds) {
    it(`${id}: a restored or forked env continues exactly like the original`, () => {
      for (const seed of [1, 2, 3]) {
        const env = make(id) as unknown as ToolEnv<unknown>;
        env.reset({ seed });
        const prefixRng = new Rng(seed).derive("prefix");
        for (let t = 0; t < 3 && !env.isDone(); t++) env.step(env.actionSpace.sample(prefixRng) as Action);
        if (env.isDone()) continue;
        const state = JSON.parse(JSON.stringify(env.getState()));
        const fork = env.fork();
        const restored = make(id) as unknown as ToolEnv<unknown>;
        restored.setState(state);
        const original = play(env, new Rng(seed).derive("suffix"), 8);
        expect(play(fork, new Rng(seed).derive("suffix"), 8)).toBe(original);
        expect(play(restored, new Rng(seed).derive("suffix"), 8)).toBe(original);
      }
    });
  }

  it("rejects foreign or malformed states with a typed error", () => {
    const a = make("Demo-v0", { fault: "none" }) as unknown as ToolEnv<unknown>;
    const b = make("Demo-v0", { fault: "permanent" }) as unknown as ToolEnv<unknown>;
    expect(() => a.getState()).toThrow(StateError);
    a.reset({ seed: 1 });
    expect(() => b.setState(a.getState())).toThrow(/different env options/);
    expect(() => b.setState({} as never)).toThrow(StateError);
  });
});
