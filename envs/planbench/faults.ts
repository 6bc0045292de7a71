/**
 * The family's fault plan: path-preserving blockers (official `events/blocker.py` semantics).
 *
 * For a task, choose a hidden set of catalog tools whose blocking leaves a target number of
 * catalog paths feasible; candidates are the empty set then every combination of up to
 * `max_cover_size` tools in lexicographic order; ties are broken with CPython's `Random` seeded by
 * `seed + sha256(task_id)[:8]`, so plans match the official ones draw for draw.
 */
import { PyRandom } from "../../src/family.js";
import { pyRound } from "./compat/pyvalue.js";
import { sha256Prefix64 } from "./compat/digests.js";
import { BLOCKER_TYPES, type BlockerType, type PathSet } from "./releaseFormat.js";
import type { BlockerSettings } from "./settings.js";

export interface BlockerPlan {
  taskId: string;
  status: "success" | "unresolved" | "disabled";
  /** Blocked baseline tools, sorted. */
  blockedTools: string[];
  /** Replacement events per blocked tool, in event order. */
  replacements: Map<string, BlockerType[]>;
  blockedPathIndices: number[];
  remainingPathIndices: number[];
  totalPaths: number;
  candidateCount: number;
  truncated: boolean;
  reason?: string;
}

interface Candidate {
  edges: number[];
  /** Bitset over path indices. */
  covered: Uint32Array;
  coveredCount: number;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Plan blockers for one task from its catalog entries (file order = path index). */
export function planBlockers(taskId: string, entries: readonly PathSet[], cfg: BlockerSettings): BlockerPlan {
  const totalPaths = entries.length;
  const base: BlockerPlan = {
    taskId,
    status: "disabled",
    blockedTools: [],
    replacements: new Map(),
    blockedPathIndices: [],
    remainingPathIndices: entries.map((_, i) => i),
    totalPaths,
    candidateCount: 0,
    truncated: false,
  };
  if (!cfg.enable_block) return base;
  const sets = entries.map((e) => [...new Set(e.tool_set)].sort());
  const lengths = entries.map((e) => e.steps);
  const words = Math.max(1, Math.ceil(totalPaths / 32));
  const coverOf = new Map<string, Uint32Array>();
  sets.forEach((s, p) => {
    for (const t of s) {
      let c = coverOf.get(t);
      if (!c) coverOf.set(t, (c = new Uint32Array(words)));
      c[p >> 5]! |= 1 << (p & 31);
    }
  });
  const edges = [...coverOf.keys()].sort();
  const edgeCover = edges.map((e) => coverOf.get(e)!);

  // Candidates: empty combo, then combinations by size, capped.
  const cands: Candidate[] = [{ edges: [], covered: new Uint32Array(words), coveredCount: 0 }];
  let truncated = cands.length >= cfg.max_combo_candidates;
  const upper = Math.min(cfg.max_cover_size, edges.length);
  const pick: number[] = [];
  const emit = (): boolean => {
    const cov = new Uint32Array(words);
    for (const e of pick) for (let w = 0; w < words; w++) cov[w]! |= edgeCover[e]![w]!;
    let n = 0;
    for (let w = 0; w < words; w++) n += popcount(cov[w]!);
    cands.push({ edges: pick.slice(), covered: cov, coveredCount: n });
    return cands.length >= cfg.max_combo_candidates;
  };
  const rec = (start: number, k: number): boolean => {
    if (k === 0) return emit();
    for (let i = start; i <= edges.length - k; i++) {
      pick.push(i);
      const stop = rec(i + 1, k - 1);
      pick.pop();
      if (stop) return true;
    }
    return false;
  };
  for (let size = 1; size <= upper && !truncated; size++) truncated = rec(0, size);
  base.candidateCount = cands.length;
  base.truncated = truncated;

  const rng = new PyRandom(BigInt(cfg.seed) + sha256Prefix64(taskId));
  let pool: Candidate[];
  if (cfg.selection_mode === "exact_blocked_paths") {
    const want = Math.min(cfg.block_n_per_task ?? 0, totalPaths);
    pool = cands.filter((c) => c.coveredCount === want && totalPaths - c.coveredCount >= cfg.min_remaining_paths);
    if (pool.length === 0) return { ...base, status: "unresolved", reason: "no_feasible_exact_blocked_paths_combo" };
  } else {
    let target: number;
    if (cfg.selection_mode === "target_remaining_paths") {
      target = Math.max(cfg.min_remaining_paths, Math.min(totalPaths, cfg.target_remaining_paths ?? 0));
    } else {
      target = Math.max(cfg.min_remaining_paths, Math.min(totalPaths, pyRound(totalPaths * (cfg.target_remaining_ratio ?? 0))));
    }
    const scored: Array<[number, Candidate]> = [];
    for (const c of cands) {
      const remaining = totalPaths - c.coveredCount;
      if (remaining < cfg.min_remaining_paths) continue;
      const d = Math.abs(remaining - target);
      if (d > cfg.remaining_tolerance) continue;
      scored.push([d, c]);
    }
    if (scored.length === 0) return { ...base, status: "unresolved", reason: "no_feasible_remaining_paths_combo_within_tolerance" };
    const best = Math.min(...scored.map(([d]) => d));
    pool = scored.filter(([d]) => d === best).map(([, c]) => c);
  }

  // Remaining mean path length as an exact fraction (num / den).
  const meanOf = (c: Candidate): [number, number] => {
    let num = 0;
    let den = 0;
    for (let p = 0; p < totalPaths; p++) {
      if ((c.covered[p >> 5]! >>> (p & 31)) & 1) continue;
      num += lengths[p]!;
      den++;
    }
    return [num, den];
  };
  const obj = cfg.remaining_path_length_objective;
  if (obj !== "none") {
    const means = pool.map(meanOf);
    const cmp = (a: [number, number], b: [number, number]): number => a[0] * b[1] - b[0] * a[1];
    const distinct: Array<[number, number]> = [];
    for (const m of means.slice().sort(cmp)) if (distinct.length === 0 || cmp(distinct[distinct.length - 1]!, m) !== 0) distinct.push(m);
    let chosen: [number, number];
    if (obj === "maximize") chosen = distinct[distinct.length - 1]!;
    else if (obj === "minimize") chosen = distinct[0]!;
    else chosen = distinct[rng.randrange(distinct.length)]!;
    pool = pool.filter((_, i) => cmp(means[i]!, chosen) === 0);
  }
  if (cfg.blocking_edge_count_objective === "minimize") {
    const m = Math.min(...pool.map((c) => c.edges.length));
    pool = pool.filter((c) => c.edges.length === m);
  }
  const selected = pool[rng.randrange(pool.length)]!;

  const replacements = new Map<string, BlockerType[]>();
  for (const e of selected.edges) {
    let types: BlockerType[];
    switch (cfg.noise_mode) {
      case "fixed":
        types = [cfg.fixed_noise_type ?? "explicit failures"];
        break;
      case "random":
        types = [BLOCKER_TYPES[rng.randrange(3)]!];
        break;
      case "fixed_multi":
        types = [...new Set(cfg.fixed_noise_types ?? [])];
        if (types.length === 0) throw new Error("blocker.fixed_noise_types: fixed_multi needs at least one blocker type");
        break;
      case "random_multi":
        types = rng.sample([...BLOCKER_TYPES], Math.min(Math.max(1, cfg.multi_noise_count), 3));
        break;
    }
    replacements.set(edges[e]!, types);
  }
  const blockedPathIndices: number[] = [];
  const remainingPathIndices: number[] = [];
  for (let p = 0; p < totalPaths; p++) ((selected.covered[p >> 5]! >>> (p & 31)) & 1 ? blockedPathIndices : remainingPathIndices).push(p);
  return {
    ...base,
    status: "success",
    blockedTools: selected.edges.map((e) => edges[e]!),
    replacements,
    blockedPathIndices,
    remainingPathIndices,
  };
}
