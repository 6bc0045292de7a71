/** The queries a PlanBenchXL-v0 env draws its episodes from, and which one a reset plays. */
import { type JsonObject, OptionsError, type Rng } from "../../src/family.js";
import type { PlanBenchRelease, QueryRecord } from "./releaseFormat.js";
import { sampleSequence } from "./sampling.js";
import type { PlanBenchSettings } from "./settings.js";

/**
 * Pool index of a reset under `cycle`. A seeded reset's stream path is the seed itself, and an unseeded reset's is
 * `<lastSeed>/next:<k>`, so the index is (seed + k) mod n without any extra state: `eval --episodes n` (seeds
 * 0..n-1) plays every query once, unseeded resets continue the cycle, and getState / setState need nothing new.
 */
export function cycleIndex(rngPath: string, n: number): number | null {
  const m = /^(-?\d+)(?:\/next:(\d+))?$/.exec(rngPath);
  if (!m || n === 0) return null;
  const k = BigInt(m[1]!) + BigInt(m[2] ?? 0);
  return Number(((k % BigInt(n)) + BigInt(n)) % BigInt(n));
}

/**
 * The episode pool: the release's queries in file order, sampled by `settings.query_sample` (the official
 * seeded CPython sample) and restricted to `queryIds` when given.
 */
export function sampleQueryPool(
  release: PlanBenchRelease,
  settings: PlanBenchSettings,
  queryIds: readonly string[] | undefined,
): readonly QueryRecord[] {
  const qs = settings.query_sample;
  const sampled = sampleSequence(release.queries, qs.size, qs.seed);
  const wanted = queryIds ? new Set(queryIds) : null;
  const pool = wanted ? sampled.filter((q) => wanted.has(q.query_id)) : sampled;
  if (pool.length === 0) throw new OptionsError("queryIds", "no query of queryIds is in settings.query_sample's sample");
  return pool;
}

/** The query of a reset: `options.queryId` when given, else the `cycle` index or a seeded draw from the pool. */
export function pickQuery(
  release: PlanBenchRelease,
  pool: readonly QueryRecord[],
  rng: Rng,
  options: JsonObject,
  cycle: boolean,
): QueryRecord {
  if (typeof options["queryId"] === "string") {
    const q = release.queries.find((x) => x.query_id === options["queryId"]);
    if (!q) throw new OptionsError("options.queryId", `unknown query "${String(options["queryId"])}"`);
    return q;
  }
  const index = cycle ? cycleIndex(rng.path, pool.length) : null;
  return index === null ? rng.derive("task").pick(pool) : pool[index]!;
}
