/**
 * Issue 12: PlanBench-XL is an engine family. Its calls are engine tool calls (call records, decoy faults, the
 * engine's retry / switch / provenance events); retrieval, the official answer and raw replies are family actions.
 */
import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { ActionError } from "../../src/core/errors.js";
import { make } from "../../src/core/registry.js";
import type { Action } from "../../src/engine/actions.js";
import type { EpisodeEvent } from "../../src/engine/events.js";

const OPTS = { world: "builtin", setting: "blocker" } as const;
const open = (opts: Record<string, unknown> = OPTS): PlanBenchEnv => make("PlanBenchXL-v0", opts) as unknown as PlanBenchEnv;
type Event = EpisodeEvent & Record<string, unknown>;

/** Retrieves a path tool's producer list and returns a listed noisy sibling of it with its baseline. */
function noisySibling(env: PlanBenchEnv): { noisy: string; baseline: string; args: (tool: string) => Record<string, string> } {
  for (let seed = 0; seed < 30; seed++) {
    const [, info] = env.reset({ seed });
    const hidden = info.hidden as { onePath: string[]; inputValues: Record<string, string> };
    const first = env.release.toolByName.get(hidden.onePath[0]!)!;
    const req = { meta_tool: "by_io_info", output_information: first.output_datatype, input_information: first.input_datatypes };
    env.step({ type: "retrieve", ...req });
    const noisy = env.session!.episode.available.find((n) => {
      const t = env.release.toolByName.get(n)!;
      return t.tool_type === "noisy_misleading" && t.baseline_tool_name === first.name && t.noise_type === "stale";
    });
    if (!noisy) continue;
    const args = (tool: string): Record<string, string> => {
      const out: Record<string, string> = {};
      const surface = env.release.toolByName.get(tool)!.surface_argument_to_datatype;
      for (const [s, d] of Object.entries(surface)) out[s] = hidden.inputValues[d] ?? "?";
      return out;
    };
    return { noisy, baseline: first.name, args };
  }
  throw new Error("no listed stale sibling of a first path tool in 30 seeds");
}

const types = (events: readonly EpisodeEvent[]): string[] => events.map((e) => e.type);

describe("PlanBenchXL-v0 on the engine's call pipeline", () => {
  it("a noisy sibling is an engine decoy fault: call record, fault event, futile retry, then a switch to its baseline", () => {
    const env = open();
    const { noisy, baseline, args } = noisySibling(env);
    const [, , , , first] = env.step({ type: "tool_call", name: noisy, arguments: args(noisy) });
    const ev = first.events as Event[];
    expect(types(ev).slice(0, 2)).toEqual(["tool_called", "fault_injected"]);
    expect(ev[1]).toMatchObject({ faultId: "noisy:stale", kind: "stale", visibility: "implicit", persistence: "permanent" });
    expect(types(ev)).toContain("planbench:untrusted_output");
    const [, , , , again] = env.step({ type: "tool_call", name: noisy, arguments: args(noisy) });
    expect((again.events as Event[]).find((e) => e.type === "retry")).toMatchObject({ afterFault: true, persistence: "permanent" });
    expect(again.rawTerms["futile_retry"]).toBe(1);
    const [obs, , , , sw] = env.step({ type: "tool_call", name: baseline, arguments: args(baseline) });
    const switched = (sw.events as Event[]).find((e) => e.type === "alternative_switch");
    expect(switched).toMatchObject({ from: noisy, to: baseline, afterFault: true });
    expect((obs.response as { toolResult: { success: boolean } }).toolResult.success).toBe(true);
    const calls = (env.getState().data as { calls: Array<{ tool: string; faults: string[]; taint: string }> }).calls;
    expect(calls.map((c) => [c.tool, c.faults, c.taint])).toEqual([
      [noisy, ["noisy:stale"], "untrusted"],
      [noisy, ["noisy:stale"], "untrusted"],
      [baseline, [], "clean"],
    ]);
  });

  it("an untrusted value is refused by the official argument check, and the engine's provenance reports its reuse", () => {
    const env = open();
    const { noisy, args } = noisySibling(env);
    const [obs] = env.step({ type: "tool_call", name: noisy, arguments: args(noisy) });
    const value = String((obs.response as { toolResult: { output: unknown } }).toolResult.output);
    const producer = env.release.toolByName.get(noisy)!.output_datatype;
    const consumer = [...env.release.toolByName.values()].find(
      (t) => t.tool_type === "baseline" && t.input_datatypes.length === 1 && t.input_datatypes[0] === producer,
    );
    expect(consumer, "a single-input consumer of the sibling's datatype").toBeDefined();
    if (!consumer) return;
    env.step({ type: "retrieve", meta_tool: "by_io_info", output_information: consumer.output_datatype, input_information: [producer] });
    expect(env.session!.episode.discovered.has(consumer.name)).toBe(true);
    const [surface] = Object.keys(consumer.surface_argument_to_datatype);
    const [o2, , , , info] = env.step({ type: "tool_call", name: consumer.name, arguments: { [surface!]: value } });
    expect((o2.response as { error: string }).error).toBe("untrusted_input_rejected");
    const ev = info.events as Event[];
    const poisoned = ev.find((e) => e.type === "poisoned_value_reused");
    expect(poisoned).toMatchObject({ tool: consumer.name, argument: surface, sourceCallIndex: 1, taint: "untrusted" });
    expect(ev.find((e) => e.type === "tool_error")).toMatchObject({ source: "validation", code: "untrusted_input_rejected" });
  });

  it("unlisted and unknown tools are refused by the engine with the official not-retrieved reply", () => {
    const env = open();
    env.reset({ seed: 1 });
    const baseline = [...env.release.toolByName.values()].find((t) => t.tool_type === "baseline")!;
    const [o1, , , , i1] = env.step({ type: "tool_call", name: baseline.name, arguments: {} });
    expect((o1.response as { error: string }).error).toBe("not_retrieved");
    expect((i1.events as Event[]).find((e) => e.type === "tool_error")).toMatchObject({ source: "not_visible" });
    const [o2, , , , i2] = env.step({ type: "tool_call", name: "no_such_tool", arguments: {} });
    expect((o2.response as { error: string }).error).toBe("not_retrieved");
    expect((i2.events as Event[]).find((e) => e.type === "tool_error")).toMatchObject({ source: "unknown_tool" });
    expect(env.session!.episode.callErrors).toBe(2);
  });

  it("answer arrives as the official final_answer; text needs textActions; the old pb_call kind is gone", () => {
    const env = open();
    env.reset({ seed: 2 });
    const [, , term, , info] = env.step({ type: "answer", content: "nope" });
    expect(term).toBe(true);
    expect((info.events as Event[]).find((e) => e.type === "planbench:final_answer")).toMatchObject({ content: "nope", correct: false });
    expect(info.terminationReason).toBe("target_datatype_not_reached");
    const strict = open({ ...OPTS, textActions: false });
    strict.reset({ seed: 2 });
    expect(() => strict.step({ type: "text", text: "<final_answer>x</final_answer>" })).toThrow(ActionError);
    try {
      strict.step({ type: "pb_call", name: "x", arguments: {} } as Action);
      expect.unreachable();
    } catch (e) {
      expect((e as ActionError).field).toBe("action.type");
    }
  });
});
