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
      if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
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
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return { found: false };
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
