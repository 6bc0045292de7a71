/**
 * Deterministic hashing for simulated tool outputs. Tool responses must be a pure function of
 * (capability, arguments, episode state) so that the same call yields the same bytes on every machine;
 * a string hash (not a random stream) gives exactly that without threading an Rng through simulators.
 * The hash is the library's FNV-1a (`fnv1aUpdate`) plus a final avalanche (`fnvDigest`).
 */
import { FNV_OFFSET, FNV_PRIME, fnv1aUpdate, stableStringify } from "../../../src/family.js";

export function fnv1a(text: string): number {
  return fnvDigest(fnvUpdate(FNV_START, text));
}

/**
 * The hash in parts, for hot paths that would otherwise build a string only to hash it: `fnvDigest(fnvUpdate(
 * fnvUpdate(FNV_START, a), b))` equals `fnv1a(a + b)`.
 */
export const FNV_START = FNV_OFFSET;
export const fnvUpdate = fnv1aUpdate;

/** Feeds the decimal text of `n` (what `${n}` gives), without making the string when n is a uint32. */
function fnvUpdateNumber(state: number, n: number): number {
  if (!(n >= 0 && n <= 0xffffffff && Math.floor(n) === n)) return fnvUpdate(state, `${n}`);
  let p = 1;
  while (p * 10 <= n) p *= 10;
  let h = state;
  for (; p >= 1; p /= 10) {
    h ^= 48 + (Math.floor(n / p) % 10);
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}

/** Characters `JSON.stringify` escapes in a string (quote, backslash, controls, lone surrogates; pairs are sent along). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Feeds `JSON.stringify(s)` without making the string when nothing in `s` needs escaping. */
function fnvUpdateJsonString(state: number, s: string): number {
  if (NEEDS_ESCAPE.test(s)) return fnvUpdate(state, JSON.stringify(s));
  const quote = 34;
  let h = Math.imul(state ^ quote, FNV_PRIME);
  h = fnvUpdate(h, s);
  return Math.imul(h ^ quote, FNV_PRIME);
}

/** Feeds one member value as `stableStringify` writes it (scalars without a string; objects and arrays through it). */
function fnvUpdateJsonValue(state: number, v: unknown): number {
  if (typeof v === "string") return fnvUpdateJsonString(state, v);
  if (typeof v === "number") {
    // A finite number's JSON text is its decimal text (-0 included: both write "0").
    return Number.isFinite(v) ? fnvUpdateNumber(state, v) : fnvUpdate(state, JSON.stringify(String(v)));
  }
  if (v === null) return fnvUpdate(state, "null");
  if (typeof v === "boolean") return fnvUpdate(state, v ? "true" : "false");
  return fnvUpdate(state, stableStringify(v));
}

/**
 * `fnvUpdate(state, stableStringify(value))` without building the text for the common case, a plain object of
 * scalars (every simulator hashes its call's arguments): keys in the same order, the same escaping, the same
 * numbers. Anything else (arrays, nested objects, typed arrays) is written by `stableStringify` itself.
 */
export function fnvUpdateJson(state: number, value: unknown): number {
  if (value === null || typeof value !== "object" || Array.isArray(value) || ArrayBuffer.isView(value)) {
    return fnvUpdateJsonValue(state, value);
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  // stableStringify's order, UTF-16 code units; sorted in place by insertion (Array#sort allocates a work copy).
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > k; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = k;
  }
  let h = fnvUpdate(state, "{");
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) h = fnvUpdate(h, ",");
    first = false;
    h = fnvUpdate(fnvUpdateJsonString(h, k), ":");
    h = fnvUpdateJsonValue(h, v);
  }
  return fnvUpdate(h, "}");
}

export function fnvDigest(state: number): number {
  let h = state;
  // Final avalanche so that nearby strings give unrelated values.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Uniform-looking float in [0, 1) derived from a hash. */
export function unit(h: number): number {
  return h / 4294967296;
}

/** Sub-hash for a named part, so fields of one response vary independently: fnv1a(`${h}:${part}`). */
export function sub(h: number, part: string | number): number {
  const x = subPrefix(h);
  return fnvDigest(typeof part === "number" ? fnvUpdateNumber(x, part) : fnvUpdate(x, part));
}

/** The state after `${h}:`, shared by every `sub(h, …)`: `subOf(subPrefix(h), part)` equals `sub(h, part)` for a string part. */
export function subPrefix(h: number): number {
  return fnvUpdate(fnvUpdateNumber(FNV_START, h), ":");
}

export function subOf(prefix: number, part: string): number {
  return fnvDigest(fnvUpdate(prefix, part));
}

const ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/** Readable uppercase code of length n from a hash. */
export function code(h: number, n: number): string {
  let out = "";
  let x = h;
  for (let i = 0; i < n; i++) {
    if (x === 0) x = sub(h, i);
    out += ALNUM[x % ALNUM.length];
    x = Math.floor(x / ALNUM.length);
  }
  return out;
}
