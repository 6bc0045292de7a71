// The step's records are made by constructors so that V8 never pretenures them (src/engine/plainRecords.ts); what a
// caller receives must still be exactly the plain objects the literals made: prototype, constructor, key order.
import { describe, expect, it } from "vitest";
import { type Action, type HistoryEntry, make, type ToolStepInfo } from "../../src/index.js";
import "../../envs/toolmaze/index.js";

interface HistoryEnv {
  episodeHistory(): readonly HistoryEntry[];
}

/** `keys` are the first keys, in order (a step's info gets optional keys after its core ones). */
function expectPlain(x: unknown, keys: readonly string[]): void {
  expect(Object.getPrototypeOf(x)).toBe(Object.prototype);
  expect((x as { constructor: unknown }).constructor).toBe(Object);
  expect(Object.keys(x as object).slice(0, keys.length)).toEqual(keys);
}

describe("plain records", () => {
  it("observation, budget, info, history entry, parsed call and tool_called event are plain objects, keys in order", () => {
    const env = make<Record<string, unknown>, Action, ToolStepInfo>("ToolMaze-v0", {});
    const reset = env.reset({ seed: 1 });
    expect(Array.isArray(reset)).toBe(true);
    const [first, resetInfo] = reset;
    expectPlain(resetInfo, ["taskId", "step", "phi"]);
    expectPlain(first, ["task", "visibleTools", "newTools", "removedTools", "response", "step", "budget"]);
    expectPlain(first.budget, ["steps", "toolCalls", "retries"]);
    const tool = (first.visibleTools as string[])[0]!;
    const [obs, , , , info] = env.step({ type: "tool_call", name: tool, arguments: {} });
    expectPlain(obs, ["task", "visibleTools", "newTools", "removedTools", "response", "step", "budget"]);
    expectPlain(info, ["events", "rewardTerms", "rawTerms", "phi", "taskId", "step"]);
    expectPlain(info.events[0], ["type", "tool", "callIndex", "arguments", "ok"]);
    expect(Array.isArray(info.events)).toBe(true);
    const [entry] = (env.unwrapped as unknown as HistoryEnv).episodeHistory();
    expectPlain(entry, ["step", "action", "response", "events", "reward"]);
    expectPlain(entry!.action, ["type", "name", "arguments"]);
    // Equal to the literal form under the strictest comparison vitest has (it checks prototypes).
    expect(entry!.action).toStrictEqual({ type: "tool_call", name: tool, arguments: {} });
    expect(JSON.parse(JSON.stringify(obs))).toStrictEqual(obs);
    // The step result is a real array, as the literal was.
    const result = env.step({ type: "tool_call", name: tool, arguments: {} });
    expect(Array.isArray(result)).toBe(true);
    expect(result).toHaveLength(5);
    env.close();
  });
});
