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

/** The value type a space holds. */
export type SpaceValue<S> = S extends Space<infer T> ? T : never;
