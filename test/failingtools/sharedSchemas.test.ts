import { describe, expect, it } from "vitest";
import "../../envs/failingtools/index.js";
import { generateScenarios } from "../../envs/failingtools/scenarios/generate.js";
import { pairTools, providerTools } from "../../envs/failingtools/world/index.js";
import { make } from "../../src/index.js";
import type { ToolObservation } from "../../src/engine/observation.js";

// A bridge session recognises an already-sent schema by identity: rebuilt definitions would cost it a deep
// comparison per schema and step, so these fail if a definition is built per episode again.
describe("FailingTools-v0 tool definitions are shared between episodes", () => {
  const env = make("FailingTools-v0", { setting: "base" });
  const newTools = (seed: number, scenarioId: string) =>
    (env.reset({ seed, options: { scenarioId } })[0] as unknown as ToolObservation).newTools;

  it("two episodes of a scenario, and scenarios of the same provider pair, hand out the same schema objects", () => {
    const all = generateScenarios();
    const s = all[0];
    const first = newTools(1, s.id);
    expect(first.length).toBeGreaterThan(0);
    const again = newTools(2, s.id);
    expect(again.length).toBe(first.length);
    again.forEach((t, i) => expect(t).toBe(first[i]));
    const sibling = all.find((x) => x.id !== s.id && x.primary === s.primary && x.fallback === s.fallback);
    if (sibling) {
      const byName = new Map(first.map((t) => [t.name, t]));
      for (const t of newTools(3, sibling.id)) if (byName.has(t.name)) expect(t).toBe(byName.get(t.name));
    }
  });

  it("hands out frozen definitions, one list per provider and per provider pair", () => {
    const [a, b] = [generateScenarios()[0].primary, generateScenarios()[0].fallback];
    expect(providerTools(a)).toBe(providerTools(a));
    expect(pairTools(a, b)).toBe(pairTools(a, b));
    expect(pairTools(a, b)).toEqual([...providerTools(a), ...providerTools(b)]);
    for (const t of pairTools(a, b)) {
      expect(Object.isFrozen(t) && Object.isFrozen(t.meta) && Object.isFrozen(t.semantics)).toBe(true);
      expect(() => {
        (t as { description: string }).description = "changed";
      }).toThrow(TypeError);
    }
  });
});
