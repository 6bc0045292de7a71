import { PyRandom, type PyRandomState } from "../../src/family.js";
import type { UniformSource } from "./faults.js";

/**
 * Python's `random.Random(seed).random()` as a restorable uniform source, used ONLY under `compat: "official"` so
 * that `prob` triggers and adversarial message picks on official task records draw exactly the numbers the
 * upstream harness draws. The default mode uses the core `Rng` instead.
 */
export class PyMersenne implements UniformSource {
  private rng: PyRandom;
  constructor(seed: number | bigint) {
    this.rng = new PyRandom(seed);
  }
  random(): number {
    return this.rng.random();
  }
  /** Plain-JSON generator state, so a forked episode continues the exact same draws. */
  snapshot(): PyRandomState {
    return this.rng.getState();
  }
  restore(state: unknown): void {
    const s = state as PyRandomState | null;
    if (!s || !Array.isArray(s.mt) || typeof s.index !== "number") throw new TypeError("PyMersenne.restore: not a PyRandom state");
    this.rng = PyRandom.fromState(s);
  }
}
