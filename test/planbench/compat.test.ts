import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import {
  PyFloat,
  PyRandom,
  blake2bDigest,
  blake2bInt,
  normAns,
  parsePyJson,
  pyFloatRepr,
  pyJsonDumps,
  pyRound,
  pystr,
  sha256Prefix64,
  collapseWs,
} from "../../envs/planbench/compat/index.js";

describe("CPython random.Random port", () => {
  it("matches the reference vectors for Random(42)", () => {
    const r = new PyRandom(42);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([2746317213, 478163327, 107420369]);
    expect(new PyRandom(42).shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual([7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
  });
  it("seeds multi-word BigInt seeds least-significant word first", () => {
    const r = new PyRandom(2n ** 100n + 12345n);
    expect([r.getrandbits(32), r.getrandbits(32)]).toEqual([1910715478, 278772827]);
  });
  it("seeds from str like CPython (version 2, SHA-512 appended) and samples like CPython", () => {
    // Vectors printed by CPython 3.11.
    const s = new PyRandom("hello");
    expect(s.random()).toBe(0.3537754404730722);
    expect(s.randint(1, 100)).toBe(85);
    expect(
      s.sample(
        Array.from({ length: 100 }, (_, i) => i),
        7,
      ),
    ).toEqual([97, 70, 14, 16, 45, 6, 93]);
    expect(s.sample([1, 2, 3, 4, 5], 3)).toEqual([3, 2, 1]);
    expect(s.choice(["a", "b", "c"])).toBe("a");
    expect(s.getrandbitsBig(70)).toBe(945523048758008557943n);
    expect(new PyRandom(0).random()).toBe(0.8444218515250481);
    expect(
      new PyRandom("retail").sample(
        Array.from({ length: 300 }, (_, i) => i),
        10,
      ),
    ).toEqual([161, 200, 28, 297, 14, 125, 153, 120, 284, 102]);
    expect(new PyRandom(new Uint8Array([0, 1])).randrange(3, 1000, 7)).toBe(521);
  });
  it("round-trips its state", () => {
    const a = new PyRandom(7);
    a.random();
    const b = PyRandom.fromState(a.getState());
    expect(b.random()).toBe(a.random());
  });
});

describe("BLAKE2b with a digest-size parameter", () => {
  const hex = (text: string, outLen: number) => Buffer.from(blake2bDigest(text, outLen)).toString("hex");
  it("matches RFC 7693's vector and Python's hashlib.blake2b(digest_size=n)", () => {
    // RFC 7693 Appendix A: BLAKE2b-512("abc").
    expect(hex("abc", 64)).toBe(
      "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
    );
    // hashlib.blake2b(s.encode(), digest_size=n).hexdigest() (CPython 3.11), across the 128-byte block boundary.
    const vectors: [string, number, string][] = [
      ["", 8, "e4a6a0577479b2b4"],
      ["abc", 8, "d8bb14d833d59559"],
      ["user", 8, "afdf5c9a7bd48d63"],
      ["abc", 16, "cf4ab791c62b8d2b2109c90275287816"],
      ["x".repeat(128), 16, "874acca82a22239ec64a3e70c3ae494e"],
      ["x".repeat(129), 16, "b9ee96f69e8210c624fee55d71d5a54f"],
      ["x".repeat(256), 32, "cb9d468022b930d52da4d9b0226ef9c997e0acc119eeb08afefb8219bc53972b"],
      ["héllo wörld ✓", 16, "e6579f8e45a3399f55c5d8d26c2f0c83"],
    ];
    for (const [text, n, want] of vectors) expect(hex(text, n), `${JSON.stringify(text.slice(0, 12))} / ${n}`).toBe(want);
    expect(Number(blake2bInt("user", 8) % 512n)).toBe(355);
    expect(blake2bInt("abc", 16)).toBe(BigInt("0xcf4ab791c62b8d2b2109c90275287816"));
  });
  it("agrees with node's blake2b512 across block boundaries", () => {
    for (const n of [0, 1, 111, 127, 128, 129, 255, 256, 257, 1000]) {
      const s = "ab".repeat(n).slice(0, n);
      expect(hex(s, 64)).toBe(createHash("blake2b512").update(s).digest("hex"));
    }
  });
  it("rejects a digest size outside 1..64", () => {
    expect(() => blake2bDigest("abc", 0)).toThrow(/1\.\.64/);
    expect(() => blake2bDigest("abc", 65)).toThrow(/1\.\.64/);
  });
});

describe("SHA-256 task seed", () => {
  it("matches the reference vector", () => {
    expect(sha256Prefix64("retail_task_0001")).toBe(13197465202766764912n);
  });
});

describe("Python value formatting", () => {
  it("formats floats like Python repr", () => {
    const cases: Array<[number, string]> = [
      [129.0, "129.0"],
      [1e16, "1e+16"],
      [1e15, "1000000000000000.0"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [1.5e-7, "1.5e-07"],
      [79.99, "79.99"],
      [-0, "-0.0"],
      [123456789012345678, "1.2345678901234568e+17"],
      [0.1 + 0.2, "0.30000000000000004"],
      [1 / 3, "0.3333333333333333"],
      [2.5e20, "2.5e+20"],
      [-42, "-42.0"],
      [9999999999999998, "9999999999999998.0"],
      [12345.678, "12345.678"],
    ];
    for (const [x, s] of cases) expect(pyFloatRepr(x)).toBe(s);
  });
  it("keeps int and float apart when parsing JSON", () => {
    const v = parsePyJson('{"a": 118, "b": 118.0, "c": [1e2, null, true, "x\\u00e9"]}') as Record<string, unknown>;
    expect(pystr(v["a"])).toBe("118");
    expect(pystr(v["b"])).toBe("118.0");
    expect(v["b"]).toBeInstanceOf(PyFloat);
    expect(pystr(v["c"])).toBe('[100.0, null, true, "xé"]');
    expect(() => parsePyJson('{"a": }')).toThrow(/line 1 column 7/);
  });
  it("str() and json.dumps like Python", () => {
    expect(pystr(null)).toBe("None");
    expect(pystr(true)).toBe("True");
    expect(pystr(new PyFloat(129))).toBe("129.0");
    expect(pyJsonDumps({ b: [1, new PyFloat(2), null, true], a: 'é"\n', c: {} }, { sortKeys: true })).toBe(
      '{"a": "é\\"\\n", "b": [1, 2.0, null, true], "c": {}}',
    );
    expect(pyJsonDumps({ b: [1, { x: 1 }], a: [] }, { indent: 2 })).toBe(
      '{\n  "b": [\n    1,\n    {\n      "x": 1\n    }\n  ],\n  "a": []\n}',
    );
  });
  it("normalises answers like the official judge", () => {
    expect(normAns(null)).toBe("");
    expect(normAns('  The **Answer** is "ACCT_tok_4242"\n ok ')).toBe("the answer is accttok4242 ok");
    expect(normAns(new PyFloat(42))).toBe("42.0");
    expect(collapseWs("\x1c a\u00a0 b \ufeff")).toBe("a b \ufeff");
    expect([pyRound(2.5), pyRound(1.5), pyRound(0.5), pyRound(3.2), pyRound(3.7)]).toEqual([2, 2, 0, 3, 4]);
  });
});
