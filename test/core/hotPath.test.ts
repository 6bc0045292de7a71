// The engine's hot-path shortcuts (caches, shared compiled data, cheaper copies) must be invisible: each test pins
// one of them against the straightforward computation it replaced.
import { describe, expect, it } from "vitest";
import { cloneJson, type FaultSpec, type JsonObject, parseRewardSpec, RewardComputer, Rng, type ToolDefinition, ToolEpisode } from "../../src/index.js";
import { emptyDictionary } from "../../src/engine/dictionary.js";
import { ToolCallSpace } from "../../src/core/spaces/toolCall.js";
import { ToolActionSpace } from "../../src/engine/actionSpace.js";
import { type JsonSchema, sampleFromJsonSchema } from "../../src/core/jsonSchema.js";
import { batchInfos } from "../../src/vector/vectorEnv.js";

const citySchema: JsonSchema = {
  type: "object",
  properties: { city: { type: "string", pattern: "^[A-Z][a-z]+$" }, days: { type: "integer", minimum: 1, maximum: 14 } },
  required: ["city"],
  additionalProperties: false,
};
const tool = (name: string, group?: string): ToolDefinition<null> => ({
  name, description: name, parameters: citySchema, ...(group ? { meta: { group } } : {}),
  run: (args) => ({ ok: true, output: { city: args.city as string, temp: 21.5 } }),
});

describe("engine hot path: shortcuts are invisible", () => {
  it("sampled calls equal sampling the arguments' object schema directly, keys in action order", () => {
    const tools = [tool("a"), { ...tool("b"), parameters: { properties: { n: { type: "integer", minimum: 0, maximum: 5 } }, required: ["n"] } as JsonSchema }];
    const space = new ToolActionSpace(new ToolCallSpace(() => tools));
    const mine = new Rng("sample");
    const reference = new Rng("sample");
    for (let i = 0; i < 200; i++) {
      const action = space.sample(mine) as { type: string; name?: string; arguments?: JsonObject };
      // The reference draws exactly as the space does: the kind, the tool, then the arguments from { type: "object", ...parameters }.
      const kind = ["tool_call", "answer", "abort"][reference.weighted([0.9, 0.05, 0.05])];
      if (kind !== "tool_call") {
        expect(action.type).toBe(kind);
        if (kind === "answer") reference.int(1000);
        continue;
      }
      const t = reference.pick(tools);
      expect(Object.keys(action)).toEqual(["type", "name", "arguments"]);
      expect(action).toEqual({ type: "tool_call", name: t.name, arguments: sampleFromJsonSchema({ type: "object", ...t.parameters }, reference) });
    }
  });

  it("the visible-tools view follows reveal, hide and a replaced visible list", () => {
    const ep = new ToolEpisode({ tools: [tool("a"), tool("b"), tool("c")], visible: ["a"], world: null, rng: new Rng(1) });
    const names = () => ep.visibleToolsView().map((t) => t.name);
    expect(names()).toEqual(["a"]);
    expect(ep.visibleToolsView()).toBe(ep.visibleToolsView());
    ep.reveal(["c", "b"]);
    expect(names()).toEqual(["a", "c", "b"]);
    ep.hide(["a"]);
    expect(names()).toEqual(["c", "b"]);
    ep.data.visible[0] = "a"; // in place, same length
    expect(names()).toEqual(["a", "b"]);
    ep.data = { ...ep.data, visible: ["b"] };
    expect(names()).toEqual(["b"]);
    expect(names()).toEqual(ep.visibleTools().map((t) => t.name));
  });

  it("fault states start as a dictionary that behaves exactly like {}", () => {
    const d = emptyDictionary<number>();
    d.z = 1;
    d["cn-C1-000/P1/slot0"] = 2;
    d["10"] = 3;
    expect(Object.getPrototypeOf(d)).toBe(Object.prototype);
    expect(Object.keys(d)).toEqual(["10", "z", "cn-C1-000/P1/slot0"]);
    expect(JSON.stringify(d)).toBe(JSON.stringify({ z: 1, "cn-C1-000/P1/slot0": 2, "10": 3 }));
    const ep = new ToolEpisode({ tools: [tool("a", "g")], visible: ["a"], world: null, rng: new Rng(1), faults: [
      { id: "f2", kind: "x", visibility: "explicit", persistence: { type: "permanent" }, trigger: { tools: ["a"] }, effect: { type: "error", error: { code: "e", message: "m" } } },
      { id: "f1", kind: "x", visibility: "explicit", persistence: { type: "permanent" }, trigger: { tools: ["zz"] }, effect: { type: "error", error: { code: "e", message: "m" } } },
    ] });
    expect(ep.data.faultStates).toEqual({ f2: { victim: null, hits: 0 }, f1: { victim: null, hits: 0 } });
    expect(Object.keys(ep.data.faultStates)).toEqual(["f2", "f1"]);
  });

  it("a shared explicit fault answers each episode with its own response (perEpisodeResponse)", () => {
    const body = { error: { code: 503, status: "UNAVAILABLE", message: "down", details: [{ retry: true }] } };
    const shared = (perEpisodeResponse: boolean): FaultSpec[] => [{
      id: "f", kind: "http_503", visibility: "explicit", persistence: { type: "permanent" }, trigger: { group: "g", bindFirstInGroup: true },
      effect: { type: "error", error: { code: "UNAVAILABLE", message: "down", status: 503, body }, perEpisodeResponse },
    }];
    const faults = shared(true);
    const run = () => {
      const ep = new ToolEpisode({ tools: [tool("a", "g")], visible: ["a"], world: null, rng: new Rng(1), faults });
      return [ep.call("a", { city: "Oslo" }, 1).record!.response, ep.call("a", { city: "Oslo" }, 2).record!.response] as JsonObject[];
    };
    const [first, again] = run();
    expect(first).toEqual(body);
    expect(again).toBe(first); // one episode: the same response object, as with a spec built for the episode
    expect(first).not.toBe(body);
    ((first.error as JsonObject).details as JsonObject[]).push({ mutated: true });
    const [next] = run();
    expect(next).toEqual(body); // another episode never sees this one's response
    // Without the flag the engine hands out the spec's own body (specs built per episode need no copy).
    const plain = new ToolEpisode({ tools: [tool("a", "g")], visible: ["a"], world: null, rng: new Rng(1), faults: shared(false) });
    expect(plain.call("a", { city: "Oslo" }, 1).record!.response).toBe(body);
  });

  it("valueProvenance: false turns off only the engine's poisoned-value events", () => {
    const faults: FaultSpec[] = [{ id: "c", kind: "corrupt", visibility: "implicit", persistence: { type: "permanent" }, trigger: { tools: ["a"] }, effect: { type: "corrupt", transform: "swap" } }];
    const corruptions = { swap: () => ({ city: "Quito", temp: -400 }) };
    const calls = (valueProvenance?: boolean) => {
      const ep = new ToolEpisode({ tools: [tool("a"), tool("b")], visible: ["a", "b"], world: null, rng: new Rng(1), faults, corruptions, ...(valueProvenance === undefined ? {} : { valueProvenance }) });
      ep.call("a", { city: "Oslo" }, 1);
      return ep.call("b", { city: "Quito" }, 2).events.map((e) => e.type);
    };
    expect(calls()).toContain("poisoned_value_reused");
    expect(calls(false)).toEqual(calls().filter((t) => t !== "poisoned_value_reused"));
  });

  it("reward computers of equal specs share compiled terms, never state; term order follows each spec", () => {
    const terms = { tool_call: { weight: -0.01, kind: "cost" }, verification: { weight: 0.1, kind: "event", cap: 0.15 }, potential: { weight: 0.5, kind: "potential" } } as const;
    const spec = parseRewardSpec({ name: "s", terms }, null);
    const reversed = parseRewardSpec({ name: "s", terms: Object.fromEntries(Object.entries(terms).reverse()) }, null);
    const a = new RewardComputer(spec);
    const b = new RewardComputer(parseRewardSpec({ name: "s", terms }, null));
    const r = new RewardComputer(reversed);
    for (const c of [a, b, r]) c.reset(-3);
    const raw = { tool_call: 1, verification: 1, unknown: 7 };
    expect(a.step(raw, -2)).toEqual({ reward: -0.01 + 0.1 + 0.5, terms: { tool_call: -0.01, verification: 0.1, potential: 0.5 } });
    expect(Object.keys(r.step(raw, -2).terms)).toEqual(["potential", "verification", "tool_call"]);
    // b has its own totals (the cap is per computer) although it shares a's compiled spec.
    expect(a.step(raw, -2).terms.verification).toBeCloseTo(0.05);
    expect(b.step(raw, -2).terms.verification).toBe(0.1);
    // A raw object that throws half-way leaves nothing behind for the next step of any computer.
    const bad = { verification: 1, get tool_call(): number { throw new Error("boom"); } };
    expect(() => b.step(bad, -2)).toThrow("boom");
    expect(a.step({}, -2)).toEqual({ reward: 0, terms: {} });
  });

  it("cloneJson copies exactly: key order, holes, undefined, -0, own keys only", () => {
    const proto = { inherited: 1 };
    const own = Object.assign(Object.create(proto) as JsonObject, { b: 1, a: [1, , { c: -0, d: undefined }] });
    // eslint-disable-next-line no-sparse-arrays
    const value = { z: own, y: [[], [null, "s"], { "2": 2, "1": 1, x: true }], w: -0 } as unknown as JsonObject;
    const copy = cloneJson(value);
    const z = copy.z as JsonObject;
    expect(Object.keys(z)).toEqual(["b", "a"]);
    expect("inherited" in z).toBe(false);
    expect(1 in (z.a as unknown[])).toBe(false);
    expect((z.a as unknown[]).length).toBe(3);
    const inner = (z.a as JsonObject[])[2]!;
    expect(Object.is(inner.c, -0)).toBe(true);
    expect(Object.keys(inner)).toEqual(["c", "d"]);
    expect(Object.is(copy.w, -0)).toBe(true);
    expect(copy.y).toEqual(value.y);
    expect(copy.y).not.toBe(value.y);
    expect((copy.y as unknown[])[1]).not.toBe((value.y as unknown[])[1]);
  });

  it("batched infos equal the per-key construction, skipping undefined values and missing infos", () => {
    /** The construction batchInfos replaced. */
    const reference = (infos: (Record<string, unknown> | null)[]) => {
      const out: Record<string, unknown[]> = {};
      infos.forEach((info, i) => {
        if (!info) return;
        for (const [k, v] of Object.entries(info)) {
          if (v === undefined) continue;
          if (!out[k]) { out[k] = new Array(infos.length).fill(null); out[`_${k}`] = new Array(infos.length).fill(false); }
          out[k]![i] = v;
          out[`_${k}`]![i] = true;
        }
      });
      return out;
    };
    const rng = new Rng("infos");
    const keys = ["step", "events", "hidden", "success", "10", "metrics"];
    for (let n = 1; n < 40; n++) {
      const infos = Array.from({ length: n }, () => (rng.bool(0.15) ? null : Object.fromEntries(rng.sample(keys, rng.int(keys.length + 1)).map((k) => [k, rng.bool(0.2) ? undefined : rng.int(9)]))));
      const got = batchInfos(infos);
      expect(got).toEqual(reference(infos));
      expect(Object.keys(got)).toEqual(Object.keys(reference(infos)));
    }
  });
});
