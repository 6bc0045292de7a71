/**
 * Observation deltas: per env, the server remembers the last observation it sent and ships only the top-level
 * keys that changed. Tool schemas and the task text therefore cross the wire once per episode, not every step,
 * whatever the env puts in its observation.
 */

import { isNumericView } from "./codec.js";

export type WireObs = { s: Record<string, unknown>; d?: string[] } | { f: unknown };

/** A map as JSON has them: a plain object (not an array, typed array or class instance). */
export function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== "object" || Array.isArray(x) || ArrayBuffer.isView(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/** Structural equality of JSON-like values; identity short-circuits the common unchanged-reference case. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b)) return false;
    // DataViews have no elements: two of them compare equal, a DataView and a typed array do not.
    if (!isNumericView(a) || !isNumericView(b)) return !isNumericView(a) && !isNumericView(b);
    const x: ArrayLike<number | bigint> = a;
    const y: ArrayLike<number | bigint> = b;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  // Object.keys, not for-in + hasOwn: this runs for every changed observation value of every env-step, and on
  // recorded ToolMisuseBench-v0 batches (session 27) copying V8's cached key list cost less than for-in's per-key
  // checks. Both visit exactly the own enumerable string keys.
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (!Object.hasOwn(rb, k) || !deepEqual(ra[k], rb[k])) return false;
  }
  return true;
}

/**
 * Encodes `next` relative to `prev`: `{ s: changed, d: removed }` when both are plain objects, else `{ f: next }`.
 * Key order of `s` follows `next`, so a decoder that applies `s` then `d` reconstructs `next` key for key (up to
 * the position of changed keys, which JSON-like consumers do not depend on).
 */
export function encodeDelta(prev: unknown, next: unknown): WireObs {
  // The same object returned again may have been changed in place: nothing to diff against, send it whole.
  // (Deltas assume envs hand out fresh observation objects, as the library's envs do.)
  if (prev === next || !isPlainObject(prev) || !isPlainObject(next)) return { f: next };
  const s: Record<string, unknown> = {};
  // Counting the keys both have tells whether any of prev's disappeared without a second pass (the usual case:
  // an env's observations all have the same keys).
  let shared = 0;
  for (const k in next) {
    if (!Object.hasOwn(next, k)) continue;
    const v = next[k];
    if (!Object.hasOwn(prev, k)) s[k] = v;
    else {
      shared++;
      if (!deepEqual(prev[k], v)) s[k] = v;
    }
  }
  let prevCount = 0;
  for (const k in prev) if (Object.hasOwn(prev, k)) prevCount++;
  if (shared === prevCount) return { s };
  const d: string[] = [];
  for (const k of Object.keys(prev)) if (!Object.hasOwn(next, k)) d.push(k);
  return { s, d };
}

/** The inverse of `encodeDelta`, as a client applies it (used in tests and by JS clients). */
export function applyDelta(prev: unknown, wire: WireObs): unknown {
  if ("f" in wire) return wire.f;
  const base = isPlainObject(prev) ? { ...prev } : {};
  for (const [k, v] of Object.entries(wire.s)) base[k] = v;
  for (const k of wire.d ?? []) delete base[k];
  return base;
}
