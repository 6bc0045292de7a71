import { describe, expect, it } from "vitest";
import { castValue, repairLastCall } from "../../envs/toolmisuse/baselines.js";
import { PyConversionError, pyFloatStrict, pyIntStrict, pyRepr, pyStr } from "../../envs/toolmisuse/world/pyvalue.js";
import { officialSchemas } from "../../envs/toolmisuse/world/toolsets.js";
import type { Json, OfficialObservation } from "../../envs/toolmisuse/world/types.js";

/** Upstream `cast_value` is Python's str/int/float/bool; these are the values Python gives. */
describe("schema-repair cast_value follows Python", () => {
  it("string: str(x)", () => {
    expect(castValue(true, "string")).toBe("True");
    expect(castValue(false, "string")).toBe("False");
    expect(castValue(null, "string")).toBe("None");
    expect(castValue(3, "string")).toBe("3");
    expect(castValue(2.5, "string")).toBe("2.5");
    expect(castValue(1.5e-7, "string")).toBe("1.5e-07");
    expect(castValue(12345678.9, "string")).toBe("12345678.9");
    expect(castValue(0.00001, "string")).toBe("1e-05");
    expect(castValue(0.0001, "string")).toBe("0.0001");
    expect(castValue({ a: 1, b: "x'y" }, "string")).toBe(`{'a': 1, 'b': "x'y"}`);
    expect(castValue([true, null, "a"], "string")).toBe("[True, None, 'a']");
    expect(pyStr("plain")).toBe("plain");
    expect(pyRepr("a\nb\\")).toBe("'a\\nb\\\\'");
  });

  it("integer: int(x) truncates floats, parses base-10 text, raises on the rest", () => {
    expect(castValue(2.5, "integer")).toBe(2);
    expect(castValue(-2.5, "integer")).toBe(-2);
    expect(castValue(true, "integer")).toBe(1);
    expect(castValue(" 42 ", "integer")).toBe(42);
    expect(castValue("+1_000", "integer")).toBe(1000);
    expect(castValue("007", "integer")).toBe(7);
    for (const bad of ["1.5", "", "1e3", "0x10", "1__0", null, [], {}] as Json[])
      expect(() => castValue(bad, "integer"), JSON.stringify(bad)).toThrow(PyConversionError);
  });

  it("number: float(x); boolean: the normalised words, else Python truthiness", () => {
    expect(castValue("1.5", "number")).toBe(1.5);
    expect(castValue(" .5e1 ", "number")).toBe(5);
    expect(castValue("1_0.5", "number")).toBe(10.5);
    expect(castValue(false, "number")).toBe(0);
    for (const bad of ["abc", "", "1.2.3", "inf", "nan", null, {}] as Json[])
      expect(() => pyFloatStrict(bad), JSON.stringify(bad)).toThrow(PyConversionError);
    expect(castValue(" Yes ", "boolean")).toBe(true);
    expect(castValue("0", "boolean")).toBe(false);
    expect(castValue("maybe", "boolean")).toBe(true);
    expect(castValue("", "boolean")).toBe(false);
    expect(castValue([], "boolean")).toBe(false);
    expect(castValue({}, "boolean")).toBe(false);
    expect(castValue(0, "boolean")).toBe(false);
    expect(castValue(2, "boolean")).toBe(true);
    expect(castValue({ a: 1 }, "object")).toEqual({ a: 1 });
    expect(pyIntStrict(1e20)).toBe(1e20);
  });

  it("repair falls back to the schema default exactly where Python raises", () => {
    const obs = (value: Json): OfficialObservation => ({
      instruction: "",
      tool_schemas: officialSchemas("retrieval_v1"),
      transcript: [{ tool_name: "search_docs", args: { query: "x", top_k: value }, output: null, error: null }],
      remaining_budget: { steps_left: 5, tool_calls_left: 5, retries_left: 2 },
      last_error: {
        code: "invalid_argument_type",
        message: "Argument type mismatch.",
        details: { tool_name: "search_docs", arg: "top_k", expected: "integer", received: "str" },
      },
    });
    expect(repairLastCall(obs("3"))!.args.top_k).toBe(3);
    expect(repairLastCall(obs(2.5))!.args.top_k).toBe(2);
    expect(repairLastCall(obs("1.5"))!.args.top_k).toBe(1);
    expect(repairLastCall(obs("7.0"))!.args.top_k).toBe(1);
  });
});
