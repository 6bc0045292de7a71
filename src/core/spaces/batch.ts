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
    const rep = (a: Float64Array) => Array.from({ length: n }, () => Array.from(a)).flat();
    return new Box(rep(space.low), rep(space.high), [n, ...space.shape], space.dtype);
  }
  return new Tuple(Array.from({ length: n }, () => space));
}
