import { describe, expect, it } from "vitest";
import { type JsonSchema, make, Rng, sampleFromJsonSchema, type ToolActionSpace } from "../../src/index.js";
import { compileSchemaSampler } from "../../src/core/spaces/schemaSampler.js";
import type { Action } from "../../src/engine/actions.js";

/** Every keyword the interpreter reads, alone and nested (depth matters: optional members stop at depth 3). */
const SYNTHETIC: JsonSchema[] = [
  {},
  { type: "string", minLength: 12, maxLength: 14 },
  { type: "string", maxLength: 2 },
  { type: "string", format: "email" },
  { type: "string", format: "date-time" },
  { type: "string", format: "date" },
  { type: "string", pattern: "^[A-Z]{3}-[0-9]{2}$" },
  { type: ["string", "null"], pattern: "^x+$" },
  { type: "string", pattern: "^[a-z]{2}$", minLength: 5 },
  { type: "string", pattern: "^a{1,9}$", maxLength: 4 },
  { type: "string", pattern: "^[a-z]{5}$", minLength: 5, maxLength: 5 },
  { type: "string", pattern: "(?<=x)y\\1" },
  { type: "string", format: "date", pattern: "^z$" },
  { type: "string", format: "uri", pattern: "^[0-9]{4}$" },
  { type: "integer" },
  { type: "integer", minimum: -5, maximum: 5 },
  { type: "integer", exclusiveMinimum: 3, exclusiveMaximum: 9 },
  { type: "integer", minimum: 10, maximum: 2 },
  { type: "number" },
  { type: "number", minimum: -273.15 },
  { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 0.01 },
  { type: "number", minimum: 1, maximum: 1.004 },
  { type: "boolean" },
  { type: "null" },
  { type: ["integer", "string", "null", "boolean"] },
  { enum: ["a", 1, null, { x: [1] }] },
  { const: { fixed: true } },
  { anyOf: [{ type: "integer" }, { type: "string" }, { const: 3 }] },
  { oneOf: [{ type: "array", items: { type: "boolean" } }, { type: "null" }] },
  { type: "array" },
  { type: "array", minItems: 2, maxItems: 10, items: { type: "number", maximum: 3 } },
  { type: "array", minItems: 5, items: { enum: [1, 2] } },
  {
    type: "object",
    properties: {
      a: { type: "string" },
      b: { type: "object", properties: { c: { type: "object", properties: { d: { type: "object", properties: { e: {} } } } } } },
      "2": { type: "integer" },
      f: { type: "array", items: { type: "object", properties: { g: { type: "boolean" } }, required: ["g"] } },
    },
    required: ["b"],
  },
  { type: "object" },
  { type: "mystery" as never },
  { type: "array", items: { type: "array", items: { type: "array", items: { type: "array", items: { type: "array", items: {} } } } } },
];

/** The tool schemas the built-in families show in their first episodes. */
function familySchemas(): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const id of ["Demo-v0", "ToolMaze-v0", "FailingTools-v0", "ToolMisuseBench-v0"]) {
    const env = make(id) as unknown as { reset(a: object): [{ newTools: { parameters: JsonSchema }[] }] };
    for (let seed = 0; seed < 6; seed++) for (const t of env.reset({ seed })[0].newTools) out.push({ type: "object", ...t.parameters });
  }
  return out;
}

function expectSameDraws(schema: JsonSchema, rounds: number): void {
  const sampler = compileSchemaSampler(schema);
  for (let seed = 0; seed < rounds; seed++) {
    const a = new Rng(seed);
    const b = new Rng(seed);
    const want = sampleFromJsonSchema(schema, a);
    const got = sampler(b);
    // JSON text compares values and key order; the stream states compare how many draws each took.
    expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    expect(got === undefined).toBe(want === undefined);
    expect(b.random()).toBe(a.random());
  }
}

describe("compiled schema samplers", () => {
  it("draw what sampleFromJsonSchema draws, from the same stream positions (every keyword)", () => {
    for (const schema of SYNTHETIC) expectSameDraws(schema, 200);
  });

  it("draw what sampleFromJsonSchema draws for every built-in family's tool schemas", () => {
    const schemas = familySchemas();
    expect(schemas.length).toBeGreaterThan(20);
    for (const schema of schemas) expectSameDraws(schema, 30);
  });

  it("keep the interpreter's error for an empty type list", () => {
    expect(() => compileSchemaSampler({ type: [] })(new Rng(1))).toThrow(/empty array/);
  });
});

/** ToolActionSpace.sample as it was before its weights and argument samplers were compiled (the reference). */
function referenceSample(space: ToolActionSpace, rng: Rng): Action {
  const names = ["tool_call", "answer", "abort", ...Object.keys(space.extraKinds)];
  const weights = [
    space.toolCalls.tools().length > 0 ? space.sampleWeights.tool_call : 0,
    space.sampleWeights.answer,
    space.sampleWeights.abort,
    ...Object.values(space.extraKinds).map((k) => (k.sample ? (k.weight ?? 0) : 0)),
  ];
  const kind = names[rng.weighted(weights)];
  if (kind === "tool_call") {
    const tool = rng.pick(space.toolCalls.tools());
    return { type: "tool_call", name: tool.name, arguments: sampleFromJsonSchema({ type: "object", ...tool.parameters }, rng) as never };
  }
  if (kind === "answer") return { type: "answer", content: `answer-${rng.int(1000)}` };
  if (kind === "abort") return { type: "abort", reason: "random" };
  const extra = space.extraKinds[kind];
  return extra.sample ? extra.sample(rng) : { type: "abort", reason: "random" };
}

describe("ToolActionSpace.sample", () => {
  it("gives the same action stream as the uncompiled reference, family kinds included", () => {
    for (const id of ["Demo-v0", "FailingTools-v0", "ToolMaze-v0"]) {
      const env = make(id) as unknown as { actionSpace: ToolActionSpace; reset(a: object): unknown };
      for (let seed = 0; seed < 5; seed++) {
        env.reset({ seed });
        const a = new Rng(seed).derive("a");
        const b = new Rng(seed).derive("a");
        for (let k = 0; k < 200; k++)
          expect(JSON.stringify(env.actionSpace.sample(b))).toBe(JSON.stringify(referenceSample(env.actionSpace, a)));
      }
    }
  });
});
