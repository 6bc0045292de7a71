/**
 * Packed observations (`obs_encoding: "packed"`): when a session's observation space is a Dict of fixed-shape
 * numeric spaces (Box, MultiBinary, Discrete), a batch of observations travels as one little-endian typed array
 * per key (msgpack binary), env 0 first. A numpy client turns each into an array with one `frombuffer`, instead of
 * decoding `num_envs` maps of lists; the server copies typed arrays with `set` instead of walking values.
 * The layout is derived from the space's JSON form only, so the bridge stays independent of the library's classes.
 */
import { BridgeError } from "./protocol.js";

export type PackedDtype = "float32" | "float64" | "int32" | "uint8";

/** One key of a packed observation: its dtype on the wire and its shape per env (`[]` for a scalar). */
export interface PackedField {
  readonly key: string;
  /** The sub-space's kind: a client gives each its usual dtype (Gymnasium: MultiBinary int8, Discrete int64). */
  readonly space: "box" | "multi_binary" | "discrete";
  readonly dtype: PackedDtype;
  readonly shape: readonly number[];
  /** Elements per env (product of `shape`). */
  readonly size: number;
}

type Typed = Float32Array | Float64Array | Int32Array | Uint8Array;
type TypedCtor = { new (n: number): Typed; new (buffer: ArrayBuffer): Typed; readonly BYTES_PER_ELEMENT: number };
const CTOR: Record<PackedDtype, TypedCtor> = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  uint8: Uint8Array,
};
const BOX_DTYPES: Record<string, PackedDtype> = { float32: "float32", float64: "float64", int32: "int32" };

function isRecord(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

function fieldOf(key: string, space: unknown): PackedField | string {
  if (!isRecord(space)) return `key '${key}' has no space description`;
  switch (space.type) {
    case "box": {
      const dtype = BOX_DTYPES[String(space.dtype)];
      const shape = space.shape;
      if (!dtype) return `key '${key}' is a Box of dtype ${String(space.dtype)}`;
      if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) return `key '${key}' is a Box without a fixed shape`;
      const dims = shape as number[];
      return { key, space: "box", dtype, shape: dims, size: dims.reduce((a, b) => a * b, 1) };
    }
    case "multi_binary":
      if (!Number.isInteger(space.n)) return `key '${key}' is a MultiBinary without a fixed length`;
      return { key, space: "multi_binary", dtype: "uint8", shape: [space.n as number], size: space.n as number };
    case "discrete":
      return { key, space: "discrete", dtype: "int32", shape: [], size: 1 };
    default:
      return `key '${key}' is a ${String(space.type)} space (only box, multi_binary and discrete pack)`;
  }
}

/**
 * The packed layout of an observation space (its JSON form), or the reason it cannot be packed: only a Dict whose
 * every sub-space is a Box (float32/float64/int32), a MultiBinary or a Discrete has a fixed numeric shape.
 */
export function packedLayout(spaceJson: unknown): PackedField[] | string {
  if (!isRecord(spaceJson) || spaceJson.type !== "dict" || !isRecord(spaceJson.spaces)) {
    const what = isRecord(spaceJson) ? `a ${String(spaceJson.type)} space` : "not described";
    return `the observation space is ${what}, not a Dict of numeric spaces`;
  }
  const fields: PackedField[] = [];
  for (const [key, space] of Object.entries(spaceJson.spaces)) {
    const f = fieldOf(key, space);
    if (typeof f === "string") return f;
    fields.push(f);
  }
  return fields.length > 0 ? fields : "the observation space is an empty Dict";
}

/** Typed arrays are written in the platform's byte order; the wire is little-endian (every numpy reads `<f4`). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function broken(field: PackedField, env: number, why: string): never {
  // The env broke its own observation space: a library bug, not the client's fault.
  throw new BridgeError("ENV_ERROR", `observation of env ${env}: key '${field.key}' ${why}`, {
    field: `observations.${env}.${field.key}`, reason: why,
  });
}

function bytesOf(arr: Typed, dtype: PackedDtype): Uint8Array {
  const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  if (LITTLE_ENDIAN || dtype === "uint8") return bytes;
  const width = arr.BYTES_PER_ELEMENT;
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += width) for (let b = 0; b < width; b++) out[i + b] = bytes[i + width - 1 - b];
  return out;
}

/**
 * Packs one batch: per key, the `observations.length` values of that key back to back, as little-endian bytes.
 * Values are copied exactly (a float32 Box's Float32Array bit for bit); a value of the wrong length or kind is an
 * ENV_ERROR naming the env and key.
 */
export function packBatch(layout: readonly PackedField[], observations: readonly unknown[]): Record<string, Uint8Array> {
  const n = observations.length;
  const out: Record<string, Uint8Array> = {};
  for (const field of layout) {
    const arr = new CTOR[field.dtype](n * field.size);
    const { key, size } = field;
    for (let i = 0; i < n; i++) {
      const obs = observations[i];
      const v = isRecord(obs) ? obs[key] : undefined;
      if (size === 1 && field.shape.length === 0) {
        if (typeof v !== "number") broken(field, i, `should be a number, got ${v === null ? "null" : typeof v}`);
        arr[i] = v;
      } else if (ArrayBuffer.isView(v) || Array.isArray(v)) {
        const values = v as ArrayLike<number>;
        if (values.length !== size) broken(field, i, `should hold ${size} values, got ${values.length}`);
        arr.set(values as ArrayLike<number>, i * size);
      } else {
        broken(field, i, `should be an array of ${size} values, got ${v === null ? "null" : typeof v}`);
      }
    }
    out[key] = bytesOf(arr, field.dtype);
  }
  return out;
}

/** A column of per-env scalars (rewards as float64, flags as uint8) as little-endian bytes. */
export function packScalars(Ctor: typeof Float64Array | typeof Uint8Array, values: ArrayLike<number | boolean>): Uint8Array {
  const arr = new Ctor(values.length);
  for (let i = 0; i < values.length; i++) arr[i] = Number(values[i]);
  return bytesOf(arr, Ctor === Uint8Array ? "uint8" : "float64");
}

/** The layout as the `make` response describes it (`obs_layout`). */
export function layoutJson(layout: readonly PackedField[]): Omit<PackedField, "size">[] {
  return layout.map((f) => ({ key: f.key, space: f.space, dtype: f.dtype, shape: [...f.shape] }));
}

/** The inverse, for JS clients and tests: per env, a map of typed arrays (a Discrete key: a number). */
export function unpackBatch(layout: readonly PackedField[], packed: Record<string, Uint8Array>, n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = Array.from({ length: n }, () => ({}));
  for (const field of layout) {
    const raw = packed[field.key];
    if (!(raw instanceof Uint8Array)) throw new Error(`packed observation: key '${field.key}' is missing`);
    const copy = new Uint8Array(raw); // aligned, owned bytes (a Buffer's slice would share memory)
    const Ctor = CTOR[field.dtype];
    const width = Ctor.BYTES_PER_ELEMENT;
    if (!LITTLE_ENDIAN && width > 1) for (let i = 0; i < copy.length; i += width) copy.subarray(i, i + width).reverse();
    const all = new Ctor(copy.buffer);
    if (all.length !== n * field.size) {
      throw new Error(`packed observation: key '${field.key}' holds ${all.length} values, expected ${n * field.size}`);
    }
    for (let i = 0; i < n; i++) {
      out[i][field.key] = field.shape.length === 0 ? all[i] : all.slice(i * field.size, (i + 1) * field.size);
    }
  }
  return out;
}
