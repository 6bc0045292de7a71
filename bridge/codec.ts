/**
 * Wire codec: MessagePack via msgpackr, configured so that any standard MessagePack library (Python's `msgpack`,
 * Rust's `rmp`, ...) reads exactly what we mean. msgpackr's defaults favour JS-to-JS speed (records, shared
 * structures, bigint decoding, float64 for large integers), which other languages would misread, hence the
 * explicit options and the `toWire` normalisation pass.
 */
import { Packr, Unpackr } from "msgpackr";

type NumericView = ArrayBufferView & ArrayLike<number | bigint>;

/**
 * A typed array (any ArrayBuffer view but a DataView). The library's `isTypedArray` is not imported: the codec is
 * part of the TypeScript client, which does not load the library.
 */
export function isNumericView(value: unknown): value is NumericView {
  return ArrayBuffer.isView(value) && !(value instanceof DataView);
}

const packr = new Packr({
  // Records and shared structures are msgpackr-only extensions; plain maps are what every decoder understands.
  useRecords: false,
  // Typed arrays, Sets, Errors as msgpackr extension types would reach Python as opaque ExtType objects.
  moreTypes: false,
  structuredClone: false,
  bundleStrings: false,
  encodeUndefinedAsNil: true,
  // fixmap for small maps keeps step payloads small; also lifts the 65,535-key cap.
  variableMapSize: true,
});

// Integers in the safe range become numbers, larger ones bigints (which zod then rejects with a clear message).
// msgpackr supports "auto" at runtime (see its README) but its typings lag behind, hence the widened options type.
const unpackOptions: Record<string, unknown> = {
  useRecords: false,
  mapsAsObjects: true,
  moreTypes: false,
  int64AsType: "auto",
};
const unpackr = new Unpackr(unpackOptions as ConstructorParameters<typeof Unpackr>[0]);

const INT32_MIN = -0x80000000;
const UINT32_MAX = 0xffffffff;

/** An integer-valued number msgpackr would write as float64 (outside the 32-bit range) but int64 can carry. */
function needsInt64(v: number): boolean {
  return (v > UINT32_MAX || v < INT32_MIN) && Number.isSafeInteger(v);
}

/** A number's wire form: an int64 (BigInt) where msgpackr would otherwise write a float64. */
function numberToWire(v: number): number | bigint {
  return needsInt64(v) ? BigInt(v) : v;
}

/**
 * Makes a value safe for cross-language MessagePack. Returns the same reference when nothing needs changing, so
 * the common case allocates nothing. Fixes: integer-valued numbers outside the 32-bit range (msgpackr would write
 * them as float64, and Python would decode 2**40 as a float) become int64; typed arrays become arrays; Maps become
 * maps with string keys; Sets become arrays; Dates become ISO strings; functions and symbols become nil.
 */
export function toWire(value: unknown): unknown {
  if (typeof value === "object") {
    if (value === null) return null;
    // Arrays and plain maps are nearly every node of a response: they are tested first, before the rarer kinds.
    if (Array.isArray(value)) return arrayToWire(value);
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype) return mapToWire(value as Record<string, unknown>, false);
    return otherToWire(value, proto);
  }
  switch (typeof value) {
    case "number":
      return numberToWire(value);
    case "string":
    case "boolean":
    case "bigint":
      return value;
    default:
      // undefined, functions and symbols
      return null;
  }
}

/**
 * One element's wire form. Strings, booleans and 32-bit numbers are answered without the call to `toWire`: they
 * are most of a response's leaves, and every map and array of every response passes here.
 */
function leafOrWire(v: unknown): unknown {
  const t = typeof v;
  if (t === "string" || t === "boolean") return v;
  if (t === "number") return numberToWire(v as number);
  return toWire(v);
}

function arrayToWire(value: unknown[]): unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    const w = leafOrWire(v);
    if (w !== v && out === null) out = value.slice(0, i);
    if (out !== null) out.push(w);
  }
  return out ?? value;
}

/** A plain map (or, with `copy`, a null-prototype one, which is always copied into a plain map). */
function mapToWire(src: Record<string, unknown>, copy: boolean): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  // Object.keys, not for-in + hasOwn: measured on recorded ToolMisuseBench-v0 responses (session 27), the key array
  // V8 copies from its enum cache costs less than for-in's per-key checks (toWire 0.90 -> 0.83 µs per env-step).
  const keys = Object.keys(src);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = src[k];
    const w = leafOrWire(v);
    if (w !== v && out === null) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]] = src[keys[j]];
    }
    if (out !== null) out[k] = w;
  }
  return out ?? (copy ? { ...src } : src);
}

/** Typed arrays, Maps, Sets, Dates, class instances and null-prototype maps. */
function otherToWire(value: object, proto: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    if (value instanceof Uint8Array || !isNumericView(value)) return value instanceof Uint8Array ? value : null;
    const arr = Array.from<number | bigint>(value);
    return toWire(arr);
  }
  if (value instanceof Map) {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of value) obj[String(k)] = toWire(v);
    return obj;
  }
  if (value instanceof Set) return toWire(Array.from(value));
  if (value instanceof Date) return value.toISOString();
  if (proto !== null) {
    // Class instances (e.g. a space object) travel as their JSON form when they have one.
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === "function") return toWire(withJson.toJSON());
  }
  return mapToWire(value as Record<string, unknown>, proto === null);
}

/** Encodes one response or request map. */
export function encode(value: unknown): Buffer {
  return packr.pack(toWire(value));
}

/** Decodes one frame; throws on malformed or truncated input. */
export function decode(buf: Uint8Array): unknown {
  return unpackr.unpack(buf);
}

/**
 * Reads the `id` of a request without decoding the whole frame, for frames we refuse to decode (too large). Works
 * when `id` is the first key of the top-level map, which is what every client we ship produces; otherwise null.
 */
export function peekId(buf: Uint8Array): number | bigint | null {
  if (buf.length < 4) return null;
  let pos = 0;
  const b0 = buf[pos++];
  if (b0 >= 0x80 && b0 <= 0x8f) {
    if (b0 === 0x80) return null;
  } else if (b0 === 0xde) pos += 2;
  else if (b0 === 0xdf) pos += 4;
  else return null;
  // key must be the string "id" (fixstr of length 2)
  if (buf[pos] !== 0xa2 || buf[pos + 1] !== 0x69 || buf[pos + 2] !== 0x64) return null;
  pos += 3;
  if (pos >= buf.length) return null;
  const t = buf[pos++];
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const need = (n: number): boolean => pos + n <= buf.length;
  if (t <= 0x7f) return t;
  if (t >= 0xe0) return t - 0x100;
  switch (t) {
    case 0xcc:
      return need(1) ? view.getUint8(pos) : null;
    case 0xcd:
      return need(2) ? view.getUint16(pos) : null;
    case 0xce:
      return need(4) ? view.getUint32(pos) : null;
    case 0xcf:
      return need(8) ? normaliseBig(view.getBigUint64(pos)) : null;
    case 0xd0:
      return need(1) ? view.getInt8(pos) : null;
    case 0xd1:
      return need(2) ? view.getInt16(pos) : null;
    case 0xd2:
      return need(4) ? view.getInt32(pos) : null;
    case 0xd3:
      return need(8) ? normaliseBig(view.getBigInt64(pos)) : null;
    default:
      return null;
  }
}

function normaliseBig(v: bigint): number | bigint {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
}
