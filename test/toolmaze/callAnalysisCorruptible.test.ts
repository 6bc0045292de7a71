// A non-corruptible CallAnalysis (what the env makes for a fault profile without silent faults) keeps no clean
// values; it must agree with the full analysis on every log it may see, and refuse a log it may not.
import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make, Rng } from "../../src/index.js";
import { CallAnalysis } from "../../envs/toolmaze/callAnalysis.js";
import type { ToolMazeEnv } from "../../envs/toolmaze/env.js";

type AnyEnv = ReturnType<typeof make> & ToolMazeEnv;

describe("CallAnalysis without corruption", () => {
  it("agrees with the full analysis on random play's call logs without corrupted fields, and refuses one with", () => {
    const env = make("ToolMaze-v0", {}) as AnyEnv;
    const rng = new Rng("corruptible-test");
    let compared = 0;
    let refused = 0;
    for (let ep = 0; ep < 40; ep++) {
      env.reset({ seed: ep * 13 });
      let done = false;
      while (!done) {
        const [, , terminated, truncated] = env.step(env.actionSpace.sample(rng.derive(`${ep}/${compared}/${refused}`)));
        done = terminated || truncated;
      }
      const { task } = env.current();
      const log = env.callLog();
      const full = new CallAnalysis(task);
      for (const c of log) full.add(c);
      if (log.some((c) => c.corruptedField !== undefined)) {
        const lean = new CallAnalysis(task, false);
        expect(() => {
          for (const c of log) lean.add(c);
        }).toThrow(/corrupted field/);
        refused++;
        continue;
      }
      const lean = new CallAnalysis(task, false);
      log.forEach((c, i) => expect(lean.add(c)).toBe(full.cleanFlags[i]));
      expect(lean.cleanFlags).toEqual(full.cleanFlags);
      expect([...lean.cleanTools]).toEqual([...full.cleanTools]);
      expect(lean.poisonedArgs).toEqual(full.poisonedArgs);
      expect([lean.poisonedUses, lean.unsafeActions]).toEqual([full.poisonedUses, full.unsafeActions]);
      compared++;
    }
    expect(compared).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(0);
  });
});
