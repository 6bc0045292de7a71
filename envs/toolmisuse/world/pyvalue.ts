/**
 * Python value semantics the official harness relies on implicitly: `==` (where True == 1),
 * `isinstance` type checks (where a bool is an int), type names in error details, and
 * dotted-path lookup. Reproducing them keeps scores identical on official data.
 */
import type { CompatMode, Json } from "./types.js";
import { isObj } from "./types.js";

/** Python `type(x).__name__` for a JSON value (JS cannot tell 1.0 from 1: both are "int"). */
export function pyTypeName(x: unknown): string {
  if (x === null || x === undefined) return "NoneType";
  if (typeof x === "boolean") return "bool";
  if (typeof x === "number") return Number.isInteger(x) ? "int" : "float";
  if (typeof x === "string") return "str";
  if (Array.isArray(x)) return "list";
  return "dict";
}

/**
 * Equality of JSON values. In "official" mode booleans compare as 0/1 with numbers, as
 * Python's `==` does; in "fixed" mode equality is strict JSON equality.
 */
export function valueEquals(a: unknown, b: unknown, compat: CompatMode): boolean {
  if (compat === "official") {
    const an = typeof a === "boolean" ? Number(a) : a;
    const bn = typeof b === "boolean" ? Number(b) : b;
    if (typeof an === "number" && typeof bn === "number") return an === bn;
  }
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valueEquals(a[i], b[i], compat)) return false;
    return true;
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!Object.hasOwn(b, k)) return false;
      if (!valueEquals(a[k], b[k], compat)) return false;
    }
    return true;
  }
  return false;
}

/** Python `int(segment)` acceptance for list indices (sign, surrounding blanks, underscores). */
function parseListIndex(seg: string): number | null {
  if (!/^\s*[+-]?\d+(_\d+)*\s*$/.test(seg)) return null;
  return Number.parseInt(seg.trim().replace(/_/g, ""), 10);
}

/**
 * Resolve a dot-separated path. Returns `{ found: false }` where Python would raise
 * (missing key, bad index, descending into a scalar). Negative list indices count from
 * the end, as in Python.
 */
export function pathGet(root: unknown, path: string): { found: true; value: Json } | { found: false } {
  let cur: unknown = root;
  for (const seg of path.split(".")) {
    if (isObj(cur)) {
      if (!Object.hasOwn(cur, seg)) return { found: false };
      cur = cur[seg];
    } else if (Array.isArray(cur)) {
      const idx = parseListIndex(seg);
      if (idx === null) return { found: false };
      const i = idx < 0 ? cur.length + idx : idx;
      if (i < 0 || i >= cur.length) return { found: false };
      cur = cur[i];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: (cur ?? null) as Json };
}

// ---------------------------------------------------------------- Python conversions
// The official harness (and its baselines' `cast_value`) converts values with Python's `str`,
// `int`, `float` and `bool`. These reproduce them for JSON values; where Python raises, the
// strict variants throw `PyConversionError` so callers can fall back exactly where upstream does.

/** Python raised (TypeError / ValueError) on a conversion. */
export class PyConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PyConversionError";
  }
}

/** Python truthiness of a JSON value (`bool(x)`). */
export function pyTruthy(x: Json | undefined): boolean {
  if (x === undefined || x === null || x === false || x === 0 || x === "") return false;
  if (Array.isArray(x)) return x.length > 0;
  if (isObj(x)) return Object.keys(x).length > 0;
  return true;
}

/** Python `repr(float)`: shortest round-trip digits, fixed notation for exponents in [-4, 16). */
function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(x.toExponential());
  if (!m) return String(x);
  const [, sign, lead, frac = "", expText] = m;
  const digits = lead! + frac;
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const fracPart = digits.slice(exp + 1);
    return `${sign}${intPart}.${fracPart === "" ? "0" : fracPart}`;
  }
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = Math.abs(exp);
  return `${sign}${mant}e${exp < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
}

/** Python `repr(str)`: single quotes unless the text has a single quote and no double quote. */
function pyStrRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === q) out += `\\${q}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + q;
}

/**
 * Python `repr(x)` for a JSON value. JS cannot tell `1.0` from `1`, so integral numbers print
 * as ints; non-ASCII printable characters are kept as Python 3 does.
 */
export function pyRepr(x: Json | undefined): string {
  if (x === undefined || x === null) return "None";
  if (x === true) return "True";
  if (x === false) return "False";
  if (typeof x === "string") return pyStrRepr(x);
  if (typeof x === "number")
    return Number.isInteger(x) && Math.abs(x) < 1e16 ? String(x) : Number.isInteger(x) ? BigInt(x).toString() : pyFloatRepr(x);
  if (Array.isArray(x)) return `[${x.map((v) => pyRepr(v)).join(", ")}]`;
  return `{${Object.entries(x)
    .map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`)
    .join(", ")}}`;
}

/** Python `str(x)`: the text itself for strings, `repr` for everything else. */
export function pyStr(x: Json | undefined): string {
  return typeof x === "string" ? x : pyRepr(x);
}

/** Python `int(x)`; throws `PyConversionError` where Python raises (e.g. `int("1.5")`, `int(None)`). */
export function pyIntStrict(x: Json | undefined): number {
  if (typeof x === "boolean") return Number(x);
  if (typeof x === "number") {
    if (!Number.isFinite(x)) throw new PyConversionError(`cannot convert ${String(x)} to int`);
    return Math.trunc(x) + 0;
  }
  if (typeof x === "string") {
    // Base-10 literal: surrounding whitespace, one sign, digits with single underscores between them.
    const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(x);
    if (!m) throw new PyConversionError(`invalid literal for int() with base 10: ${pyStrRepr(x)}`);
    return Number.parseInt(m[1]! + m[2]!.replace(/_/g, ""), 10) + 0;
  }
  throw new PyConversionError(`int() argument must be a string or a number, not '${pyTypeName(x)}'`);
}

/**
 * Python `float(x)`; throws `PyConversionError` where Python raises. Python would return inf/nan
 * for "inf"/"nan" texts; a JSON value cannot hold them, so they throw here too (documented).
 */
export function pyFloatStrict(x: Json | undefined): number {
  if (typeof x === "boolean") return Number(x);
  if (typeof x === "number") return x;
  if (typeof x === "string") {
    const m = /^\s*([+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?)\s*$/.exec(x);
    if (!m) throw new PyConversionError(`could not convert string to float: ${pyStrRepr(x)}`);
    return Number(m[1]!.replace(/_/g, ""));
  }
  throw new PyConversionError(`float() argument must be a string or a real number, not '${pyTypeName(x)}'`);
}
