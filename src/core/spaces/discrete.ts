import type { Rng } from "../rng.js";
import { Space, type SpaceJson } from "./space.js";

/** Integers {start, ..., start + n - 1}. */
export class Discrete extends Space<number> {
  constructor(
    readonly n: number,
    readonly start = 0,
  ) {
    super();
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`Discrete: n must be a positive integer, got ${n}`);
  }
  contains(x: unknown): x is number {
    return typeof x === "number" && Number.isInteger(x) && x >= this.start && x < this.start + this.n;
  }
  /** With a mask (1 = allowed), samples only allowed values, as Gymnasium's masked sampling. */
  sample(rng: Rng = this.stream(), mask?: ArrayLike<number>): number {
    if (!mask) return this.start + rng.int(this.n);
    const allowed: number[] = [];
    for (let i = 0; i < this.n; i++) if (mask[i]) allowed.push(i);
    if (allowed.length === 0) throw new RangeError("Discrete.sample: mask allows no value");
    return this.start + rng.pick(allowed);
  }
  toJSON(): SpaceJson {
    return { type: "discrete", n: this.n, start: this.start };
  }
}
