import { Box } from "./box.js";
import { Tuple } from "./composite.js";
import { Discrete } from "./discrete.js";
import { MultiDiscrete } from "./multiDiscrete.js";
import type { Space } from "./space.js";

/**
 * The space of a batch of n values (Gymnasium's `batch_space`): Discrete becomes MultiDiscrete, Box gains a
 * leading dimension, anything else becomes a Tuple of n copies.
 */
export function batchSpace(space: Space<unknown>, n: number): Space<unknown> {
  if (space instanceof Discrete && space.start === 0) return new MultiDiscrete(Array(n).fill(space.n));
  if (space instanceof Box) {
    const rep = (a: Float32Array | Float64Array) => Array.from({ length: n }, () => Array.from(a)).flat();
    return new Box(rep(space.low), rep(space.high), [n, ...space.shape], space.dtype);
  }
  return new Tuple(Array.from({ length: n }, () => space));
}

/**
 * The batched space of n envs' own spaces. Fixed numeric spaces that are all equal batch as Gymnasium does
 * (MultiDiscrete, Box with a leading dimension); anything else becomes a Tuple of the envs' own spaces, so
 * `sample()` draws slot i from env i's space as it is now (a tool env's visible tools differ between envs).
 */
export function batchSpaces(spaces: readonly Space<unknown>[]): Space<unknown> {
  const first = spaces[0];
  const numeric = (first instanceof Discrete && first.start === 0) || first instanceof Box;
  if (numeric && spaces.every((s) => s === first || s.equals(first))) return batchSpace(first, spaces.length);
  return new Tuple(spaces);
}
