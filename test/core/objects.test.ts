import { describe, expect, it } from "vitest";
import { withKeys } from "../../src/core/objects.js";

describe("withKeys", () => {
  it("gives what a spread gives: the same own keys, in the same order, with the same values", () => {
    const base = { b: 1, a: [1], c: { d: 2 }, 2: "two" };
    const extra = { a: "over", e: null, 1: "one" };
    const got = withKeys(base, extra);
    const want = { ...base, ...extra };
    expect(Object.keys(got)).toEqual(Object.keys(want));
    expect(got).toStrictEqual(want);
    expect(got.c).toBe(base.c);
  });

  it("returns a new object and leaves both inputs as they were", () => {
    const base = Object.freeze({ x: 1 });
    const extra = Object.freeze({ y: 2 });
    const got = withKeys(base, extra);
    expect(got).not.toBe(base);
    expect(Object.isFrozen(got)).toBe(false);
    expect(base).toEqual({ x: 1 });
    expect(extra).toEqual({ y: 2 });
  });
});
