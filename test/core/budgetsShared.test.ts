// Episodes without budgets share one frozen budget object (no object per episode); episodes with budgets keep their own.
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/rng.js";
import { ToolEpisode } from "../../src/engine/episode.js";

describe("ToolEpisode.budgets", () => {
  it("is one shared frozen object when the episode has no budgets, and the episode's own values otherwise", () => {
    const config = { tools: [], visible: [], world: {}, rng: new Rng(1) };
    const a = new ToolEpisode(config);
    const b = new ToolEpisode(config);
    expect(a.budgets).toBe(b.budgets);
    expect(Object.isFrozen(a.budgets)).toBe(true);
    expect(a.budgets).toEqual({ steps: null, toolCalls: null, retries: null });
    expect(() => {
      (a.budgets as { toolCalls: number | null }).toolCalls = 3;
    }).toThrow(TypeError);
    const c = new ToolEpisode({ ...config, budgets: { toolCalls: 4 } });
    expect(c.budgets).toEqual({ steps: null, toolCalls: 4, retries: null });
    expect(c.budgets).not.toBe(a.budgets);
  });
});
