import type { JsonValue } from "../json.js";
import type { Rng } from "../rng.js";
import { Space, type SpaceJson } from "./space.js";

function isJson(x: unknown, depth: number): x is JsonValue {
  if (depth > 64) return false;
  if (x === null || typeof x === "string" || typeof x === "boolean") return true;
  if (typeof x === "number") return Number.isFinite(x);
  if (Array.isArray(x)) return x.every((v) => isJson(v, depth + 1));
  if (typeof x === "object") {
    if (Object.getPrototypeOf(x) !== Object.prototype && Object.getPrototypeOf(x) !== null) return false;
    return Object.values(x as object).every((v) => isJson(v, depth + 1));
  }
  return false;
}

/**
 * Any plain JSON value. Tool responses and schemas are open-ended JSON, which Gymnasium has no space for; this
 * space makes that explicit (and describable to other languages) instead of hiding it in a Text space.
 */
export class Json extends Space<JsonValue> {
  contains(x: unknown): x is JsonValue {
    return isJson(x, 0);
  }
  sample(rng: Rng = this.stream()): JsonValue {
    const pick = rng.int(4);
    if (pick === 0) return null;
    if (pick === 1) return rng.int(1000);
    if (pick === 2) return `value-${rng.int(1000)}`;
    return { key: rng.int(100) };
  }
  toJSON(): SpaceJson {
    return { type: "json" };
  }
}
