import { describe, expect, it } from "vitest";
import {
  Box,
  Dict,
  Discrete,
  Json,
  MultiBinary,
  MultiDiscrete,
  Rng,
  Sequence,
  Text,
  ToolActionSpace,
  ToolCallSpace,
  Tuple,
  batchSpace,
  zodFromJsonSchema,
  type ToolSchema,
} from "../../src/index.js";

const rng = () => new Rng(7);

describe("spaces", () => {
  it("Discrete contains, samples within range, honours masks, describes itself", () => {
    const d = new Discrete(5, 2);
    expect(d.contains(2)).toBe(true);
    expect(d.contains(6)).toBe(true);
    expect(d.contains(7)).toBe(false);
    expect(d.contains(2.5)).toBe(false);
    const r = rng();
    for (let i = 0; i < 100; i++) expect(d.contains(d.sample(r))).toBe(true);
    for (let i = 0; i < 50; i++) expect(d.sample(r, [0, 0, 1, 0, 0])).toBe(4);
    expect(() => d.sample(r, [0, 0, 0, 0, 0])).toThrow();
    expect(d.toJSON()).toEqual({ type: "discrete", n: 5, start: 2 });
    expect(d.equals(new Discrete(5, 2))).toBe(true);
    expect(d.equals(new Discrete(5))).toBe(false);
  });

  it("MultiDiscrete, MultiBinary and Box sample members and reject non-members", () => {
    const r = rng();
    const md = new MultiDiscrete([2, 3, 4]);
    const mb = new MultiBinary(6);
    const box = new Box(-1, 1, [2, 3]);
    const half = new Box([0, -Infinity], [Infinity, 0], [2], "float64");
    for (let i = 0; i < 50; i++) {
      expect(md.contains(md.sample(r))).toBe(true);
      expect(mb.contains(mb.sample(r))).toBe(true);
      expect(box.contains(box.sample(r))).toBe(true);
      expect(half.contains(half.sample(r))).toBe(true);
    }
    expect(md.contains([1, 3, 0])).toBe(false);
    expect(mb.contains([0, 1, 2, 0, 0, 0])).toBe(false);
    expect(box.contains(new Float32Array([0, 0, 0, 0, 0, 2]))).toBe(false);
    expect(box.contains(new Float64Array(6))).toBe(false);
    expect(half.toJSON()).toMatchObject({ low: [0, "-inf"], high: ["inf", 0] });
    expect(() => new Box([0, 1], [1, 0], [2])).toThrow(/low\[1\] > high\[1\]/);
  });

  it("Text, Dict, Tuple, Sequence and Json compose", () => {
    const r = rng();
    const space = new Dict({
      name: new Text(10, 1, "abc"),
      pair: new Tuple([new Discrete(2), new Discrete(3)]),
      list: new Sequence(new Discrete(4), 5),
      blob: new Json(),
    });
    for (let i = 0; i < 30; i++) expect(space.contains(space.sample(r))).toBe(true);
    expect(space.contains({ name: "abd", pair: [0, 0], list: [], blob: null })).toBe(false);
    expect(space.contains({ name: "ab", pair: [0, 0], list: [1, 2, 3, 0, 1, 2], blob: null })).toBe(false);
    expect(space.contains({ name: "ab", pair: [0, 0], list: [], blob: null, extra: 1 })).toBe(false);
    expect(new Json().contains({ a: [1, "x", null, { b: true }] })).toBe(true);
    expect(new Json().contains({ a: () => 1 })).toBe(false);
    expect(new Json().contains(Number.NaN)).toBe(false);
    expect(space.toJSON().type).toBe("dict");
  });

  it("sampling is deterministic under a seed", () => {
    const space = new Dict({ a: new Box(-5, 5, [4]), b: new Text(20), c: new Sequence(new Discrete(9)) });
    expect(JSON.stringify(space.sample(new Rng(3)), (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float32Array) : v))).toBe(
      JSON.stringify(space.sample(new Rng(3)), (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float32Array) : v)),
    );
  });

  it("composite spaces give fresh values on repeated sample(rng), advancing the caller's stream deterministically", () => {
    const asText = (v: unknown) => JSON.stringify(v, (_k, x) => (ArrayBuffer.isView(x) ? Array.from(x as Float32Array) : x));
    const spaces = {
      dict: new Dict({ a: new Discrete(1000), b: new Text(8, 1) }),
      tuple: new Tuple([new Discrete(1000), new Discrete(1000)]),
      sequence: new Sequence(new Discrete(1000), 8),
    };
    for (const [name, space] of Object.entries(spaces)) {
      const r = new Rng(5);
      const draws = Array.from({ length: 8 }, () => asText(space.sample(r)));
      expect(new Set(draws).size, name).toBeGreaterThan(4);
      const again = new Rng(5);
      expect(
        Array.from({ length: 8 }, () => asText(space.sample(again))),
        name,
      ).toEqual(draws);
      // The caller's own stream moved on: its next draw differs from a fresh stream's first draw.
      expect(r.random(), name).not.toBe(new Rng(5).random());
    }
  });

  it("a Tuple samples member i independently of how many draws member j made", () => {
    const narrow = new Tuple<unknown>([new Discrete(2), new Discrete(1000)]);
    const wide = new Tuple<unknown>([new Text(30, 30), new Discrete(1000)]);
    expect(narrow.sample(new Rng(9))[1]).toBe(wide.sample(new Rng(9))[1]);
  });

  it("Box float32 bounds are float32: Box(-0.3, 0.3) contains Float32Array([0.3]) and its samples", () => {
    const box = new Box(-0.3, 0.3, [1]);
    expect(box.contains(Float32Array.of(0.3))).toBe(true);
    expect(box.contains(Float32Array.of(-0.3))).toBe(true);
    expect(box.high).toBeInstanceOf(Float32Array);
    const r = rng();
    for (let i = 0; i < 200; i++) expect(box.contains(box.sample(r))).toBe(true);
    const f64 = new Box(-0.3, 0.3, [1], "float64");
    expect(f64.contains(Float64Array.of(0.3))).toBe(true);
    expect(f64.contains(Float64Array.of(Math.fround(0.3)))).toBe(false);
    const ints = new Box(-Infinity, Infinity, [2], "int32");
    expect(ints.contains(Int32Array.of(-5, 7))).toBe(true);
    expect(ints.toJSON()).toMatchObject({ low: ["-inf", "-inf"], high: ["inf", "inf"] });
  });

  it("equality: every space type equals its twin and differs from a changed one", () => {
    const schema = { type: "object" as const, properties: { x: { type: "integer" as const } } };
    let visible: ToolSchema[] = [{ name: "t", description: "T", parameters: schema }];
    const tools = new ToolCallSpace(() => visible);
    const pairs: [string, () => { equals(o: never): boolean }, () => unknown, () => unknown][] = [
      ["Discrete", () => new Discrete(3), () => new Discrete(3), () => new Discrete(3, 1)],
      ["MultiDiscrete", () => new MultiDiscrete([2, 3]), () => new MultiDiscrete([2, 3]), () => new MultiDiscrete([3, 2])],
      ["MultiBinary", () => new MultiBinary(4), () => new MultiBinary(4), () => new MultiBinary(5)],
      ["Box", () => new Box(0, 1, [2]), () => new Box(0, 1, [2]), () => new Box(0, 1, [2], "float64")],
      ["Box bounds", () => new Box(0, 1, [2]), () => new Box([0, 0], [1, 1], [2]), () => new Box(0, 2, [2])],
      ["Text", () => new Text(5, 1, "ab"), () => new Text(5, 1, "ab"), () => new Text(5, 1, "abc")],
      ["Dict", () => new Dict({ a: new Discrete(2) }), () => new Dict({ a: new Discrete(2) }), () => new Dict({ b: new Discrete(2) })],
      [
        "Tuple",
        () => new Tuple<unknown>([new Discrete(2), new Text(3)]),
        () => new Tuple<unknown>([new Discrete(2), new Text(3)]),
        () => new Tuple<unknown>([new Text(3), new Discrete(2)]),
      ],
      ["Sequence", () => new Sequence(new Discrete(2), 4), () => new Sequence(new Discrete(2), 4), () => new Sequence(new Discrete(2))],
      ["Json", () => new Json(), () => new Json(), () => new Text(3)],
      [
        "ToolCall",
        () => tools,
        () => new ToolCallSpace(() => [{ name: "t", description: "T", parameters: schema }]),
        () =>
          new ToolCallSpace(() => [{ name: "t", description: "T", parameters: { type: "object", properties: { x: { type: "string" } } } }]),
      ],
      [
        "ToolAction",
        () => new ToolActionSpace(tools),
        () => new ToolActionSpace(new ToolCallSpace(() => visible)),
        () => new ToolActionSpace(new ToolCallSpace(() => [])),
      ],
    ];
    for (const [name, make, twin, other] of pairs) {
      expect(make().equals(twin() as never), `${name} equals its twin`).toBe(true);
      expect(make().equals(other() as never), `${name} differs from a changed space`).toBe(false);
    }
    // A tool space's description is self-contained (schemas included) and follows the visible set.
    expect(tools.toJSON()).toEqual({ type: "tool_call", tools: ["t"], schemas: [{ name: "t", description: "T", parameters: schema }] });
    const before = tools.toJSON();
    visible = [
      { name: "t", description: "T", parameters: { type: "object", properties: { x: { type: "integer" }, y: { type: "string" } } } },
    ];
    expect(tools.equals(new ToolCallSpace(() => [{ name: "t", description: "T", parameters: schema }]))).toBe(false);
    expect(tools.toJSON()).not.toEqual(before);
  });

  it("batchSpace follows Gymnasium", () => {
    expect(batchSpace(new Discrete(3), 4).toJSON()).toEqual({ type: "multi_discrete", nvec: [3, 3, 3, 3] });
    expect((batchSpace(new Box(0, 1, [2]), 3) as Box).shape).toEqual([3, 2]);
    expect(batchSpace(new Text(5), 2).toJSON().type).toBe("tuple");
  });
});

describe("ToolCallSpace and JSON schema validation", () => {
  const tools: ToolSchema[] = [
    {
      name: "book_flight",
      description: "Book a flight",
      parameters: {
        type: "object" as const,
        properties: {
          origin: { type: "string" as const, minLength: 3, maxLength: 3 },
          seats: { type: "integer" as const, minimum: 1, maximum: 9 },
          cabin: { enum: ["economy", "business"] },
          when: { type: "string" as const, format: "date" },
          note: { type: ["string", "null"] as ("string" | "null")[] },
        },
        required: ["origin", "seats"],
      },
    },
    { name: "ping", description: "Ping", parameters: { type: "object" as const, properties: {} } },
  ];
  const space = new ToolCallSpace(() => tools);

  it("validates against the visible schemas and explains why not", () => {
    expect(
      space.contains({ name: "book_flight", arguments: { origin: "BER", seats: 2, cabin: "economy", when: "2026-05-01", note: null } }),
    ).toBe(true);
    expect(space.explain({ name: "book_flight", arguments: { origin: "BER" } })).toMatch(/seats/);
    expect(space.explain({ name: "book_flight", arguments: { origin: "BER", seats: 10 } })).toMatch(/seats/);
    expect(space.explain({ name: "book_flight", arguments: { origin: "BER", seats: 1, cabin: "first" } })).toMatch(/cabin/);
    expect(space.explain({ name: "book_flight", arguments: { origin: "BER", seats: 1, when: "tomorrow" } })).toMatch(/when/);
    expect(space.explain({ name: "book_flight", arguments: { origin: "BER", seats: 1, typo: 1 } })).toMatch(/typo|Unrecognized/);
    expect(space.explain({ name: "nope", arguments: {} })).toMatch(/not a visible tool/);
    expect(space.explain({ name: "ping" })).toMatch(/arguments/);
  });

  it("samples valid calls", () => {
    const r = rng();
    for (let i = 0; i < 200; i++) {
      const call = space.sample(r);
      expect(space.explain(call)).toBeNull();
    }
  });

  it("zodFromJsonSchema handles anyOf and arrays", () => {
    const z = zodFromJsonSchema({
      type: "object",
      properties: {
        ids: { type: "array", items: { type: "integer" }, minItems: 1 },
        v: { anyOf: [{ type: "string" }, { type: "number" }] },
      },
      required: ["ids"],
    });
    expect(z.safeParse({ ids: [1, 2], v: "x" }).success).toBe(true);
    expect(z.safeParse({ ids: [], v: 1 }).success).toBe(false);
    expect(z.safeParse({ ids: [1], v: true }).success).toBe(false);
  });

  it("ToolActionSpace checks shape only and names the bad field", () => {
    const actions = new ToolActionSpace(space);
    expect(actions.contains({ type: "tool_call", name: "anything", arguments: {} })).toBe(true);
    expect(actions.contains({ type: "answer", content: "x" })).toBe(true);
    expect(actions.contains({ type: "abort" })).toBe(true);
    expect(() => actions.parse({ type: "answer" })).toThrow(/action.content/);
    expect(() => actions.parse({ type: "fly" })).toThrow(/action.type must be one of/);
    expect(() => actions.parse("call ping")).toThrow(/must be an object/);
    expect(actions.parse({ type: "tool_call", name: "ping" })).toEqual({ type: "tool_call", name: "ping", arguments: {} });
    const r = rng();
    for (let i = 0; i < 100; i++) expect(actions.contains(actions.sample(r))).toBe(true);
  });
});

describe("a space's own stream (space.seed(n), then sample())", () => {
  const draws = (space: { sample(): unknown }, n = 6) =>
    JSON.stringify(
      Array.from({ length: n }, () => space.sample()),
      (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float32Array) : v),
    );
  const tools: ToolSchema[] = [
    { name: "ping", description: "", parameters: { type: "object", properties: {} } },
    { name: "echo", description: "", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  ];
  const spaces = {
    discrete: () => new Discrete(1000),
    box: () => new Box(-1, 1, [3]),
    text: () => new Text(12),
    dict: () => new Dict({ a: new Discrete(50), b: new Text(5) }),
    tuple: () => new Tuple<unknown>([new Discrete(50), new MultiBinary(4)]),
    toolAction: () => new ToolActionSpace(new ToolCallSpace(() => tools)),
  };

  for (const [name, make] of Object.entries(spaces)) {
    it(`${name}: the same seed gives the same samples, another seed other samples, and sample() needs no argument`, () => {
      const a = make();
      const b = make();
      expect(a.seed(3)).toBe(3);
      b.seed(3);
      const first = draws(a);
      expect(draws(b)).toBe(first);
      a.seed(3);
      expect(draws(a)).toBe(first); // re-seeding restarts the stream
      b.seed(4);
      expect(draws(b)).not.toBe(first);
      for (let i = 0; i < 20; i++) expect(a.contains(a.sample())).toBe(true);
    });
  }

  it("an unseeded space draws as if seeded with 0 (nothing random without a seed to replay it)", () => {
    const seeded = new Discrete(1000);
    seeded.seed(0);
    expect(draws(new Discrete(1000))).toBe(draws(seeded));
  });

  it("sample(rng) still draws from the given stream and leaves the space's own stream alone", () => {
    const d = new Discrete(1000);
    d.seed(5);
    const own = d.sample();
    const viaRng = d.sample(new Rng(5));
    d.seed(5);
    expect(d.sample()).toBe(own);
    expect(d.sample(new Rng(5))).toBe(viaRng);
  });

  it("a bad seed is an OptionsError that says what a seed must be", () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 60, "42", 42n, null]) {
      expect(() => new Discrete(3).seed(bad as never)).toThrow(
        expect.objectContaining({
          name: "OptionsError",
          field: "seed",
          message: expect.stringMatching(/^Discrete\.seed\(\): invalid seed: must be a non-negative integer/),
        }),
      );
    }
  });
});
