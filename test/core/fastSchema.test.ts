import { describe, expect, it } from "vitest";
import { compileFastCheck } from "../../src/core/fastSchema.js";
import { type JsonSchema, Rng, sampleFromJsonSchema, zodFromJsonSchema } from "../../src/index.js";
import { argumentIssues } from "../../src/core/spaces/toolCall.js";

const SCHEMAS: JsonSchema[] = [
  {
    type: "object",
    properties: { city: { type: "string", pattern: "^[A-Z][a-z]+$" }, n: { type: "integer", minimum: 1, maximum: 5 } },
    required: ["city"],
    additionalProperties: false,
  },
  {
    type: "object",
    properties: {
      when: { type: "string", format: "date-time" },
      tags: { type: "array", items: { type: "string", minLength: 2 }, maxItems: 2 },
    },
    required: ["when"],
  },
  {
    type: "object",
    properties: {
      v: { anyOf: [{ type: "number", exclusiveMinimum: 0 }, { type: "null" }] },
      mode: { enum: ["a", "b", 3] },
      k: { const: "x" },
    },
  },
  { type: "object", properties: { flag: { type: ["boolean", "string"], maxLength: 3 } }, required: ["flag"] },
];

/** Mutates a valid value into something plausibly invalid (wrong types, extra keys, out-of-range numbers). */
function mutate(v: Record<string, unknown>, rng: Rng): unknown {
  const out: Record<string, unknown> = { ...v };
  const junk = [
    null,
    0,
    -1,
    1.5,
    7,
    1e20,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    "",
    "Paris",
    "paris",
    "2026-01-01T10:00:00Z",
    "a",
    "b",
    3,
    true,
    [],
    ["ab"],
    ["a", "bb", "cc"],
    {},
    undefined,
  ];
  const keys = [...Object.keys(out), "city", "n", "when", "tags", "v", "mode", "k", "flag", "extra", "toString"];
  for (let i = rng.int(3); i >= 0; i--) {
    const k = rng.pick(keys);
    if (rng.bool(0.2)) delete out[k];
    else out[k] = rng.pick(junk);
  }
  return rng.bool(0.05) ? rng.pick([null, [], "x"]) : out;
}

describe("compileFastCheck", () => {
  it("never accepts a value zod rejects, and accepts the valid samples", () => {
    const rng = new Rng("fast-schema");
    let fastAccepted = 0;
    let zodAccepted = 0;
    for (const schema of SCHEMAS) {
      const fast = compileFastCheck(schema)!;
      const zod = zodFromJsonSchema(schema);
      expect(fast).not.toBeNull();
      for (let i = 0; i < 3000; i++) {
        const valid = sampleFromJsonSchema(schema, rng) as Record<string, unknown>;
        const value = i % 2 === 0 ? valid : mutate(valid, rng);
        const z = zod.safeParse(value).success;
        const f = fast(value);
        if (f) expect(z, JSON.stringify(value)).toBe(true);
        if (i % 2 === 0) expect(f, JSON.stringify(value)).toBe(z);
        fastAccepted += f ? 1 : 0;
        zodAccepted += z ? 1 : 0;
      }
    }
    // The fast path must carry the bulk of the valid traffic, or it would not be worth having.
    expect(fastAccepted).toBeGreaterThan(zodAccepted * 0.95);
  });

  it("leaves schemas it does not model to zod", () => {
    expect(compileFastCheck({ type: "object", properties: {}, additionalProperties: true })).toBeNull();
    expect(compileFastCheck(JSON.parse('{"type":"object","properties":{"toString":{"type":"string"}}}') as JsonSchema)).toBeNull();
    expect(compileFastCheck({ type: "array" })).toBeNull();
    expect(compileFastCheck({})).toBeNull();
  });

  it("argumentIssues reports zod's issues on failure and null on success", () => {
    const schema = SCHEMAS[0]!;
    expect(argumentIssues(schema, { city: "Paris", n: 2 })).toBeNull();
    const issues = argumentIssues(schema, { city: "paris", n: 9, x: 1 });
    expect(issues).not.toBeNull();
    expect(issues!.map((i) => i.path.join("."))).toEqual(expect.arrayContaining(["city", "n"]));
    // open schemas still validate (through zod alone)
    expect(
      argumentIssues({ type: "object", properties: { a: { type: "string" } }, additionalProperties: true }, { a: "x", b: 2 }),
    ).toBeNull();
  });
});
