/**
 * The engine's part of a canonical ToolMaze instance's first visit (issue 19): `env.reset` on instances whose cache
 * entry (hidden truth included) is already built and whose base task was visited (a sibling's reset), against warm
 * resets of the same instances. What the first reset still pays then is first use inside the engine and the env's
 * reset path (per-instance keys, cache entries made on first use), not the instance's own cache entry.
 * `PRE=ids` first uses each instance's fault ids as object keys outside the timed pass (V8 interns a string the first
 * time it is a property key; each canonical instance has fault ids of its own), to read how much of the gap that is.
 * Run alone with `npx tsx bench/resetsFirstUse.ts`; A/B by alternating runs in two checkouts (it reads only its own).
 */
import { loadavg } from "node:os";
import type { Env } from "../src/core/env.js";
import { make } from "../src/core/registry.js";
import "../envs/toolmaze/index.js";
import type { CanonicalEpisode } from "../envs/toolmaze/instanceCache.js";
import { canonicalCandidates, canonicalHidden } from "../envs/toolmaze/instanceCache.js";
import { hiddenTruth } from "../envs/toolmaze/setup.js";
import { PERTURBATIONS } from "../envs/toolmaze/tasks.js";
import { quantile, timeResets } from "./timing/resetTail.js";

/** The env's entry builder, private to it: called here to build entries outside the timed pass. */
interface EntryBuilder {
  canonicalEntry(index: number): CanonicalEpisode;
}

const WARMUP_SEED = 1_000_000;
const WARMUP = 300;
const env = make("ToolMaze-v0", {}) as Env<unknown, unknown>;
const builder = env as unknown as EntryBuilder;
const candidates = canonicalCandidates({}, "v0");
// Seeded canonical resets map seed k to candidates[k mod n] (ToolMazeEnv.pickIndex).
const seedOf = new Map(candidates.map((index, k) => [index, k]));
const warmSeeds = Array.from({ length: WARMUP }, (_, k) => WARMUP_SEED + k);
for (let round = 0; round < 5; round++) for (const seed of warmSeeds) env.reset({ seed });
const n = candidates.length;
const warmed = (k: number): boolean => (((k - WARMUP_SEED) % n) + n) % n < WARMUP;

// Instances of base tasks the warm-up missed: one sibling reset per base task, the other siblings are the probe's.
const siblings: number[] = [];
const probe: number[] = [];
const modes = PERTURBATIONS.length;
for (let base = 0; base < n; base += modes) {
  const seeds = Array.from({ length: modes }, (_, j) => seedOf.get(base + j));
  if (seeds.some((k) => k === undefined || warmed(k))) continue;
  siblings.push(seeds[0]!);
  for (const k of seeds.slice(1)) probe.push(k!);
}
for (const seed of siblings) env.reset({ seed });
for (const seed of probe) {
  const e = builder.canonicalEntry(candidates[seed]!);
  e.hidden ??= canonicalHidden(e.profile, () => hiddenTruth(e.task, e.profile, e.perturbation, e.index, e.facts.unsolvable));
  if (process.env.PRE === "ids") {
    const keys: Record<string, number> = Object.create(null);
    for (const f of e.facts.faults) keys[f.id] = 1;
  }
}

const line = (label: string, seeds: readonly number[]): string => {
  const pass = timeResets(env, seeds);
  const w = pass.wallUs;
  const cpu = (pass.cpuUs / w.length).toFixed(1);
  const p50 = quantile(w, 0.5).toFixed(2);
  return `${label} wall p50 ${p50}, p90 ${quantile(w, 0.9).toFixed(1)} µs, process CPU ${cpu} µs/reset (all threads)`;
};
const first = line("first use", probe);
timeResets(env, probe);
const warm = line("warm", probe);
console.log(`ToolMaze-v0 canonical reset, entry built, ${probe.length} instances${process.env.PRE === "ids" ? " (ids interned)" : ""}:`);
console.log(`  ${first}\n  ${warm}\n  load ${loadavg()[0]!.toFixed(2)}`);
env.close();
