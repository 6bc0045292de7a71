// ToolEpisode.visibleToolsView: episodes started from one frozen visible list (and one shared tool index) share one
// frozen view until their visible set changes; otherwise each episode has its own, always equal to visibleTools().
import { describe, expect, it } from "vitest";
import { Rng, type ToolDefinition, ToolEpisode } from "../../src/index.js";

const schema = { type: "object" as const, properties: {} };
const tool = (name: string): ToolDefinition<object> => ({
  name,
  description: name,
  parameters: schema,
  run: () => ({ ok: true, output: 1 }),
});
const tools = Object.freeze([tool("a"), tool("b"), tool("c")]);

describe("ToolEpisode.visibleToolsView", () => {
  it("is one frozen array for episodes of one frozen list, and the episode's own once its visible set changes", () => {
    const visible = Object.freeze(["a", "b"]);
    const e1 = new ToolEpisode({ tools, visible, world: {}, rng: new Rng(1) });
    const e2 = new ToolEpisode({ tools, visible, world: {}, rng: new Rng(2) });
    const v1 = e1.visibleToolsView();
    expect(v1.map((t) => t.name)).toEqual(["a", "b"]);
    expect(Object.isFrozen(v1)).toBe(true);
    expect(e2.visibleToolsView()).toBe(v1);
    expect(e1.visibleToolsView()).toBe(v1);
    e1.reveal(["c"]);
    const own = e1.visibleToolsView();
    expect(own.map((t) => t.name)).toEqual(["a", "b", "c"]);
    expect(e2.visibleToolsView()).toBe(v1);
    e1.hide(["c"]);
    expect(e1.visibleToolsView()).toBe(v1);
    expect(e1.visibleToolsView()).toEqual(e1.visibleTools());
  });

  it("is the episode's own for a mutable visible list or an uncached tool index", () => {
    const mutable = new ToolEpisode({ tools, visible: ["a"], world: {}, rng: new Rng(1) });
    expect(Object.isFrozen(mutable.visibleToolsView())).toBe(false);
    const listTools = [tool("a"), tool("b")];
    const uncached = new ToolEpisode({ tools: listTools, visible: Object.freeze(["a"]), world: {}, rng: new Rng(1) });
    const other = new ToolEpisode({ tools: listTools, visible: Object.freeze(["a"]), world: {}, rng: new Rng(1) });
    expect(uncached.visibleToolsView()).not.toBe(other.visibleToolsView());
    expect(uncached.visibleToolsView()).toEqual(other.visibleToolsView());
  });
});
