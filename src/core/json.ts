/** Plain JSON data: everything an episode holds or sends is made of these, so it can be serialised and replayed. */
export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Every ArrayBuffer view but DataView: the views `Array.from` turns into their numbers. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

export function isTypedArray(value: unknown): value is TypedArray {
  return ArrayBuffer.isView(value) && !(value instanceof DataView);
}

/**
 * Deep copy of plain JSON data (structuredClone is slower for the small objects we copy on hot paths). Arrays are
 * sliced (holes stay holes) and only their object members recursed into; objects copy their own enumerable keys
 * in order. Scalars are never recursed into: tool arguments, responses and per-episode ground truth are copied on
 * every step or reset.
 */
export function cloneJson<T extends JsonValue | undefined>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = value.slice();
    for (let i = 0; i < out.length; i++) {
      const v = out[i];
      if (v !== null && typeof v === "object") out[i] = cloneJson(v);
    }
    return out as T;
  }
  const out: JsonObject = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = (value as JsonObject)[key];
    out[key] = v !== null && typeof v === "object" ? cloneJson(v) : v;
  }
  return out as T;
}

/**
 * The library's one canonical JSON writer: key-order-independent text (keys sorted by UTF-16 code units), so equal
 * data gives equal bytes, which hashing, determinism tests and generated data sets rely on. `undefined` members are
 * left out (a top-level or array `undefined` is `null`), non-finite numbers are written as strings (`"NaN"`), typed
 * arrays as arrays of their numbers.
 */
export function stableStringify(value: unknown): string {
  return jsonText(value, false, false);
}

/**
 * The text of a recorded JSONL line (trajectories, pairs): keys sorted as in `stableStringify`, except that the value
 * of every `arguments` key (tool-call arguments in actions and events) keeps the agent's key order, all the way
 * down. A replay sends the arguments as recorded, and runtimes that echo them (PlanBench-XL's request echo, its
 * wrong-argument message) must see the order the agent used.
 */
export function recordStringify(value: unknown): string {
  return jsonText(value, false, true);
}

/**
 * `keepOrder`: keep this subtree's key order; `recordArguments`: keep it below every `arguments` key. Built in place
 * (no per-level arrays): ToolMaze's simulators hash every call's arguments through it.
 */
function jsonText(value: unknown, keepOrder: boolean, recordArguments: boolean): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return JSON.stringify(String(value));
    return JSON.stringify(value);
  }
  // A DataView has no elements to list (as Array.from saw it).
  if (ArrayBuffer.isView(value)) return jsonText(isTypedArray(value) ? Array.from<number | bigint>(value) : [], keepOrder, recordArguments);
  if (Array.isArray(value)) {
    let s = "[";
    // A hole writes nothing between its commas, as map + join did.
    for (let i = 0; i < value.length; i++) s += (i > 0 ? "," : "") + (i in value ? jsonText(value[i], keepOrder, recordArguments) : "");
    return `${s}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (!keepOrder) sortKeys(keys);
  let s = "{";
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    s += `${first ? "" : ","}${JSON.stringify(k)}:${jsonText(v, keepOrder || (recordArguments && k === "arguments"), recordArguments)}`;
    first = false;
  }
  return `${s}}`;
}

/** Default sort order (UTF-16 code units); most objects written are small, so sort those in place by insertion. */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > k; j--) keys[j + 1] = keys[j];
    keys[j + 1] = k;
  }
}

/** Structural equality for plain data (typed arrays compare element-wise). */
export function jsonEquals(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
}

/**
 * A typed JSON boundary checked at run time: a deep copy of `value` as JSON data. `undefined` members are dropped
 * from objects and become null in arrays, as JSON.stringify does; anything else that is not JSON data (functions,
 * symbols, bigints, typed arrays) is a TypeError naming its path.
 */
export function toJsonValue(value: unknown, path = "$"): JsonValue {
  // Most values are JSON data (episode metrics at every episode end): copy them without building a path per member,
  // and walk again with paths only to name the offending one.
  try {
    return copyJson(value);
  } catch (e) {
    if (e !== NOT_JSON) throw e;
  }
  return checkedJsonValue(value, path);
}

const NOT_JSON = new TypeError("not JSON data");

/** `toJsonValue` without paths: throws NOT_JSON at the first member that is not JSON data. */
function copyJson(value: unknown): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number") return value;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out.push(v === undefined ? null : copyJson(v));
    }
    return out;
  }
  if (typeof value === "object" && !ArrayBuffer.isView(value)) {
    const out: JsonObject = {};
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      const v: unknown = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = copyJson(v);
    }
    return out;
  }
  throw NOT_JSON;
}

function checkedJsonValue(value: unknown, path: string): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number") return value;
  if (Array.isArray(value)) return Array.from(value, (v: unknown, i) => (v === undefined ? null : checkedJsonValue(v, `${path}[${i}]`)));
  if (typeof value === "object" && !ArrayBuffer.isView(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = checkedJsonValue(v, `${path}.${k}`);
    return out;
  }
  throw new TypeError(`${path}: a ${ArrayBuffer.isView(value) ? "typed array" : typeof value} is not JSON data`);
}

/** `toJsonValue` for objects: a TypeError names `path` when `value` is not a JSON object. */
export function toJsonObject(value: unknown, path = "$"): JsonObject {
  const v = toJsonValue(value, path);
  if (!isJsonObject(v)) throw new TypeError(`${path}: expected a JSON object`);
  return v;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/**
 * `T` when it is plain JSON data all the way down, else a type with `never` where it is not. Interfaces are JSON
 * data too, though TypeScript will not assign them to `JsonValue` (they have no index signature): `asJson` checks
 * the structure instead.
 */
export type JsonData<T> = T extends JsonValue
  ? T
  : T extends (...args: never[]) => unknown
    ? never
    : T extends readonly unknown[]
      ? { [I in keyof T]: JsonData<T[I]> }
      : T extends object
        ? { [K in keyof T]: K extends string ? JsonData<T[K]> : never }
        : never;

/** A typed JSON boundary: `value` as a `JsonValue`, checked at compile time to be plain JSON data (see JsonData). */
export function asJson<T>(value: T & JsonData<T>): JsonValue {
  return value as unknown as JsonValue;
}

/** `asJson` for objects (a TypeError if `value` is an array, which the type `object` lets through). */
export function asJsonObject<T extends object>(value: T & JsonData<T>): JsonObject {
  const v = asJson<T>(value);
  if (!isJsonObject(v)) throw new TypeError("asJsonObject: expected a JSON object, got an array");
  return v;
}
