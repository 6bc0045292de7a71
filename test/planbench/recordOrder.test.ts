/**
 * Issue 20, last item: recorded trajectories keep the agent's key order in tool-call arguments, so replaying a
 * record reproduces PlanBench-XL's echoes (the wrong-argument key list, the request echo) byte for byte. Before, the
 * writer sorted every key and 156 of 53,697 replayed steps echoed the arguments reordered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordStringify, stableStringify } from "../../src/core/json.js";
import { make } from "../../src/index.js";
import { readTrajectories } from "../../src/trajectories/writer.js";
import { RecordTrajectory } from "../../wrappers/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "pb-order-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("recordStringify", () => {
  it("sorts keys everywhere except below an `arguments` key", () => {
    const v = {
      z: 1,
      a: { y: 2, b: 3 },
      action: { type: "tool_call", arguments: { zeta: { q: 1, c: 2 }, alpha: [{ k: 1, d: 2 }] }, name: "t" },
    };
    expect(recordStringify(v)).toBe(
      '{"a":{"b":3,"y":2},"action":{"arguments":{"zeta":{"q":1,"c":2},"alpha":[{"k":1,"d":2}]},"name":"t","type":"tool_call"},"z":1}',
    );
    // Everything else is exactly stableStringify's text.
    const plain = { b: [1, { d: null, c: undefined }], a: Infinity };
    expect(recordStringify(plain)).toBe(stableStringify(plain));
  });
});

describe("PlanBenchXL-v0 records replay with the agent's argument order", () => {
  it("keeps {zeta, alpha} in the file and the replay reproduces every observation", () => {
    const file = path.join(dir, "order.jsonl");
    const env = new RecordTrajectory(make("PlanBenchXL-v0", { world: "builtin" }), file);
    env.reset({ seed: 1 });
    const [obs] = env.step({ type: "retrieve", meta_tool: "by_output_info", output_information: "order" } as never);
    const tool = (obs as { response: { listed: string[] } }).response.listed[0]!;
    const [afterCall] = env.step({ type: "tool_call", name: tool, arguments: { zeta: "1", alpha: "2" } } as never);
    // The wrong-argument message lists the keys in the order sent: Python str(list(arguments)).
    expect((afterCall as { response: { feedback: string } }).response.feedback).toContain("['zeta', 'alpha']");
    env.step({ type: "answer", content: "no idea" } as never);
    env.close();

    const [rec] = readTrajectories(file);
    const action = rec!.steps[1]!.action as { arguments: Record<string, unknown> };
    expect(Object.keys(action.arguments)).toEqual(["zeta", "alpha"]);
    const called = rec!.steps[1]!.events.find((e) => e["type"] === "tool_called") as { arguments: Record<string, unknown> };
    expect(Object.keys(called.arguments)).toEqual(["zeta", "alpha"]);

    const replay = make("PlanBenchXL-v0", { world: "builtin" });
    replay.reset({ seed: rec!.seed! });
    for (const s of rec!.steps) {
      const [o] = replay.step(s.action as never);
      expect(stableStringify(o)).toBe(stableStringify(s.observation));
    }
    // With sorted keys (the old records) the same replay answers differently.
    const sorted = make("PlanBenchXL-v0", { world: "builtin" });
    sorted.reset({ seed: rec!.seed! });
    sorted.step(rec!.steps[0]!.action as never);
    const [o2] = sorted.step({ type: "tool_call", name: tool, arguments: { alpha: "2", zeta: "1" } } as never);
    expect(stableStringify(o2)).not.toBe(stableStringify(rec!.steps[1]!.observation));
    replay.close();
    sorted.close();
  });
});
