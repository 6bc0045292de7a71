import tQuantile from "@stdlib/stats-base-dists-t-quantile";

/** Arithmetic mean (0 for an empty list, so empty breakdown cells read as 0 rather than NaN). */
export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function std(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Quantile of Student's t with `df` degrees of freedom, p in (0, 1) (@stdlib): t_{0.975, 4} = 2.776, t_{0.975, 29} = 2.045. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) throw new RangeError(`studentTQuantile: need 0 < p < 1 and df > 0 (got p=${p}, df=${df})`);
  return tQuantile(p, df);
}

/**
 * Half-width of the 95% confidence interval of the mean, t_{0.975, n−1}·s/√n (Student's t, n − 1 degrees of freedom):
 * the one interval eval, rollout and ablate report. For small N the normal 1.96 would understate it (by 30% at N = 5);
 * the two agree as N grows. 0 when N < 2 (no spread to estimate).
 */
export function ci95(xs: readonly number[]): number {
  return xs.length < 2 ? 0 : (studentTQuantile(0.975, xs.length - 1) * std(xs)) / Math.sqrt(xs.length);
}

/** Linear-interpolated percentile, p in [0, 100]. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const idx = (p / 100) * (s.length - 1);
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  return s[lo] + (s[hi] - s[lo]) * (idx - lo);
}

/** Groups items by a key, keeping first-seen key order. */
export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = out.get(k);
    if (list) list.push(it);
    else out.set(k, [it]);
  }
  return out;
}
