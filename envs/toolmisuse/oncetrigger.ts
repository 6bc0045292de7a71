/**
 * Transient faults that do not depend on the global call index.
 *
 * The official trigger vocabulary has one way to make a fault fire once — `on_nth_call`, a
 * 1-based *global* call index — so a fault pinned to the gold's position is dodged by any agent
 * that calls in another order (an earlier extra call shifts every index). `when_arg_matches` or
 * `on_tool` alone fire on *every* matching call: persistent, not transient.
 *
 * `prob` gives what we need: each spec owns a stream seeded `prob.seed × 9973 + plan index`, and
 * it draws only when the other conditions (`on_tool`, `when_arg_matches`) pass. So the k-th draw
 * belongs to the k-th matching call, wherever it happens. We pick `{p, seed}` so that in both
 * the core stream (compat "fixed") and CPython's (compat "official", and the upstream harness)
 * the first draw is below p and the next ONCE_HORIZON − 1 are not: the fault fires on exactly
 * the first matching call and an identical retry succeeds. Here p is a cut between draws, not a
 * failure rate.
 */
import { Rng } from "../../src/family.js";
import { faultStreams } from "./streams.js";
import type { GenRng } from "./templates.js";
import type { CompatMode, JsonObj } from "./world/types.js";

/** No budget profile allows more calls than this, so no later matching call can fire again. */
export const ONCE_HORIZON = 10;
const POOL_SIZE = 16;

export interface OnceSeed {
  seed: number;
  p: number;
}

/** The first ONCE_HORIZON draws of a spec's stream, exactly as the fault engine makes them. */
export function specDraws(seed: number, planIndex: number, compat: CompatMode, n = ONCE_HORIZON): number[] {
  const src = faultStreams(compat)(seed * 9973 + planIndex);
  return Array.from({ length: n }, () => src.random());
}

/** The roundest p with first < p ≤ every later draw, in both streams; null if none exists. */
function separatingP(fixed: number[], official: number[]): number | null {
  const lo = Math.max(fixed[0]!, official[0]!);
  const hi = Math.min(...fixed.slice(1), ...official.slice(1));
  if (!(lo < hi)) return null;
  for (let digits = 1; digits <= 12; digits++) {
    const f = 10 ** digits;
    const p = Math.floor(hi * f) / f;
    if (lo < p && p <= hi) return p;
  }
  return null;
}

const pools = new Map<number, OnceSeed[]>();

/** Seeds that make a spec at `planIndex` fire on its first matching call only (computed once per process). */
export function oncePool(planIndex: number): readonly OnceSeed[] {
  const hit = pools.get(planIndex);
  if (hit) return hit;
  const candidates = new Rng(`toolmisuse/once-trigger/${planIndex}`);
  const pool: OnceSeed[] = [];
  while (pool.length < POOL_SIZE) {
    const seed = 100_000 + candidates.int(900_000_000);
    const fixed = specDraws(seed, planIndex, "fixed");
    if (fixed[0]! >= Math.min(...fixed.slice(1))) continue; // cheap stream first: most candidates stop here
    const p = separatingP(fixed, specDraws(seed, planIndex, "official"));
    if (p !== null) pool.push({ seed, p });
  }
  pools.set(planIndex, pool);
  return pool;
}

/** `base` (on_tool, maybe when_arg_matches) plus a `prob` that fires on the first matching call only. */
export function onceTrigger(base: JsonObj, planIndex: number, r: GenRng): JsonObj {
  const pool = oncePool(planIndex);
  const s = pool[r.int(pool.length)]!;
  return { ...base, prob: { p: s.p, seed: s.seed } };
}
