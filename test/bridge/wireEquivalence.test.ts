/**
 * Session 27 rewrote the hot walks of the bridge (toWire, deepEqual, the column diff) for speed; the bytes on the
 * wire must not move. These tests hold the new code against straightforward reference versions of the rules (the
 * session-26 algorithms: for-in walks, a whole-value deepEqual before the per-key patch) on seeded random values
 * that exercise every branch: big integers, typed arrays, Maps, Sets, Dates, null-prototype maps, class instances,
 * added, removed and reordered keys, patches and whole values.
 */
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { encode, isNumericView, toWire } from "../../bridge/codec.js";
import { encodeColumns } from "../../bridge/columns.js";
import { deepEqual, isPlainObject } from "../../bridge/delta.js";

function refToWire(value: unknown): unknown {
  switch (typeof value) {
    case "number":
      return Number.isInteger(value) && (value > 0xffffffff || value < -0x80000000) && Number.isSafeInteger(value) ? BigInt(value) : value;
    case "string":
    case "boolean":
    case "bigint":
      return value;
    case "undefined":
    case "function":
    case "symbol":
      return null;
    default:
      break;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const out = value.map(refToWire);
    return out.every((w, i) => w === value[i]) ? value : out;
  }
  if (ArrayBuffer.isView(value)) {
    if (value instanceof Uint8Array) return value;
    return isNumericView(value) ? refToWire(Array.from(value as unknown as ArrayLike<number>)) : null;
  }
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), refToWire(v)]));
  if (value instanceof Set) return refToWire(Array.from(value));
  if (value instanceof Date) return value.toISOString();
  const proto = Object.getPrototypeOf(value);
  const withJson = value as { toJSON?: () => unknown };
  if (proto !== Object.prototype && proto !== null && typeof withJson.toJSON === "function") return refToWire(withJson.toJSON());
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const k in src) {
    if (!Object.hasOwn(src, k)) continue;
    out[k] = refToWire(src[k]);
    if (out[k] !== src[k]) changed = true;
  }
  return changed ? out : proto === null ? { ...src } : value;
}

/** The session-26 deepEqual (for-in walks), rule for rule. */
function refDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => refDeepEqual(x, b[i]));
  if (Array.isArray(b)) return false;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b)) return false;
    if (!isNumericView(a) || !isNumericView(b)) return !isNumericView(a) && !isNumericView(b);
    const x = a as unknown as ArrayLike<unknown>;
    const y = b as unknown as ArrayLike<unknown>;
    return x.length === y.length && Array.from(x).every((v, i) => v === y[i]);
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let na = 0;
  for (const k in ra) {
    if (!Object.hasOwn(ra, k)) continue;
    na++;
    if (!Object.hasOwn(rb, k) || !refDeepEqual(ra[k], rb[k])) return false;
  }
  let nb = 0;
  for (const k in rb) if (Object.hasOwn(rb, k)) nb++;
  return na === nb;
}

/** The session-26 column diff: whole-value deepEqual, then a per-key patch of maps that kept their keys. */
function refPatchOf(prev: unknown, next: unknown): Record<string, unknown> | null {
  if (!isPlainObject(prev) || !isPlainObject(next)) return null;
  const pk = Object.keys(prev);
  const nk = Object.keys(next);
  if (pk.length !== nk.length || nk.some((k) => !Object.hasOwn(prev, k))) return null;
  const patch: Record<string, unknown> = {};
  let kept = false;
  for (const k of nk) {
    if (refDeepEqual(prev[k], next[k])) kept = true;
    else patch[k] = next[k];
  }
  return kept && Object.keys(patch).length > 0 ? patch : null;
}

function refColumns(prev: readonly unknown[], next: readonly unknown[]): Record<string, unknown> {
  const n = next.length;
  const set: Record<string, [number[] | null, unknown[]]> = {};
  const patch: Record<string, [number[] | null, unknown[]]> = {};
  const removed: Record<string, number[]> = {};
  const full: [number[], unknown[]] = [[], []];
  const add = (cols: typeof set, k: string, e: number, v: unknown) => {
    cols[k] ??= [[], []];
    (cols[k][0] as number[]).push(e);
    cols[k][1].push(v);
  };
  next.forEach((x, e) => {
    const p = prev[e];
    if (p === x || !isPlainObject(p) || !isPlainObject(x)) {
      full[0].push(e);
      full[1].push(x);
      return;
    }
    for (const k of Object.keys(x)) {
      if (!Object.hasOwn(p, k)) add(set, k, e, x[k]);
      else if (!refDeepEqual(p[k], x[k])) {
        const sub = refPatchOf(p[k], x[k]);
        if (sub === null) add(set, k, e, x[k]);
        else add(patch, k, e, sub);
      }
    }
    for (const k of Object.keys(p)) if (!Object.hasOwn(x, k)) (removed[k] ??= []).push(e);
  });
  const finish = (cols: typeof set) => {
    for (const k in cols) if ((cols[k][0] as number[]).length === n) cols[k][0] = null;
    return cols;
  };
  const out: Record<string, unknown> = {};
  if (full[0].length) out.f = full[0].length === n ? [null, full[1]] : full;
  if (Object.keys(set).length) out.s = finish(set);
  if (Object.keys(patch).length) out.p = finish(patch);
  if (Object.keys(removed).length) out.d = removed;
  return out;
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  toJSON(): unknown {
    return { x: this.x, y: this.y };
  }
}

class Bare {
  a = 1;
  b = 2 ** 40;
}

function randomValue(rng: () => number, depth: number): unknown {
  const r = rng();
  const pick = Math.floor(r * (depth > 2 ? 9 : 17));
  switch (pick) {
    case 0:
      return Math.floor(rng() * 100);
    case 1:
      return [2 ** 40, -(2 ** 33), 2 ** 31, -(2 ** 31), 0xffffffff, 2 ** 53 + 2, 1.5e12 + 0.5][Math.floor(rng() * 7)];
    case 2:
      return `s${Math.floor(rng() * 5)}`;
    case 3:
      return rng() < 0.5;
    case 4:
      return null;
    case 5:
      return undefined;
    case 6:
      return rng() * 10;
    case 7:
      return Number.NaN;
    case 8:
      return "x".repeat(Math.floor(rng() * 80));
    case 9:
    case 10:
    case 11:
      return Array.from({ length: Math.floor(rng() * 4) }, () => randomValue(rng, depth + 1));
    case 12:
    case 13:
      return randomMap(rng, depth + 1);
    case 14:
      return [new Float64Array([1, 2 ** 40]), new Uint8Array([1, 2]), new Int32Array([-1]), new Map([[1, 2 ** 35]])][Math.floor(rng() * 4)];
    case 15:
      return [new Set([1, "a"]), new Date(0), new Point(1, 2 ** 41), new Bare()][Math.floor(rng() * 4)];
    default: {
      const o = Object.create(null) as Record<string, unknown>;
      o.k = randomValue(rng, depth + 1);
      return o;
    }
  }
}

const KEYS = ["a", "b", "c", "d", "1", "e"];

function randomMap(rng: () => number, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const k of KEYS) if (rng() < 0.6) o[k] = randomValue(rng, depth);
  return o;
}

/** `prev` changed a little: some values kept (same or equal copies), some changed, keys added or dropped. */
function mutate(rng: () => number, prev: unknown, depth: number): unknown {
  if (!isPlainObject(prev) || rng() < 0.1) return rng() < 0.5 ? prev : randomValue(rng, depth);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(prev)) {
    const r = rng();
    if (r < 0.08) continue;
    if (r < 0.4) out[k] = prev[k];
    else if (r < 0.6) out[k] = structuredCloneSafe(prev[k]);
    else if (r < 0.8 && depth < 2) out[k] = mutate(rng, prev[k], depth + 1);
    else out[k] = randomValue(rng, depth + 1);
  }
  if (rng() < 0.15) out[KEYS[Math.floor(rng() * KEYS.length)]] = randomValue(rng, depth + 1);
  return out;
}

/** An equal copy (class instances and typed arrays kept as they are: deepEqual treats them by identity or content). */
function structuredCloneSafe(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(structuredCloneSafe);
  if (isPlainObject(v) && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, structuredCloneSafe(x)]));
  }
  return v;
}

describe("wire encoding equivalence (session 27 rewrites)", () => {
  it("toWire gives the same bytes, and the same reference when nothing needs changing", () => {
    const rng = seedrandom("towire");
    for (let i = 0; i < 3000; i++) {
      const v = randomValue(rng, 0);
      const ref = refToWire(v);
      const got = toWire(v);
      expect(Buffer.compare(encode(got), encode(ref))).toBe(0);
      if (ref === v) expect(got).toBe(v);
    }
  });

  it("deepEqual gives the session-26 answers", () => {
    const rng = seedrandom("deepequal");
    let equal = 0;
    for (let i = 0; i < 3000; i++) {
      const a = randomValue(rng, 0);
      const b = rng() < 0.5 ? structuredCloneSafe(a) : mutate(rng, a, 0);
      const ref = refDeepEqual(a, b);
      expect(deepEqual(a, b)).toBe(ref);
      if (ref) equal++;
    }
    expect(equal).toBeGreaterThan(300);
    expect(equal).toBeLessThan(2700);
  });

  it("encodeColumns gives the same columns as the reference diff", () => {
    const rng = seedrandom("columns");
    let patches = 0;
    let removed = 0;
    for (let round = 0; round < 200; round++) {
      const prev = Array.from({ length: 16 }, () => (rng() < 0.05 ? randomValue(rng, 1) : randomMap(rng, 0)));
      const next = prev.map((p) => mutate(rng, p, 0));
      const got = encodeColumns(prev, next, null);
      const ref = refColumns(prev, next);
      expect(Buffer.compare(encode(got), encode(ref))).toBe(0);
      if (got.p) patches++;
      if (got.d) removed++;
    }
    expect(patches).toBeGreaterThan(50);
    expect(removed).toBeGreaterThan(50);
  });
});
