import { describe, expect, it } from "vitest";
import { OptionsError } from "../../src/core/errors.js";
import { rollout } from "../../src/rollout.js";
import { generateScenarios } from "../../envs/failingtools/scenarios/generate.js";
import { HARNESSES, harnessPrompt } from "../../envs/failingtools/harness.js";
import { ftEnv } from "./helpers.js";

describe("prompt-harness variants H1-H3", () => {
  const s = generateScenarios()[0]!;
  it("H1 is the request alone (the default); H2 adds a failure notice; H3 also the recovery protocol", () => {
    const prompts = HARNESSES.map((h) => {
      const env = ftEnv({ harness: h, scenarioId: s.id });
      const task = env.reset({ seed: 0 })[0].task;
      env.close();
      return task;
    });
    expect(prompts[0]).toBe(s.request);
    expect(ftEnv({ scenarioId: s.id }).reset({ seed: 0 })[0].task).toBe(s.request);
    expect(prompts[1]).toBe(harnessPrompt("H2", s.request));
    expect(prompts[1]!.endsWith(`User request: ${s.request}`)).toBe(true);
    expect(prompts[1]).toMatch(/can fail/);
    expect(prompts[2]!.startsWith(prompts[1]!.slice(0, prompts[1]!.indexOf("\n")))).toBe(true);
    expect(prompts[2]).toMatch(/read-back/);
    expect(prompts[2]).toMatch(/ask the user to confirm/);
    expect(prompts[2]!.endsWith(`User request: ${s.request}`)).toBe(true);
  });
  it("changes only the prompt: the scripted careful policy scores the same under every variant, on every scenario", () => {
    const n = generateScenarios().length;
    const scores = HARNESSES.map((harness) => {
      const options = { setting: "base", cycle: true, harness };
      return rollout({ envId: "FailingTools-v0", options, policy: "careful", episodes: n, seed: 0 }).map((r) => r.metrics.score);
    });
    expect(scores[1]).toEqual(scores[0]);
    expect(scores[2]).toEqual(scores[0]);
  });
  it("an unknown variant is an options error naming the field", () => {
    try {
      ftEnv({ harness: "H4" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(OptionsError);
      expect((e as OptionsError).field).toBe("harness");
    }
  });
});
