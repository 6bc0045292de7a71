// The delta and wire passes walk keys with for-in (no key arrays): these cases pin what Object.keys gave.
import { describe, expect, it } from "vitest";
import { toWire } from "../../bridge/codec.js";
import { applyDelta, deepEqual, encodeDelta } from "../../bridge/delta.js";

describe("deepEqual", () => {
  it("compares key sets, not only key counts", () => {
    expect(deepEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(false);
    expect(deepEqual({ a: { b: [1, 2] }, c: "x" }, { c: "x", a: { b: [1, 2] } })).toBe(true);
  });

  it("treats null-prototype maps like plain ones and ignores inherited keys", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    expect(deepEqual(bare, { a: 1 })).toBe(true);
    const child = Object.assign(Object.create({ inherited: 1 }) as Record<string, unknown>, { a: 1 });
    expect(deepEqual(child, { a: 1 })).toBe(true);
  });
});

describe("encodeDelta", () => {
  it("ships changed and new keys, names removed ones, and round-trips", () => {
    const prev = { a: 1, b: { c: 2 }, gone: true };
    const next = { a: 1, b: { c: 3 }, added: "x" };
    const wire = encodeDelta(prev, next);
    expect(wire).toEqual({ s: { b: { c: 3 }, added: "x" }, d: ["gone"] });
    expect(applyDelta(prev, wire)).toEqual(next);
    expect(encodeDelta({ a: 1 }, { a: 1 })).toEqual({ s: {} });
  });
});

describe("toWire", () => {
  it("converts a large integer after unchanged keys, keeping key order", () => {
    const out = toWire({ a: 1, b: "s", big: 2 ** 40, c: [1, 2 ** 41] }) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["a", "b", "big", "c"]);
    expect(out).toEqual({ a: 1, b: "s", big: 2n ** 40n, c: [1, 2n ** 41n] });
    const same = { a: 1, b: { c: "x" } };
    expect(toWire(same)).toBe(same);
  });
});
