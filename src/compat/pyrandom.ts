/**
 * CPython's `random.Random` (Mersenne Twister MT19937), bit-exact.
 *
 * Why: official harnesses (PlanBench-XL, ToolMisuseBench) draw with Python's `random`; e.g. PlanBench-XL picks
 * blockers, noisy siblings and the final tool order with Python's `random`; official-compatibility mode must
 * reproduce those draws exactly, so seeding (int via `init_by_array`, str/bytes via SHA-512 as in version-2 seeding) and the
 * `_randbelow` rejection loop follow CPython 3.11.
 */
import { createHash } from "node:crypto";

const N = 624;
const M = 397;

/** Serialisable generator state (the MT vector and its index). */
export interface PyRandomState {
  mt: number[];
  index: number;
}

export type PySeed = number | bigint | string | Uint8Array;

export class PyRandom {
  private mt = new Uint32Array(N);
  private index = N + 1;

  constructor(seed: PySeed = 0) {
    this.seed(seed);
  }

  /** Re-seed exactly like `random.seed(a)` (version 2) for int, str and bytes seeds. */
  seed(a: PySeed): void {
    let n: bigint;
    if (typeof a === "number") {
      if (!Number.isInteger(a)) throw new TypeError(`PyRandom.seed: float seeds are not supported (got ${a})`);
      n = BigInt(a);
    } else if (typeof a === "bigint") {
      n = a;
    } else {
      const bytes = typeof a === "string" ? Buffer.from(a, "utf8") : Buffer.from(a);
      const digest = createHash("sha512").update(bytes).digest();
      n = BigInt(`0x${Buffer.concat([bytes, digest]).toString("hex")}`);
    }
    if (n < 0n) n = -n;
    const key: number[] = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: number[]): void {
    this.initGenrand(19650218);
    const mt = this.mt;
    let i = 1;
    let j = 0;
    const len = key.length;
    for (let k = Math.max(N, len); k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= len) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.index = N;
  }

  private twist(): void {
    const mt = this.mt;
    for (let kk = 0; kk < N; kk++) {
      const y = (mt[kk]! & 0x80000000) | (mt[(kk + 1) % N]! & 0x7fffffff);
      mt[kk] = (mt[(kk + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)) >>> 0;
    }
    this.index = 0;
  }

  /** One tempered 32-bit output (`genrand_uint32`). */
  genrandUint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++]!;
    y ^= y >>> 11;
    y = (y ^ ((y << 7) & 0x9d2c5680)) >>> 0;
    y = (y ^ ((y << 15) & 0xefc60000)) >>> 0;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random()`: a 53-bit float in [0, 1). */
  random(): number {
    const a = this.genrandUint32() >>> 5;
    const b = this.genrandUint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** `getrandbits(k)` for k ≤ 32 as a number (words beyond 32 bits: see `getrandbitsBig`). */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`getrandbits: k must be a non-negative integer, got ${k}`);
    if (k === 0) return 0;
    if (k <= 32) return this.genrandUint32() >>> (32 - k);
    return Number(this.getrandbitsBig(k));
  }

  /** `getrandbits(k)` for any k: 32-bit words least-significant first, the last one truncated. */
  getrandbitsBig(k: number): bigint {
    if (k <= 32) return BigInt(this.getrandbits(k));
    let out = 0n;
    let shift = 0n;
    let left = k;
    while (left > 0) {
      let r = this.genrandUint32();
      if (left < 32) r >>>= 32 - left;
      out |= BigInt(r) << shift;
      shift += 32n;
      left -= 32;
    }
    return out;
  }

  /** `_randbelow(n)` for n ≥ 1: rejection sampling on `bitlen(n)` bits. */
  randbelow(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`randbelow: n must be a positive safe integer, got ${n}`);
    const k = bitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `randrange(start[, stop[, step]])` with CPython 3.11 argument handling (integers only). */
  randrange(start: number, stop?: number, step = 1): number {
    if (stop === undefined) {
      if (start > 0) return this.randbelow(start);
      throw new RangeError("empty range for randrange()");
    }
    const width = stop - start;
    if (step === 1) {
      if (width > 0) return start + this.randbelow(width);
      throw new RangeError(`empty range for randrange() (${start}, ${stop}, ${width})`);
    }
    if (step === 0) throw new RangeError("zero step for randrange()");
    const n = step > 0 ? Math.floor((width + step - 1) / step) : Math.floor((width + step + 1) / step);
    if (n <= 0) throw new RangeError("empty range for randrange()");
    return start + step * this.randbelow(n);
  }

  /** `randint(a, b)`, both ends inclusive. */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** `choice(seq)`. */
  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new RangeError("Cannot choose from an empty sequence");
    return seq[this.randbelow(seq.length)]!;
  }

  /** In-place `shuffle(x)` (Fisher–Yates from the end, as CPython). */
  shuffle<T>(x: T[]): T[] {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const t = x[i]!;
      x[i] = x[j]!;
      x[j] = t;
    }
    return x;
  }

  /** `sample(population, k)`: pool variant for small populations, set rejection otherwise. */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError("Sample larger than population or is negative");
    const result: T[] = new Array<T>(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool = population.slice();
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j]!;
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j]!;
      }
    }
    return result;
  }

  getState(): PyRandomState {
    return { mt: Array.from(this.mt), index: this.index };
  }

  static fromState(state: PyRandomState): PyRandom {
    if (state.mt.length !== N) throw new RangeError(`PyRandom.fromState: mt must have ${N} words`);
    const r = new PyRandom(0);
    r.mt = Uint32Array.from(state.mt);
    r.index = state.index;
    return r;
  }
}

export function bitLength(n: number): number {
  let k = 0;
  while (n > 0) {
    k++;
    n = Math.floor(n / 2);
  }
  return k;
}
