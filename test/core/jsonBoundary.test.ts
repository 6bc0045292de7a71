import { describe, expect, it } from "vitest";
import { asJson, asJsonObject } from "../../src/core/json.js";

interface Entry {
  tool: string;
  args: { [k: string]: string | number };
  error: { code: string } | null;
  note?: string;
}

describe("typed JSON boundary", () => {
  it("accepts interfaces of plain data and returns the same value", () => {
    const e: Entry = { tool: "t", args: { a: 1 }, error: null };
    expect(asJson(e)).toBe(e);
    expect(asJsonObject([e].map((x) => ({ ...x, note: "n" }))[0]!)).toEqual({ ...e, note: "n" });
  });

  it("refuses values that are not plain JSON at compile time", () => {
    const withFn = { tool: "t", run: () => 1 };
    // @ts-expect-error a function is not JSON data
    asJson(withFn);
    const withUnknown: { x: unknown } = { x: 1 };
    // @ts-expect-error an unknown field could hold anything
    asJson(withUnknown);
    const withDate = { at: new Date(0) };
    // @ts-expect-error a Date is an object with methods
    asJson(withDate);
    expect(true).toBe(true);
  });
});
