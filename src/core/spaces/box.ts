import type { Rng } from "../rng.js";
import { Space, type SpaceJson } from "./space.js";

export type BoxDtype = "float32" | "float64" | "int32";
type BoxArray = Float32Array | Float64Array | Int32Array;

const ctor = { float32: Float32Array, float64: Float64Array, int32: Int32Array } as const;

/**
 * A (possibly unbounded) box in R^n, stored flat in a typed array with a `shape`. Bounds are kept in the box's
 * dtype (float32 bounds are rounded to float32, as Gymnasium does), so `Box(-0.3, 0.3)` contains
 * `Float32Array([0.3])`; int32 boxes keep float64 bounds so they can stay unbounded (±Infinity).
 */
export class Box extends Space<BoxArray> {
  readonly low: Float32Array | Float64Array;
  readonly high: Float32Array | Float64Array;
  readonly shape: readonly number[];
  readonly size: number;

  constructor(
    low: number | readonly number[],
    high: number | readonly number[],
    shape: readonly number[],
    readonly dtype: BoxDtype = "float32",
  ) {
    super();
    this.shape = [...shape];
    this.size = shape.reduce((a, b) => a * b, 1);
    const Bounds = dtype === "float32" ? Float32Array : Float64Array;
    const fill = (v: number | readonly number[], name: string) => {
      if (typeof v === "number") return new Bounds(this.size).fill(v);
      if (v.length !== this.size) throw new RangeError(`Box: ${name} has ${v.length} entries, shape needs ${this.size}`);
      return Bounds.from(v);
    };
    this.low = fill(low, "low");
    this.high = fill(high, "high");
    for (let i = 0; i < this.size; i++) {
      if (this.low[i] > this.high[i]) throw new RangeError(`Box: low[${i}] > high[${i}]`);
    }
  }

  contains(x: unknown): x is BoxArray {
    if (!(x instanceof ctor[this.dtype]) || x.length !== this.size) return false;
    for (let i = 0; i < this.size; i++) {
      const v = x[i];
      if (Number.isNaN(v) || v < this.low[i] || v > this.high[i]) return false;
    }
    return true;
  }

  /** Uniform on bounded dims; exponential tails on half-bounded ones; normal on unbounded (as Gymnasium). */
  sample(rng: Rng = this.stream()): BoxArray {
    const out = new ctor[this.dtype](this.size);
    for (let i = 0; i < this.size; i++) {
      const lo = this.low[i];
      const hi = this.high[i];
      let v: number;
      if (Number.isFinite(lo) && Number.isFinite(hi))
        v = this.dtype === "int32" ? rng.range(Math.ceil(lo), Math.floor(hi)) : rng.uniform(lo, hi);
      else if (Number.isFinite(lo)) v = lo - Math.log(1 - rng.random());
      else if (Number.isFinite(hi)) v = hi + Math.log(1 - rng.random());
      else v = Math.sqrt(-2 * Math.log(1 - rng.random())) * Math.cos(2 * Math.PI * rng.random());
      out[i] = this.dtype === "int32" ? Math.round(v) : v;
      if (out[i] > hi) out[i] = hi;
      if (out[i] < lo) out[i] = lo;
    }
    return out;
  }

  toJSON(): SpaceJson {
    const enc = (a: Float32Array | Float64Array) => Array.from(a, (v) => (Number.isFinite(v) ? v : v > 0 ? "inf" : "-inf"));
    return { type: "box", shape: [...this.shape], dtype: this.dtype, low: enc(this.low), high: enc(this.high) };
  }
}
