import type { JsonObject } from "../json.js";
import { stableStringify } from "../json.js";
import { Rng } from "../rng.js";
import { checkSeed } from "../seed.js";

/** A plain description of a space, sendable over the bridge: always has a `type` tag. */
export type SpaceJson = JsonObject & { type: string };

/**
 * A set of valid values, as in Gymnasium's `spaces.Space`: membership (`contains`), seeded sampling, a plain
 * description for other languages (`toJSON`), and structural equality.
 *
 * Sampling draws from the stream it is given (`sample(rng)`) or, without one, from the space's own stream, which
 * `seed(n)` restarts (Gymnasium's `space.seed(n); space.sample()`). An unseeded space draws as if seeded with 0,
 * as an unseeded env resets as if seeded with 0: nothing in the library is random without a seed to replay it.
 */
export abstract class Space<T> {
  private ownStream: Rng | null = null;

  abstract contains(x: unknown): x is T;
  /** A value of the space, drawn from `rng` or, when omitted, from the space's own stream (see `seed`). */
  abstract sample(rng?: Rng): T;
  abstract toJSON(): SpaceJson;

  /**
   * Restarts the space's own stream (the one `sample()` without an argument draws from) at `seed`, a non-negative
   * safe integer; a bad seed throws an OptionsError on `seed`. Returns the seed, as Gymnasium returns its seeds.
   * Composite spaces need no per-member seeding: their samples derive every member's stream from this one.
   */
  seed(seed = 0): number {
    this.ownStream = new Rng(checkSeed(seed, "seed", `${this.constructor.name}.seed()`));
    return seed;
  }

  /** The space's own stream, created on first use (seed 0) so spaces that are never sampled cost nothing. */
  protected stream(): Rng {
    return (this.ownStream ??= new Rng(0));
  }

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
