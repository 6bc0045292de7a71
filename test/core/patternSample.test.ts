/**
 * Sampled tool calls are valid calls: string patterns in tool schemas are honoured by the sampler, so a random
 * policy's "invalid arguments" errors are choices of the policy, never artefacts of sampling.
 */
import { describe, expect, it } from "vitest";
import { sampleFromPattern } from "../../src/core/patternSample.js";
import { Rng } from "../../src/core/rng.js";
import { type Action, type Env, listEnvs, make, type ToolActionSpace, type ToolStepInfo } from "../../src/index.js";

describe("sampleFromPattern", () => {
  const patterns = [
    "^[A-Z]{2,5}$",
    "^\\+[0-9]{7,15}$",
    "^ACC-\\d{5}$",
    "^-?\\d+\\.\\d+,-?\\d+\\.\\d+$",
    "^#[a-z-]+$",
    "^(USD|EUR|GBP)$",
    "^[^\\s@]+@(?:example|test)\\.(com|org)$",
    "^\\w{3,}-v\\d?$",
    "[a-c]x*",
    "^[\\]\\-a]{1}$",
  ];

  it("draws strings that match, deterministically per stream", () => {
    for (const p of patterns) {
      const re = new RegExp(p);
      const rng = new Rng(`p/${p}`);
      const draws = Array.from({ length: 300 }, () => sampleFromPattern(p, rng));
      for (const s of draws) expect(s !== null && re.test(s), `${p}: ${s}`).toBe(true);
      expect(new Set(draws).size, p).toBeGreaterThan(2);
      const again = new Rng(`p/${p}`);
      expect(Array.from({ length: 300 }, () => sampleFromPattern(p, again))).toEqual(draws);
    }
  });

  it("reports syntax outside its subset as null (the sampler then falls back)", () => {
    const rng = new Rng(1);
    for (const p of ["(?=a)b", "\\bword", "(a)\\1", "[z-a]", "*a", "(ab", "[ab"]) expect(sampleFromPattern(p, rng), p).toBeNull();
  });
});

describe("sampled actions of every registered env", () => {
  it("are valid calls of the visible tools and never rejected as invalid arguments", () => {
    for (const { id } of listEnvs()) {
      const env = make(id) as Env<unknown, Action, ToolStepInfo>;
      const space = env.actionSpace as ToolActionSpace;
      const rng = new Rng(`sample/${id}`);
      let invalid = 0;
      let calls = 0;
      for (let seed = 0; seed < 4; seed++) {
        env.reset({ seed });
        for (let t = 0; t < 25; t++) {
          const action = space.sample(rng);
          expect(space.contains(action), `${id}: ${JSON.stringify(action)}`).toBe(true);
          // The action space checks shape only; the tool-call space checks the arguments against the schemas.
          if (action.type === "tool_call")
            expect(space.toolCalls.contains({ name: action.name, arguments: action.arguments }), `${id}: ${JSON.stringify(action)}`).toBe(
              true,
            );
          const [, , terminated, truncated, info] = env.step(action);
          for (const e of info.events) {
            if (e.type === "tool_called") calls++;
            if (e.type === "tool_error" && e.code === "invalid_arguments") invalid++;
          }
          if (terminated || truncated) break;
        }
      }
      expect(invalid, id).toBe(0);
      if (id !== "PlanBenchXL-v0") expect(calls, id).toBeGreaterThan(0);
      env.close();
    }
  });
});
