// The library's one canonical JSON writer (stableStringify / recordStringify) and its one string hash (FNV-1a):
// the in-place writer must give exactly the bytes of the plain map/sort/join definition, on every input it may meet.
import { describe, expect, it } from "vitest";
import { recordStringify, stableStringify } from "../../src/core/json.js";
import { FNV_OFFSET, fnv1aUpdate, hash32, Rng } from "../../src/core/rng.js";

/** The writer's definition, written the plain way (as it was before it was built in place). */
function reference(value: unknown, keepOrder = false, recordArguments = false): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return JSON.stringify(String(value));
    return JSON.stringify(value);
  }
  if (ArrayBuffer.isView(value))
    return reference(value instanceof DataView ? [] : Array.from(value as unknown as ArrayLike<number>), keepOrder, recordArguments);
  if (Array.isArray(value)) return `[${value.map((v) => reference(v, keepOrder, recordArguments)).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  if (!keepOrder) keys.sort();
  const text = (k: string) => reference(obj[k], keepOrder || (recordArguments && k === "arguments"), recordArguments);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${text(k)}`).join(",")}}`;
}

const SCALARS: unknown[] = [
  0,
  -0,
  1,
  -1,
  0.5,
  1e21,
  2 ** 32,
  NaN,
  Infinity,
  "",
  'a"b\\c',
  "\u0001\n",
  "é☃\ud800",
  true,
  false,
  null,
  undefined,
];
const KEYS = ["b", "a", "10", "2", "é", "Z", "aa", "arguments", "\ud83d\ude00", "ab"];

function randomValue(rng: Rng, depth: number): unknown {
  if (depth > 2 || rng.bool(0.4)) return rng.pick(SCALARS);
  if (rng.bool(0.1)) return new Float64Array([1.5, -2, 0]);
  if (rng.bool(0.35)) return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
  // Up to 24 keys: both the small-object (insertion) sort and the large-object sort.
  const n = rng.int(25);
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [i % 3 === 0 ? `k${rng.int(40)}` : rng.pick(KEYS), randomValue(rng, depth + 1)]),
  );
}

describe("canonical JSON writer", () => {
  it("stableStringify and recordStringify equal the plain definition", () => {
    const rng = new Rng("canonical-json");
    const fixed: unknown[] = [[1, , 3], { x: [undefined] }, { b: undefined, a: 1 }, { arguments: { z: 1, a: { y: 2, b: 3 } } }];
    for (const v of [...fixed, ...Array.from({ length: 500 }, () => randomValue(rng, 0))]) {
      expect(stableStringify(v)).toBe(reference(v));
      expect(recordStringify(v)).toBe(reference(v, false, true));
    }
  });

  it("is independent of key order, drops undefined members and writes non-finite numbers as strings", () => {
    expect(stableStringify({ b: [1, { d: 1, c: 2 }], a: "x" })).toBe(stableStringify({ a: "x", b: [1, { c: 2, d: 1 }] }));
    expect(stableStringify({ a: undefined, b: NaN, c: -Infinity })).toBe('{"b":"NaN","c":"-Infinity"}');
    expect(recordStringify({ b: 1, arguments: { z: 1, a: 2 }, a: 0 })).toBe('{"a":0,"arguments":{"z":1,"a":2},"b":1}');
  });
});

describe("string hash", () => {
  it("hash32 is FNV-1a, and hashing in parts equals hashing the joined text", () => {
    // Published FNV-1a 32-bit test vectors.
    expect(hash32("")).toBe(0x811c9dc5);
    expect(hash32("a")).toBe(0xe40c292c);
    expect(hash32("foobar")).toBe(0xbf9cf968);
    const rng = new Rng("fnv-parts");
    for (let i = 0; i < 200; i++) {
      const a = String(rng.int(1e9));
      const b = rng.pick(KEYS);
      expect(fnv1aUpdate(fnv1aUpdate(FNV_OFFSET, a), b) >>> 0).toBe(hash32(a + b));
    }
  });
});
