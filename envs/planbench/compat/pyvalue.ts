/**
 * Python value semantics the official runtime relies on: int vs float, `str()`, float `repr`,
 * `json.dumps(sort_keys=True, ensure_ascii=False)` and the answer normalisation.
 *
 * Why: the runtime compares values by Python `str()` (so `129.0` ≠ `129`), and seeds its
 * shuffles with hashes of Python-formatted JSON; JS numbers alone cannot tell `118` from `118.0`.
 */
import type { JsonObject, JsonValue } from "../../../src/family.js";

/** Sets `obj[key]` as an own data property: a `"__proto__"` key from parsed JSON stays an ordinary key. */
export function setOwn(obj: object, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A JSON number written with a fraction or exponent: a Python `float`, even when integral. */
export class PyFloat {
  constructor(readonly value: number) {}
  /** Serialises as a plain JSON number (loses the `.0`, which is why `pyJsonDumps` exists). */
  toJSON(): number {
    return this.value;
  }
}

/** A JSON value as Python sees it (ints are JS numbers, or `bigint` beyond 2^53; floats are `PyFloat`). */
export type PyValue = null | boolean | number | bigint | string | PyFloat | PyValue[] | { [key: string]: PyValue };

/** Python `repr(float)`: shortest round-trip digits, exponent form when exp < -4 or exp >= 16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mant, expStr] = Math.abs(x).toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  const digits = mant.replace(".", "");
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

function jsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Code-point order, as Python sorts `str` keys (JS `sort()` compares UTF-16 units). */
export function codePointCompare(a: string, b: string): number {
  const aa = Array.from(a);
  const bb = Array.from(b);
  const n = Math.min(aa.length, bb.length);
  for (let i = 0; i < n; i++) {
    const x = aa[i]!.codePointAt(0)!;
    const y = bb[i]!.codePointAt(0)!;
    if (x !== y) return x - y;
  }
  return aa.length - bb.length;
}

export interface PyJsonDumpsOptions {
  sortKeys?: boolean;
  /** Python `indent`: when set, newline + indent and the item separator becomes "," . */
  indent?: number;
}

/** `json.dumps(v, ensure_ascii=False, ...)` with Python's default separators. */
export function pyJsonDumps(v: unknown, opts: PyJsonDumpsOptions = {}): string {
  const sortKeys = opts.sortKeys ?? false;
  const indent = opts.indent;
  const rec = (x: unknown, level: number): string => {
    if (x === null || x === undefined) return "null";
    if (x === true) return "true";
    if (x === false) return "false";
    if (x instanceof PyFloat) {
      if (Number.isNaN(x.value)) return "NaN";
      if (!Number.isFinite(x.value)) return x.value > 0 ? "Infinity" : "-Infinity";
      return pyFloatRepr(x.value);
    }
    if (typeof x === "number") {
      if (Number.isInteger(x)) return String(x);
      if (Number.isNaN(x)) return "NaN";
      if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
      return pyFloatRepr(x);
    }
    if (typeof x === "bigint") return x.toString();
    if (typeof x === "string") return jsonString(x);
    const nl = indent === undefined ? "" : `\n${" ".repeat(indent * (level + 1))}`;
    const nlEnd = indent === undefined ? "" : `\n${" ".repeat(indent * level)}`;
    const sep = indent === undefined ? ", " : ",";
    if (Array.isArray(x)) {
      if (x.length === 0) return "[]";
      return `[${nl}${x.map((e) => rec(e, level + 1)).join(sep + nl)}${nlEnd}]`;
    }
    if (typeof x === "object") {
      let keys = Object.keys(x as object).filter((k) => (x as Record<string, unknown>)[k] !== undefined);
      if (sortKeys) keys = keys.slice().sort(codePointCompare);
      if (keys.length === 0) return "{}";
      const items = keys.map((k) => `${jsonString(k)}: ${rec((x as Record<string, unknown>)[k], level + 1)}`);
      return `{${nl}${items.join(sep + nl)}${nlEnd}}`;
    }
    throw new TypeError(`pyJsonDumps: cannot serialise ${typeof x}`);
  };
  return rec(v, 0);
}

/** The runtime's value key: sorted-key JSON for containers, Python `str()` otherwise. */
export function pystr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return v;
  return pyJsonDumps(v, { sortKeys: true });
}

/** Answer normalisation of the official judge: lowercase, drop `* _ \` " '`, collapse spaces. */
export function normAns(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s = pystr(v).toLowerCase();
  return collapseWs(s.replace(/[*_`"']/gu, ""));
}

/** Python's `str.isspace` class (differs from JS `\s`: adds \x1c-\x1f and \x85, drops \ufeff). */
const PY_WS = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const PY_WS_RUN = new RegExp(`${PY_WS}+`, "gu");

/** Python's `" ".join(s.split())`: collapse whitespace runs and trim. */
export function collapseWs(s: string): string {
  return s.replace(PY_WS_RUN, " ").replace(/^ | $/gu, "");
}

/** Python `round(x)` to an int: round half to even on the double. */
export function pyRound(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Convert a `PyValue` to plain JSON for structured observations, events and records: floats become numbers and
 * ints beyond 2^53 the nearest number (JSON has no exact big ints; the feedback text keeps every digit). Key order
 * is kept, and a `__proto__` key stays an ordinary key.
 */
export function toPlainJson(v: PyValue): JsonValue {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (v !== null && typeof v === "object") {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, toPlainJson(x));
    return out;
  }
  return v;
}
