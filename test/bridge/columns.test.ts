/**
 * Column deltas (`obs_encoding: "columns"`): the rules of each part (whole values, set keys, patches, removed keys,
 * env lists), and that a client applying them — with tool references and the action name table — rebuilds every
 * observation and action of real envs exactly.
 */
import { describe, expect, it } from "vitest";
import { envActionSpace } from "../../bridge/backend.js";
import { decode, encode } from "../../bridge/codec.js";
import { ActionNameDecoder, ActionNameTable, applyColumns, type ColumnObs, encodeColumns } from "../../bridge/columns.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { encodeDelta } from "../../bridge/delta.js";
import { ToolRefDecoder, ToolRefEncoder } from "../../bridge/toolRefs.js";
import { makeVec } from "../../src/index.js";

/** Through the codec, as a client receives it. */
const wire = <T>(x: T): T => decode(encode(x)) as T;

describe("column deltas", () => {
  it("groups changed keys by key; a column covering every env in order has no env list", () => {
    const prev = [
      { a: 1, b: "x" },
      { a: 1, b: "y" },
    ];
    const next = [
      { a: 2, b: "x" },
      { a: 3, b: "z" },
    ];
    const w = encodeColumns(prev, next, null);
    expect(w).toEqual({ s: { a: [null, [2, 3]], b: [[1], ["z"]] } });
    expect(applyColumns(prev, wire(w))).toEqual(next);
    // The previous observations are not touched.
    expect(prev[0]).toEqual({ a: 1, b: "x" });
  });

  it("sends a map that kept its keys as a patch of the changed sub-keys, and a fully changed one whole", () => {
    const prev = [{ budget: { steps: 5, calls: null } }, { budget: { steps: 5, calls: 1 } }, { budget: { steps: 1 } }];
    const next = [{ budget: { steps: 4, calls: null } }, { budget: { steps: 4, calls: 2 } }, { budget: { steps: 0, extra: 1 } }];
    const w = encodeColumns(prev, next, null);
    expect(w.p).toEqual({ budget: [[0], [{ steps: 4 }]] });
    expect(w.s).toEqual({
      budget: [
        [1, 2],
        [next[1].budget, next[2].budget],
      ],
    });
    const got = applyColumns(prev, wire(w));
    expect(got).toEqual(next);
    expect((got[0] as { budget: unknown }).budget).not.toBe(prev[0].budget);
  });

  it("lists removed keys per env and sends non-map or reused observations whole (applied first)", () => {
    const same = { k: 1 };
    const prev = [{ a: 1, gone: 2 }, 7, same, { a: 1 }];
    const next = [{ a: 1 }, { a: 1 }, same, "text"];
    const w = encodeColumns(prev, next, null);
    expect(w.d).toEqual({ gone: [0] });
    expect(w.f).toEqual([
      [1, 2, 3],
      [{ a: 1 }, same, "text"],
    ]);
    expect(w.s).toBeUndefined();
    expect(applyColumns(prev, wire(w))).toEqual(next);
    expect(encodeColumns(null, [1, 2], null)).toEqual({ f: [null, [1, 2]] });
    expect(
      encodeColumns(
        prev,
        prev.map((o) => (typeof o === "object" ? { ...o } : o)),
        null,
      ),
    ).toEqual({ f: [[1], [7]] });
  });

  it("tool references: whole observations first, then the newTools column, in env order", () => {
    const t1 = { name: "t1", parameters: { x: 1 } };
    const t2 = { name: "t2", parameters: {} };
    const refs = new ToolRefEncoder();
    const dec = new ToolRefDecoder();
    const step0 = encodeColumns(null, [{ newTools: [t1] }, { newTools: [t1, t2] }], refs);
    expect(step0.f?.[1]).toEqual([{ newTools: [t1] }, { newTools: ["t1", t2] }]);
    const obs0 = applyColumns([null, null], wire(step0), dec);
    const next = [{ newTools: [t2, t1] }, { newTools: [] }];
    const step1 = encodeColumns(obs0, next, refs);
    expect(step1.s?.newTools).toEqual([null, [["t2", "t1"], []]]);
    expect(applyColumns(obs0, wire(step1), dec)).toEqual(next);
  });

  it("sampled tool calls travel as name-table indices plus arguments; anything else whole", () => {
    const table = new ActionNameTable();
    const dec = new ActionNameDecoder();
    const a = { type: "tool_call", name: "f", arguments: { x: 1 } };
    const b = { type: "tool_call", name: "g", arguments: {} };
    const odd = { name: "f", type: "tool_call", arguments: {} };
    const first = table.encode([a, b, "answer", odd]);
    expect(first).toEqual({ names: ["f", "g"], tool: [0, 1, -1, -1], args: [{ x: 1 }, {}, "answer", odd] });
    expect(dec.decode(wire(first))).toEqual([a, b, "answer", odd]);
    const second = table.encode([b, a]);
    expect(second).toEqual({ tool: [1, 0], args: [{}, { x: 1 }] });
    const back = dec.decode(wire(second));
    expect(back).toEqual([b, a]);
    // Rebuilt with the in-process key order, so JSON of the actions is byte-identical.
    expect(JSON.stringify(back[1])).toBe(JSON.stringify(a));
    expect(() => new ActionNameDecoder().decode({ tool: [3], args: [{}] })).toThrow(/index 3/);
  });

  for (const envId of ["ToolMaze-v0", "Demo-v0"]) {
    it(`${envId}: a client rebuilds every observation and sampled action of 60 steps, in fewer bytes than per-env deltas`, () => {
      const backend = createCoreBackend();
      const env = makeVec(envId, 8, {});
      const samplers = backend.createSamplers(3, 0, 8);
      const refs = new ToolRefEncoder();
      const dec = new ToolRefDecoder();
      const table = new ActionNameTable();
      const names = new ActionNameDecoder();
      let [sent] = env.reset({ seed: 3 });
      let client = sent.map((o) => dec.expand(wire(refs.compact(o))));
      let bytes = { columns: 0, delta: 0 };
      let patched = 0;
      for (let t = 0; t < 60; t++) {
        const actions = samplers.map((rng, i) => backend.sampleAction(envActionSpace(env, i), rng));
        const [obs] = env.step(actions);
        const w: ColumnObs = encodeColumns(sent, obs, refs);
        if (w.p) patched++;
        const col = encode({ observations: w, actions: table.encode(actions) });
        bytes = {
          columns: bytes.columns + col.length,
          delta: bytes.delta + encode({ observations: obs.map((o, i) => encodeDelta(sent[i], o)), actions }).length,
        };
        const got = decode(col) as { observations: ColumnObs; actions: never };
        client = applyColumns(client, got.observations, dec);
        expect(client).toEqual(obs);
        expect(names.decode(got.actions)).toEqual(actions);
        sent = obs;
      }
      env.close();
      expect(patched).toBeGreaterThan(0);
      expect(bytes.columns).toBeLessThan(bytes.delta * 0.8);
    });
  }
});
