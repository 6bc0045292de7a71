import { describe, expect, it } from "vitest";
import {
  type CorruptionFn,
  type EpisodeEvent,
  type FaultSpec,
  Rng,
  type ToolDefinition,
  ToolEpisode,
  faultFires,
} from "../../src/index.js";

interface World {
  saved: string[];
}
const schema = { type: "object" as const, properties: { city: { type: "string" as const } }, required: ["city"] };
const tools: ToolDefinition<World>[] = [
  {
    name: "a1",
    description: "A1",
    parameters: schema,
    meta: { group: "g" },
    run: (args) => ({ ok: true, output: { city: args.city as string, temp: 20 } }),
  },
  {
    name: "a2",
    description: "A2",
    parameters: schema,
    meta: { group: "g" },
    run: (args) => ({ ok: true, output: { city: args.city as string, temp: 20 } }),
  },
  {
    name: "save",
    description: "Save",
    parameters: schema,
    meta: { mutates: true },
    run: (args, ctx) => {
      ctx.state.saved.push(args.city as string);
      return { ok: true, output: { saved: true } };
    },
  },
  {
    name: "list",
    description: "List",
    parameters: { type: "object", properties: {} },
    meta: { verifies: ["save"] },
    run: (_a, ctx) => ({ ok: true, output: { saved: [...ctx.state.saved] } }),
  },
  { name: "hidden", description: "H", parameters: schema, run: () => ({ ok: true, output: 1 }) },
];
const corruptions: Record<string, CorruptionFn<World>> = {
  freeze: ({ output }) => ({ ...(output as object), temp: -400 }),
  fakeSave: () => ({ saved: true }),
};

function episode(faults: FaultSpec[]) {
  return new ToolEpisode<World>({
    tools,
    visible: ["a1", "a2", "save", "list"],
    world: { saved: [] },
    faults,
    corruptions,
    rng: new Rng(1),
  });
}
const types = (events: EpisodeEvent[]) => events.map((e) => e.type);
const err503: FaultSpec["effect"] = { type: "error", error: { code: "unavailable", status: 503, message: "down" } };

describe("ToolEpisode call pipeline", () => {
  it("gives each call a private stream, derived only when the tool asks for it (ctx.rng())", () => {
    const draws: number[] = [];
    const dice: ToolDefinition<World> = {
      name: "dice",
      description: "Dice",
      parameters: { type: "object", properties: {} },
      run: (_a, ctx) => {
        draws.push(ctx.rng().random(), ctx.rng().random());
        return { ok: true, output: draws.length };
      },
    };
    const ep = new ToolEpisode<World>({ tools: [dice], visible: ["dice"], world: { saved: [] }, rng: new Rng(7) });
    ep.call("dice", {}, 1);
    ep.call("dice", {}, 2);
    const root = new Rng(7);
    const want = [1, 2].map((i) => root.derive(`call:${i}`).random());
    // The same stream each time the tool asks within a call; another one for the next call.
    expect(draws).toEqual([want[0], want[0], want[1], want[1]]);
    // A tool may also take the function off its context.
    let detached = 0;
    const off: ToolDefinition<World> = {
      ...dice,
      name: "off",
      run: (_a, ctx) => {
        const { rng } = ctx;
        detached = rng().random();
        return { ok: true, output: detached };
      },
    };
    const ep2 = new ToolEpisode<World>({ tools: [off], visible: ["off"], world: { saved: [] }, rng: new Rng(7) });
    ep2.call("off", {}, 1);
    expect(detached).toBe(want[0]);
  });

  it("tests a fault's state and draw only for calls of its tools or group", () => {
    const fault: FaultSpec = {
      id: "p",
      kind: "http_503",
      visibility: "explicit",
      persistence: { type: "permanent" },
      trigger: { tools: ["a1"], prob: 0.5 },
      effect: err503,
    };
    const ep = episode([fault]);
    const fired = [];
    for (let i = 1; i <= 12; i++) fired.push(ep.call(i % 2 ? "a1" : "a2", { city: "x" }, i).record!.faults.length > 0);
    // Calls of a2 never fire and never draw: a1's outcomes are the fault's own stream, draw by draw.
    const stream = new Rng(1).derive("fault:p");
    expect(fired).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => (i % 2 ? stream.random() < 0.5 : false)));
    expect(ep.data.faultStates.p.hits).toBe(fired.filter(Boolean).length);
  });

  it("agent mistakes are error responses with a source, never throws", () => {
    const ep = episode([]);
    expect(ep.call("nope", {}, 1).record!.errorSource).toBe("unknown_tool");
    expect(ep.call("hidden", { city: "x" }, 2).record!.errorSource).toBe("not_visible");
    const bad = ep.call("a1", { town: "x" }, 3);
    expect(bad.record!.errorSource).toBe("validation");
    expect(bad.record!.response).toMatchObject({ error: { code: "invalid_arguments" } });
    expect(types(bad.events)).toEqual(["tool_called", "tool_error"]);
    expect(ep.data.calls.map((c) => c.index)).toEqual([1, 2, 3]);
  });

  it("transient group-bound fault: first member called is the victim, only its first call fails, retry recovers", () => {
    const ep = episode([
      {
        id: "f",
        kind: "http_503",
        visibility: "explicit",
        persistence: { type: "transient" },
        trigger: { group: "g", bindFirstInGroup: true },
        effect: err503,
      },
    ]);
    const first = ep.call("a2", { city: "Oslo" }, 1);
    expect(first.record!.ok).toBe(false);
    expect(types(first.events)).toEqual(["tool_called", "fault_injected", "tool_error"]);
    const retry = ep.call("a2", { city: "Oslo" }, 2);
    expect(retry.record!.ok).toBe(true);
    expect(retry.events.find((e) => e.type === "retry")).toMatchObject({ ofCallIndex: 1, afterFault: true, persistence: "transient" });
    expect(ep.call("a1", { city: "Oslo" }, 3).record!.ok).toBe(true);
    expect(ep.data.faultStates.f.victim).toBe("a2");
  });

  it("permanent fault keeps failing; the alternative is untouched and the switch is an event", () => {
    const ep = episode([
      {
        id: "f",
        kind: "http_503",
        visibility: "explicit",
        persistence: { type: "permanent" },
        trigger: { group: "g", bindFirstInGroup: true },
        effect: err503,
      },
    ]);
    expect(ep.call("a1", { city: "Oslo" }, 1).record!.ok).toBe(false);
    const again = ep.call("a1", { city: "Oslo" }, 2);
    expect(again.record!.ok).toBe(false);
    expect(again.events.find((e) => e.type === "retry")).toMatchObject({ persistence: "permanent" });
    const sw = ep.call("a2", { city: "Oslo" }, 3);
    expect(sw.record!.ok).toBe(true);
    expect(sw.events.find((e) => e.type === "alternative_switch")).toMatchObject({ from: "a1", to: "a2", group: "g", afterFault: true });
  });

  it("a frozen fault list shared by episodes: each fault meets only its own group's or tools' calls, per episode", () => {
    // Group and tool triggers side by side, as a family's cached list hands them to every episode of an instance.
    const shared: readonly FaultSpec[] = Object.freeze([
      { id: "s", kind: "x", visibility: "explicit", persistence: { type: "permanent" }, trigger: { tools: ["save"] }, effect: err503 },
      {
        id: "g",
        kind: "x",
        visibility: "explicit",
        persistence: { type: "permanent" },
        trigger: { group: "g", bindFirstInGroup: true },
        effect: err503,
      },
    ]);
    const run = (calls: string[]) => {
      const ep = new ToolEpisode<World>({
        tools,
        visible: ["a1", "a2", "save", "list"],
        world: { saved: [] },
        faults: shared,
        rng: new Rng(1),
      });
      const ok = calls.map((tool, i) => ep.call(tool, tool === "list" ? {} : { city: "Oslo" }, i + 1).record!.ok);
      return { ok, victim: ep.data.faultStates.g.victim, hits: [ep.data.faultStates.s.hits, ep.data.faultStates.g.hits] };
    };
    expect(run(["list", "a2", "save", "a1", "a2"])).toEqual({ ok: [true, false, false, true, false], victim: "a2", hits: [1, 2] });
    // The next episode binds its own victim: nothing of the last one's stage carries over through the shared list.
    expect(run(["a1", "a2", "list"])).toEqual({ ok: [false, true, true], victim: "a1", hits: [0, 1] });
  });

  it("temporary fault fails exactly N attempts", () => {
    const ep = episode([
      {
        id: "f",
        kind: "x",
        visibility: "explicit",
        persistence: { type: "temporary", attempts: 2 },
        trigger: { tools: ["a1"] },
        effect: err503,
      },
    ]);
    expect([1, 2, 3, 4].map((s) => ep.call("a1", { city: "x" }, s).record!.ok)).toEqual([false, false, true, true]);
  });

  it("implicit corruption taints values; reusing them is a poisoned-value event", () => {
    const ep = episode([
      {
        id: "c",
        kind: "physics",
        visibility: "implicit",
        persistence: { type: "permanent" },
        trigger: { tools: ["a1"] },
        effect: { type: "corrupt", transform: "freeze" },
      },
    ]);
    const r = ep.call("a1", { city: "Oslo" }, 1);
    expect(r.record!.ok).toBe(true);
    expect(r.record!.response).toMatchObject({ temp: -400 });
    expect(r.record!.taint).toBe("corrupted");
    const reuse = ep.call("save", { city: "-400" }, 2);
    expect(reuse.events.some((e) => e.type === "poisoned_value_reused")).toBe(false);
    const ep2 = episode([
      {
        id: "c",
        kind: "x",
        visibility: "implicit",
        persistence: { type: "permanent" },
        trigger: { tools: ["a1"] },
        effect: { type: "corrupt", transform: "freeze" },
      },
    ]);
    ep2.call("a1", { city: "Tromso" }, 1);
    const poisoned = ep2.call("a2", { city: "Tromso" }, 2);
    expect(poisoned.events.find((e) => e.type === "poisoned_value_reused")).toMatchObject({
      argument: "city",
      sourceCallIndex: 1,
      taint: "corrupted",
    });
  });

  it("a silent no-op answers success without writing; a read-back reveals it and is a verification event", () => {
    const ep = episode([
      {
        id: "noop",
        kind: "silent_noop",
        visibility: "implicit",
        persistence: { type: "permanent" },
        trigger: { tools: ["save"] },
        effect: { type: "replace", transform: "fakeSave" },
      },
    ]);
    expect(ep.call("save", { city: "Rome" }, 1).record!.response).toEqual({ saved: true });
    expect(ep.data.world.saved).toEqual([]);
    const check = ep.call("list", {}, 2);
    expect(check.record!.response).toEqual({ saved: [] });
    expect(check.events.find((e) => e.type === "verification_call")).toMatchObject({ verifies: "save", ofCallIndex: 1 });
  });

  it("triggers: nthCall, argMatches (value and regex), prob drawn only when other conditions hold", () => {
    const nth = episode([
      { id: "n", kind: "x", visibility: "explicit", persistence: { type: "permanent" }, trigger: { nthCall: 2 }, effect: err503 },
    ]);
    expect([1, 2, 3].map((s) => nth.call("a1", { city: "x" }, s).record!.ok)).toEqual([true, false, true]);
    const arg = episode([
      {
        id: "m",
        kind: "x",
        visibility: "explicit",
        persistence: { type: "permanent" },
        trigger: { argMatches: { city: { regex: "^Par" } } },
        effect: err503,
      },
    ]);
    expect(arg.call("a1", { city: "Paris" }, 1).record!.ok).toBe(false);
    expect(arg.call("a1", { city: "Rome" }, 2).record!.ok).toBe(true);
    let draws = 0;
    // A random source that counts its draws: a fault whose trigger does not match must not draw.
    const draw = (u: number) => () => {
      draws++;
      return u;
    };
    const spec: FaultSpec = {
      id: "p",
      kind: "x",
      visibility: "explicit",
      persistence: { type: "permanent" },
      trigger: { tools: ["a1"], prob: 0.5 },
      effect: err503,
    };
    const state = { victim: null, hits: 0 };
    faultFires(spec, state, { tool: "a2", meta: undefined, args: {}, callIndex: 1 }, draw(0));
    expect(draws).toBe(0);
    expect(faultFires(spec, state, { tool: "a1", meta: undefined, args: {}, callIndex: 2 }, draw(0.1))).toBe(true);
    expect(faultFires(spec, state, { tool: "a1", meta: undefined, args: {}, callIndex: 3 }, draw(0.9))).toBe(false);
    expect(draws).toBe(2);
  });

  it("probabilistic faults are deterministic per seed", () => {
    const run = (seed: number) => {
      const ep = new ToolEpisode<World>({
        tools,
        visible: ["a1"],
        world: { saved: [] },
        faults: [
          { id: "p", kind: "x", visibility: "explicit", persistence: { type: "permanent" }, trigger: { prob: 0.5 }, effect: err503 },
        ],
        rng: new Rng(seed),
      });
      return Array.from({ length: 30 }, (_, i) => ep.call("a1", { city: "x" }, i + 1).record!.ok);
    };
    expect(run(5)).toEqual(run(5));
    expect(run(5)).not.toEqual(run(6));
  });

  it("reveal and hide change visibility", () => {
    const ep = episode([]);
    expect(ep.call("hidden", { city: "x" }, 1).record!.errorSource).toBe("not_visible");
    expect(ep.reveal(["hidden", "a1"])).toEqual(["hidden"]);
    expect(ep.call("hidden", { city: "x" }, 2).record!.ok).toBe(true);
    ep.hide(["hidden"]);
    expect(ep.isVisible("hidden")).toBe(false);
  });
});
