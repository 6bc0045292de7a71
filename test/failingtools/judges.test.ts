import { describe, expect, it } from "vitest";
import { conceptJudge, defaultJudge, knownConceptJudges, registerConceptJudge } from "../../envs/failingtools/index.js";
import { OptionsError } from "../../src/core/errors.js";
import type { JsonObject } from "../../src/core/json.js";
import { ftEnv } from "./helpers.js";

// A plugged-in judge (e.g. an LLM) is selected by name with the env option `judge`.
describe("concept judge registry", () => {
  const id = "ft-payments.send-availability-denial-temp-zelle";
  /** Answers after one clean send + read-back with `text`; returns the final metrics. */
  const finish = (judge: string | undefined, text: string): JsonObject => {
    const env = ftEnv({ setting: "base", ...(judge ? { judge } : {}) });
    const [, info] = env.reset({ seed: 0, options: { scenarioId: id } });
    const intent = info.intent as { tool: string; args: JsonObject };
    let out: JsonObject = {};
    for (let k = 0; k < 4; k++) {
      const [o] = env.step({ type: "tool_call", name: intent.tool, arguments: intent.args });
      out = o.response as JsonObject;
      if (!("error" in out)) break;
    }
    env.step({ type: "tool_call", name: "zelle_get_transfer", arguments: { transfer_id: String(out.transfer_id) } });
    const fin = env.step({ type: "answer", content: text })[4];
    return fin.metrics as JsonObject;
  };

  it("env option judge picks a registered judge; the default stays the deterministic matcher", () => {
    const seen: string[] = [];
    registerConceptJudge("test-lenient", (message, concept) => {
      seen.push(concept.id);
      return concept.kind === "text" || defaultJudge(message, concept) || message.includes("the usual amount");
    });
    expect(knownConceptJudges()).toEqual(expect.arrayContaining(["default", "test-lenient"]));
    expect(conceptJudge("test-lenient")).toBeTypeOf("function");
    const vague = "I sent the usual amount to your friend.";
    expect(finish(undefined, vague).score).toBeLessThan(1);
    expect(finish("default", vague).score).toBeLessThan(1);
    const lenient = finish("test-lenient", vague);
    expect(lenient.score).toBe(1);
    expect(seen).toContain("amount");
  });

  it("an unknown judge name is an options error naming the field and listing the known judges", () => {
    try {
      ftEnv({ judge: "gpt-judge-that-does-not-exist" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(OptionsError);
      expect((e as OptionsError).field).toBe("judge");
      expect((e as Error).message).toContain("gpt-judge-that-does-not-exist");
      expect((e as Error).message).toContain("default");
    }
    expect(() => registerConceptJudge("default", () => true)).toThrow(OptionsError);
    expect(() => registerConceptJudge("bad name!", () => true)).toThrow(OptionsError);
    expect(() => conceptJudge("nope")).toThrow(/known judges: .*default/);
  });
});
