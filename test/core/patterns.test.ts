import { describe, expect, it } from "vitest";
import { DEFAULT_PATTERN_RULES, recoveryPatterns, type PatternCall } from "../../src/engine/patterns.js";
import { eventsOfType, type EpisodeEvent } from "../../src/engine/events.js";
import "../../envs/toolmisuse/events.js";
import { ToolEpisode } from "../../src/engine/episode.js";
import type { ToolDefinition } from "../../src/engine/tool.js";
import { Rng } from "../../src/core/rng.js";

const c = (index: number, tool: string, ok: boolean, faults: string[] = []): PatternCall => ({
  index,
  tool,
  ok,
  faults,
  faultPersistence: faults.length ? "permanent" : null,
});
const groupOf = (t: string) => (t.startsWith("g") ? "grp" : undefined);
const errorOnly = { failure: "error", switchFrom: "previous_call" } as const;

describe("recovery patterns (one detection, per-benchmark rules)", () => {
  it("retry: the engine default also reacts to a fault on a successful call; the error-only rule does not", () => {
    const calls = [c(1, "a", true, ["drift"])];
    expect(recoveryPatterns(calls, "a", 2, groupOf).retry).toEqual({
      type: "retry",
      tool: "a",
      callIndex: 2,
      ofCallIndex: 1,
      afterFault: true,
      persistence: "permanent",
    });
    expect(recoveryPatterns(calls, "a", 2, groupOf, errorOnly).retry).toBeNull();
    expect(recoveryPatterns([c(1, "a", false), c(2, "b", true)], "a", 3, groupOf, errorOnly).retry?.ofCallIndex).toBe(1);
  });

  it("switch: the group's latest call on first use (default) or exactly the previous call", () => {
    const calls = [c(1, "g1", false), c(2, "x", true)];
    expect(recoveryPatterns(calls, "g2", 3, groupOf, DEFAULT_PATTERN_RULES).alternativeSwitch).toEqual({
      type: "alternative_switch",
      from: "g1",
      to: "g2",
      group: "grp",
      callIndex: 3,
      afterFault: false,
    });
    expect(recoveryPatterns(calls, "g2", 3, groupOf, errorOnly).alternativeSwitch).toBeNull();
    expect(recoveryPatterns([c(1, "g1", false)], "g2", 2, groupOf, errorOnly).alternativeSwitch?.from).toBe("g1");
    // Default: a tool already used is not switched to again; previous_call counts every hop.
    const back = [c(1, "g2", true), c(2, "g1", false)];
    expect(recoveryPatterns(back, "g2", 3, groupOf).alternativeSwitch).toBeNull();
    expect(recoveryPatterns(back, "g2", 3, groupOf, errorOnly).alternativeSwitch?.from).toBe("g1");
  });

  it("registered family events are typed members of EpisodeEvent", () => {
    const events: EpisodeEvent[] = [{ type: "toolmisuse:recovered", tool: "t", callIndex: 2, afterSteps: 1 }, { type: "success" }];
    const recovered = eventsOfType(events, "toolmisuse:recovered");
    const steps: number = recovered[0]!.afterSteps;
    expect(steps).toBe(1);
  });
});

describe("the engine's indexed pattern detection", () => {
  it("finds the same retries and switches as a scan of the records, also after its data is replaced", () => {
    const tool = (name: string, group?: string): ToolDefinition<null> => ({
      name,
      description: name,
      parameters: { type: "object", properties: { fail: { type: "boolean" } }, required: ["fail"] },
      ...(group ? { meta: { group } } : {}),
      run: (args) => (args.fail ? { ok: false, error: { code: "x", message: "x" } } : { ok: true, output: 1 }),
    });
    const tools = [tool("g1", "grp"), tool("g2", "grp"), tool("g3", "grp"), tool("h1", "other"), tool("h2", "other"), tool("solo")];
    const names = [...tools.map((t) => t.name), "unknown"];
    const groupOf = (t: string) => tools.find((d) => d.name === t)?.meta?.group;
    for (const rules of [DEFAULT_PATTERN_RULES, errorOnly]) {
      const rng = new Rng(`patterns-${rules.switchFrom}`);
      const visible = tools.map((t) => t.name);
      const ep = new ToolEpisode<null>({ tools, visible, world: null, rng, pipeline: { patternRules: rules } });
      let compared = 0;
      for (let i = 1; i <= 300; i++) {
        // A restored episode gets its data as a new object with new arrays (setState), here as long as the old one but
        // in another order: the index must follow the records, not its own history.
        if (i % 50 === 0) ep.data = { ...ep.data, calls: [...ep.data.calls].reverse() };
        const name = rng.pick(names);
        const before = [...ep.data.calls];
        const { events } = ep.call(name, { fail: rng.bool(0.4) }, i);
        const want = recoveryPatterns(before, name, i, groupOf, rules);
        expect(events.find((e) => e.type === "retry") ?? null).toEqual(want.retry);
        expect(events.find((e) => e.type === "alternative_switch") ?? null).toEqual(want.alternativeSwitch);
        if (want.retry || want.alternativeSwitch) compared++;
      }
      expect(compared).toBeGreaterThan(50);
    }
  });
});
