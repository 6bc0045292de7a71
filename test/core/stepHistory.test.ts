// What a step keeps until the episode ends (issue 19): the history holds the env's own objects, never the caller's,
// and hands out the same events list as the step's info.
import { describe, expect, it } from "vitest";
import { type Action, type HistoryEntry, make, type ToolStepInfo } from "../../src/index.js";

interface HistoryEnv {
  episodeHistory(): readonly HistoryEntry[];
}

const demo = () => make<unknown, Action, ToolStepInfo>("Demo-v0", { fault: "none" });
const history = (env: ReturnType<typeof demo>) => (env.unwrapped as unknown as HistoryEnv).episodeHistory();

describe("step history", () => {
  it("keeps the episode's copy of a call's arguments: changing the caller's object afterwards changes nothing", () => {
    const env = demo();
    env.reset({ seed: 3 });
    const args = { city: "Oslo", nested: { days: [1, 2] } };
    const [, , , , info] = env.step({ type: "tool_call", name: "weather_com_forecast", arguments: args });
    const kept = history(env)[0]!.action as { arguments: Record<string, unknown> };
    expect(kept.arguments).not.toBe(args);
    // The very copy the call was recorded with (the `tool_called` event holds it too).
    const called = info.events.find((e) => e.type === "tool_called") as { arguments: unknown };
    expect(kept.arguments).toBe(called.arguments);
    args.city = "Bergen";
    args.nested.days.push(3);
    expect(kept.arguments).toEqual({ city: "Oslo", nested: { days: [1, 2] } });
    env.close();
  });

  it("an answer or a refused call keeps its action as parsed; info.events is the list the history keeps", () => {
    const env = demo();
    env.reset({ seed: 4 });
    const steps: ToolStepInfo[] = [];
    steps.push(env.step({ type: "tool_call", name: "no_such_tool", arguments: { a: 1 } })[4]);
    steps.push(env.step({ type: "tool_call", name: "weather_com_forecast", arguments: {} })[4]);
    steps.push(env.step({ type: "answer", content: "done" })[4]);
    const h = history(env);
    expect(h.map((e) => e.action)).toEqual([
      { type: "tool_call", name: "no_such_tool", arguments: { a: 1 } },
      { type: "tool_call", name: "weather_com_forecast", arguments: {} },
      { type: "answer", content: "done" },
    ]);
    // Steps with several events (a call and its error; an answer and its verdict) included.
    expect(steps.map((s) => s.events.length).some((n) => n > 1)).toBe(true);
    steps.forEach((s, i) => expect(h[i]!.events).toBe(s.events));
    env.close();
  });
});
