import { describe, expect, it } from "vitest";
import { type Action, make, Rng, type ToolObservation } from "../../src/index.js";

describe("observation lists", () => {
  it("are frozen and shared while the visible set is unchanged (no copy per step)", () => {
    const env = make<ToolObservation, Action>("Demo-v0", { fault: "none" });
    const [first] = env.reset({ seed: 1 });
    expect(Object.isFrozen(first.visibleTools)).toBe(true);
    expect(Object.isFrozen(first.newTools)).toBe(true);
    expect(first.newTools.map((t) => t.name)).toEqual(first.visibleTools);
    const [second] = env.step({ type: "tool_call", name: "read_outbox", arguments: {} });
    expect(second.visibleTools).toBe(first.visibleTools);
    expect(second.newTools).toEqual([]);
    expect(Object.isFrozen(second.newTools)).toBe(true);
    expect(Object.isFrozen(second.removedTools)).toBe(true);
    expect(() => (second.visibleTools as string[]).push("x")).toThrow(TypeError);
    // A new episode starts from an empty visible set: a fresh list, and every schema again in newTools.
    const [next] = env.reset({ seed: 2 });
    expect(next.visibleTools).not.toBe(first.visibleTools);
    expect(next.visibleTools).toEqual(first.visibleTools);
    expect(next.newTools.length).toBe(next.visibleTools.length);
    // Schema views are made once per tool definition, frozen, and handed out again by every episode.
    for (let i = 0; i < next.newTools.length; i++) {
      expect(next.newTools[i]).toBe(first.newTools[i]);
      expect(Object.isFrozen(next.newTools[i])).toBe(true);
    }
    expect(() => {
      (next.newTools[0] as { name: string }).name = "renamed";
    }).toThrow(TypeError);
  });

  it("come fresh and frozen when the visible set changes (PlanBench-XL retrieval reveals tools)", () => {
    const env = make<ToolObservation, Action>("PlanBenchXL-v0");
    const [obs] = env.reset({ seed: 0 });
    const rng = new Rng(4);
    // Read the (empty) tool list through the action space first: what it remembers must not outlive the change.
    for (let i = 0; i < 20; i++) expect((env.actionSpace.sample(rng) as Action).type).not.toBe("tool_call");
    const text = '<retrieve_tools>{"meta_tool":"by_output_info","output_information":"shipment"}</retrieve_tools>';
    const [after] = env.step({ type: "text", text } as unknown as Action);
    expect(after.visibleTools).not.toBe(obs.visibleTools);
    expect(after.visibleTools.length).toBeGreaterThan(obs.visibleTools.length);
    expect(after.newTools.map((t) => t.name)).toEqual(after.visibleTools.filter((n) => !obs.visibleTools.includes(n)));
    for (const list of [after.visibleTools, after.newTools, after.removedTools]) expect(Object.isFrozen(list)).toBe(true);
    const called = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const a = env.actionSpace.sample(rng) as Action;
      if (a.type === "tool_call") called.add(String(a.name));
    }
    expect(called.size).toBeGreaterThan(1);
    for (const name of called) expect(after.visibleTools).toContain(name);
  });
});
