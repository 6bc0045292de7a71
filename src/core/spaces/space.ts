import type { JsonObject } from "../json.js";
import { stableStringify } from "../json.js";
import type { Rng } from "../rng.js";

/** A plain description of a space, sendable over the bridge: always has a `type` tag. */
export type SpaceJson = JsonObject & { type: string };

/**
 * A set of valid values, as in Gymnasium's `spaces.Space`: membership (`contains`), seeded sampling, a plain
 * description for other languages (`toJSON`), and structural equality.
 */
export abstract class Space<T> {
  abstract contains(x: unknown): x is T;
  abstract sample(rng: Rng): T;
  abstract toJSON(): SpaceJson;

  /** Two spaces are equal when their descriptions are. */
  equals(other: Space<unknown>): boolean {
    return stableStringify(this.toJSON()) === stableStringify(other.toJSON());
  }

  toString(): string {
    return `${this.constructor.name}(${stableStringify(this.toJSON())})`;
  }
}

const hex8 = (n: number) => n.toString(16).padStart(8, "0");

/**
 * The stream one `sample()` call of a composite space draws from: named by 64 bits drawn from the caller's stream,
 * so repeated calls give fresh values and advance the caller's stream (still deterministic under a seed). Members
 * then sample from `scope.derive(key)`, so member i's values never depend on how many draws member j made — which
 * lets a vector env sample slot i wherever slot i lives (another thread) and still match the in-thread result.
 */
export function sampleScope(rng: Rng): Rng {
  return rng.derive(`sample:${hex8(rng.uint32())}${hex8(rng.uint32())}`);
}

/** The value type a space holds. */
export type SpaceValue<S> = S extends Space<infer T> ? T : never;
