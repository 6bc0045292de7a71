import { describe, expect, it } from "vitest";
import { batchInfos, makeVec, OptionsError, Rng } from "../../src/index.js";

/** The batching as it was written before (one pass, mask keys built per call): the reference for key order. */
function reference(infos: readonly (Record<string, unknown> | null)[]): Record<string, unknown[]> {
  const n = infos.length;
  const out: Record<string, unknown[]> = {};
  for (let i = 0; i < n; i++) {
    const info = infos[i];
    if (!info) continue;
    for (const k of Object.keys(info)) {
      const v = info[k];
      if (v === undefined) continue;
      if (!out[k]) {
        out[k] = new Array(n).fill(null);
        out[`_${k}`] = new Array(n).fill(false);
      }
      out[k][i] = v;
      out[`_${k}`][i] = true;
    }
  }
  return out;
}

function randomInfos(rng: Rng, n: number): (Record<string, unknown> | null)[] {
  const keys = ["events", "step", "phi", "hidden", "terminationReason", "metrics", "0", "z"];
  return Array.from({ length: n }, () => {
    if (rng.bool(0.1)) return null;
    const info: Record<string, unknown> = {};
    // Mostly one order, sometimes another, with gaps and undefined values: the column guess must not matter.
    const order = rng.bool(0.2) ? rng.shuffle(keys) : keys;
    for (const k of order) if (rng.bool(0.7)) info[k] = rng.bool(0.1) ? undefined : rng.int(5);
    return info;
  });
}

describe("batchInfos", () => {
  it("batches exactly as before: values, masks and key order", () => {
    const rng = new Rng(3);
    for (let round = 0; round < 300; round++) {
      const infos = randomInfos(rng, 1 + rng.int(12));
      const got = batchInfos(infos);
      expect(Object.keys(got)).toEqual(Object.keys(reference(infos)));
      expect(got).toEqual(reference(infos));
    }
  });

  it("batches only the kept keys (by name or by mask), and nothing for an empty list", () => {
    const infos = [{ a: 1, b: 2, c: 3 }, null, { c: 4, a: 5 }];
    expect(batchInfos(infos, new Set(["a", "_c"]))).toEqual({
      a: [1, null, 5],
      _a: [true, false, true],
      c: [3, null, 4],
      _c: [true, false, true],
    });
    expect(batchInfos(infos, new Set())).toEqual({});
    expect(batchInfos(infos, new Set(["nope"]))).toEqual({});
  });
});

describe("vector env infoKeys", () => {
  it("leaves unrequested keys out of reset and step infos; the rest is unchanged", () => {
    const all = makeVec("Demo-v0", 4);
    const some = makeVec("Demo-v0", 4, {}, { infoKeys: ["events", "terminationReason"] });
    const none = makeVec("Demo-v0", 4, {}, { infoKeys: [] });
    const [o1, i1] = all.reset({ seed: 1 });
    const [o2, i2] = some.reset({ seed: 1 });
    const [, i3] = none.reset({ seed: 1 });
    expect(o2).toEqual(o1);
    expect(i1).not.toEqual({});
    expect(i2).toEqual({});
    expect(i3).toEqual({});
    const rng = new Rng(9);
    for (let k = 0; k < 30; k++) {
      const actions = (all.actionSpace.sample(rng) as unknown[]).map((a) => a);
      const a = all.step(actions);
      const b = some.step(actions);
      const c = none.step(actions);
      expect(b.slice(0, 4)).toEqual(a.slice(0, 4));
      const want: Record<string, unknown> = {};
      for (const key of ["events", "_events", "terminationReason", "_terminationReason"]) if (key in a[4]) want[key] = a[4][key];
      expect(b[4]).toEqual(want);
      expect(c[4]).toEqual({});
    }
  });

  it("works the same in the async vector env (batched in the caller's thread)", () => {
    const sync = makeVec("Demo-v0", 4, {}, { infoKeys: ["step"] });
    const async = makeVec("Demo-v0", 4, {}, { mode: "async", workers: 2, infoKeys: ["step"] });
    try {
      expect(async.reset({ seed: 3 })).toEqual(sync.reset({ seed: 3 }));
      const rng = new Rng(2);
      for (let k = 0; k < 5; k++) {
        const actions = sync.actionSpace.sample(rng) as unknown[];
        const [, , , , infos] = async.step(actions);
        expect(infos).toEqual(sync.step(actions)[4]);
        expect(Object.keys(infos)).toEqual(["step", "_step"]);
      }
    } finally {
      async.close();
    }
  });

  it("is validated: a bad list is an OptionsError naming infoKeys", () => {
    expect(() => makeVec("Demo-v0", 2, {}, { infoKeys: "events" as never })).toThrow(OptionsError);
    expect(() => makeVec("Demo-v0", 2, {}, { infoKeys: "events" as never })).toThrow(/infoKeys/);
  });
});
