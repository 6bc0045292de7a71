/**
 * Deterministic hashing for simulated tool outputs. Tool responses must be a pure function of
 * (capability, arguments, episode state) so that the same call yields the same bytes on every machine;
 * a string hash (not a random stream) gives exactly that without threading an Rng through simulators.
 */
export function fnv1a(text: string): number {
  return fnvDigest(fnvUpdate(FNV_START, text));
}

/**
 * The hash in parts, for hot paths that would otherwise build a string only to hash it: `fnvDigest(fnvUpdate(
 * fnvUpdate(FNV_START, a), b))` equals `fnv1a(a + b)`.
 */
export const FNV_START = 0x811c9dc5;
export function fnvUpdate(state: number, text: string): number {
  let h = state;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** Feeds the decimal text of `n` (what `${n}` gives), without making the string when n is a uint32. */
function fnvUpdateNumber(state: number, n: number): number {
  if (!(n >= 0 && n <= 0xffffffff && Math.floor(n) === n)) return fnvUpdate(state, `${n}`);
  let p = 1;
  while (p * 10 <= n) p *= 10;
  let h = state;
  for (; p >= 1; p /= 10) {
    h ^= 48 + (Math.floor(n / p) % 10);
    h = Math.imul(h, 0x01000193);
  }
  return h;
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
  const x = fnvUpdate(fnvUpdateNumber(FNV_START, h), ":");
  return fnvDigest(typeof part === "number" ? fnvUpdateNumber(x, part) : fnvUpdate(x, part));
}

/** Canonical JSON (sorted keys) so argument order never changes a hash. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  // Every simulated call hashes its arguments: build the text in place (same bytes as join-based assembly).
  if (Array.isArray(value)) {
    let s = "[";
    // A hole contributes nothing, as in Array.prototype.map + join.
    for (let i = 0; i < value.length; i++) s += (i > 0 ? "," : "") + (i in value ? canonicalJson(value[i]) : "");
    return `${s}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  // Default sort order (UTF-16 code units); argument objects are small, so sort them in place by insertion.
  if (keys.length > 16) keys.sort();
  else
    for (let i = 1; i < keys.length; i++) {
      const k = keys[i]!;
      let j = i - 1;
      for (; j >= 0 && keys[j]! > k; j--) keys[j + 1] = keys[j]!;
      keys[j + 1] = k;
    }
  let s = "{";
  for (let i = 0; i < keys.length; i++) s += `${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:${canonicalJson(obj[keys[i]!])}`;
  return `${s}}`;
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
