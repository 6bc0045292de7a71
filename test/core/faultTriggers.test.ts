import { describe, expect, it } from "vitest";
import { type FaultSpec, Rng, type ToolDefinition, ToolEpisode, faultFires } from "../../src/index.js";
import { engineFaultSpec } from "../../envs/toolmisuse/faults.js";

const call = (args: Record<string, unknown>, callIndex = 1) => ({ tool: "t", meta: undefined, args: args as never, callIndex });
const base = { id: "f", kind: "x", visibility: "explicit" as const, effect: { type: "family" as const, name: "x" } };

describe("engine fault triggers used by ToolMisuseBench", () => {
  it("argEquals compares whole values, a missing argument as null, with the caller's equality", () => {
    const spec: FaultSpec = { ...base, persistence: { type: "permanent" }, trigger: { argEquals: { a: { k: [1, 2] }, b: null } } };
    const st = { victim: null, hits: 0 };
    expect(faultFires(spec, st, call({ a: { k: [1, 2] } }), () => 0)).toBe(true);
    expect(faultFires(spec, st, call({ a: { k: [1, 2] }, b: 0 }), () => 0)).toBe(false);
    const flag: FaultSpec = { ...base, persistence: { type: "permanent" }, trigger: { argEquals: { a: 1 } } };
    expect(faultFires(flag, st, call({ a: true }), () => 0)).toBe(false);
    const pyEquals = (g: unknown, w: unknown) => Number(g) === Number(w);
    expect(faultFires(flag, st, call({ a: true }), () => 0, pyEquals)).toBe(true);
  });

  it("a transient fault made transient by its trigger keeps drawing on later matching calls", () => {
    const spec: FaultSpec = { ...base, persistence: { type: "transient", byTrigger: true }, trigger: { prob: 0.5 } };
    const st = { victim: null, hits: 0 };
    const draws = [0.1, 0.9, 0.2];
    let n = 0;
    const fired = draws.map(() => faultFires(spec, st, call({}), () => draws[n++]!));
    expect(fired).toEqual([true, false, true]);
    expect(n).toBe(3);
    const capped: FaultSpec = { ...spec, persistence: { type: "transient" } };
    n = 0;
    const st2 = { victim: null, hits: 0 };
    expect(draws.map(() => faultFires(capped, st2, call({}), () => draws[n++]!))).toEqual([true, false, false]);
    expect(n).toBe(1);
  });

  it("the default pipeline refuses a family effect with a message naming the fault", () => {
    const tools: ToolDefinition<null>[] = [
      { name: "t", description: "T", parameters: { type: "object", properties: {} }, run: () => ({ ok: true, output: 1 }) },
    ];
    const faults: FaultSpec[] = [{ ...base, persistence: { type: "permanent" }, trigger: {} }];
    const ep = new ToolEpisode<null>({ tools, visible: ["t"], world: null, faults, rng: new Rng(1) });
    expect(() => ep.call("t", {}, 1)).toThrow(/fault "f": a "family" effect/);
  });

  it("ToolMisuseBench plan entries map onto engine triggers", () => {
    const spec = engineFaultSpec(
      {
        fault_type: "timeout",
        severity: "soft",
        payload: { recoverability: "transient" },
        trigger: { on_tool: "get_user", on_nth_call: "3", when_arg_matches: { user_id: "u1" }, prob: { p: 0.25, seed: 9 } },
      },
      2,
    );
    expect(spec).toEqual({
      id: "2:timeout",
      kind: "timeout",
      visibility: "explicit",
      persistence: { type: "transient", byTrigger: true },
      trigger: { tools: ["get_user"], nthCall: 3, argEquals: { user_id: "u1" }, prob: 0.25 },
      effect: { type: "family", name: "timeout" },
    });
    const odd = engineFaultSpec({ fault_type: "authz", severity: "hard", payload: {}, trigger: { on_tool: 5, on_nth_call: "x" } }, 0);
    expect(odd.trigger.tools).toEqual([]);
    expect(odd.trigger.nthCall).toBeNaN();
    const persistent = engineFaultSpec({ fault_type: "authz", severity: "hard", payload: {}, trigger: { on_tool: "t" } }, 0);
    expect(persistent.persistence).toEqual({ type: "permanent" });
  });
});
