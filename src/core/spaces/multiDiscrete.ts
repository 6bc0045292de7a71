import type { Rng } from "../rng.js";
import { Space, type SpaceJson } from "./space.js";

/** A vector of independent discrete values, value i in [0, nvec[i]). */
export class MultiDiscrete extends Space<Int32Array> {
  readonly nvec: readonly number[];
  constructor(nvec: readonly number[]) {
    super();
    if (nvec.some((n) => !Number.isInteger(n) || n <= 0)) throw new RangeError("MultiDiscrete: nvec entries must be positive integers");
    this.nvec = [...nvec];
  }
  contains(x: unknown): x is Int32Array {
    const arr = x instanceof Int32Array ? x : Array.isArray(x) ? x : null;
    if (!arr || arr.length !== this.nvec.length) return false;
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v >= this.nvec[i]) return false;
    }
    return true;
  }
  sample(rng: Rng = this.stream()): Int32Array {
    return Int32Array.from(this.nvec, (n) => rng.int(n));
  }
  toJSON(): SpaceJson {
    return { type: "multi_discrete", nvec: [...this.nvec] };
  }
}
