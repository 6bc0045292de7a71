import type { Rng } from "../rng.js";
import { Space, type SpaceJson } from "./space.js";

/** A fixed-length vector of 0/1 flags. */
export class MultiBinary extends Space<Uint8Array> {
  constructor(readonly n: number) {
    super();
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`MultiBinary: n must be a positive integer, got ${n}`);
  }
  contains(x: unknown): x is Uint8Array {
    const arr = x instanceof Uint8Array ? x : Array.isArray(x) ? x : null;
    if (!arr || arr.length !== this.n) return false;
    for (let i = 0; i < arr.length; i++) if (arr[i] !== 0 && arr[i] !== 1) return false;
    return true;
  }
  sample(rng: Rng = this.stream()): Uint8Array {
    return Uint8Array.from({ length: this.n }, () => rng.int(2));
  }
  toJSON(): SpaceJson {
    return { type: "multi_binary", n: this.n };
  }
}
