/**
 * Building the visible tool list of one retrieval: blocker replacement → noisy-sibling
 * augmentation → seeded shuffle, as the official runtime does it.
 *
 * Why seeded by hashes of the request and the list: the official list order depends only on
 * (global seed, task, query, request, tools), never on the episode's history, so replaying a
 * request anywhere in an episode shows the same list.
 */
import { PyRandom } from "../../../src/family.js";
import { blake2bInt } from "../compat/digests.js";
import { pyJsonDumps } from "../compat/pyvalue.js";
import type { BlockerType, ToolRecord } from "../releaseFormat.js";
import type { RetrievalRequest } from "./retriever.js";

/** A task's blocker replacement map: baseline name → blocker types, in event order. */
export type ReplacementMap = ReadonlyMap<string, readonly BlockerType[]>;

/** Noisy siblings per baseline (name-sorted) and blockers per (baseline, type). */
export interface SiblingIndex {
  noisyByBaseline: Map<string, ToolRecord[]>;
  blockerByBaselineType: Map<string, ToolRecord>;
}

export function buildSiblingIndex(noisy: readonly ToolRecord[], blockers: readonly ToolRecord[]): SiblingIndex {
  const noisyByBaseline = new Map<string, ToolRecord[]>();
  for (const t of noisy) {
    const k = t.baseline_tool_name!;
    const list = noisyByBaseline.get(k) ?? [];
    list.push(t);
    noisyByBaseline.set(k, list);
  }
  for (const list of noisyByBaseline.values()) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const blockerByBaselineType = new Map<string, ToolRecord>();
  for (const t of blockers) blockerByBaselineType.set(`${t.baseline_tool_name}\u0000${t.noise_type}`, t);
  return { noisyByBaseline, blockerByBaselineType };
}

/** Replace each blocked baseline in place by one blocker per event (the baseline is never shown). */
export function replaceBlocked(tools: readonly ToolRecord[], map: ReplacementMap, idx: SiblingIndex): ToolRecord[] {
  if (map.size === 0) return tools.slice();
  const out: ToolRecord[] = [];
  for (const t of tools) {
    const events = map.get(t.name);
    if (!events) {
      out.push(t);
      continue;
    }
    for (const type of events) {
      const b = idx.blockerByBaselineType.get(`${t.name}\u0000${type}`);
      if (b) out.push(b);
    }
  }
  return out;
}

interface Group {
  key: string;
  primaries: ToolRecord[];
  blocked: boolean;
  pool: ToolRecord[];
  selected: ToolRecord[];
}

function allocate(groups: Group[], budget: number, rng: PyRandom, maxPerGroup: number | null, balance: boolean): number {
  let spent = 0;
  while (spent < budget) {
    let eligible = groups.filter((g) => g.pool.length > 0 && (maxPerGroup === null || g.selected.length < maxPerGroup));
    if (eligible.length === 0) break;
    if (balance) {
      const min = Math.min(...eligible.map((g) => g.selected.length));
      eligible = eligible.filter((g) => g.selected.length === min);
    }
    rng.shuffle(eligible);
    let assigned = false;
    for (const g of eligible) {
      if (spent >= budget) break;
      g.selected.push(g.pool.pop()!);
      spent++;
      assigned = true;
    }
    if (!assigned) break;
  }
  return spent;
}

export interface NoisyOptions {
  /** `append_noisy_siblings` adds siblings; `none` only de-duplicates. */
  mode: "append_noisy_siblings" | "none";
  /** Caps noisy additions only (primaries are never dropped); null = no cap. */
  maxTotalTools: number | null;
}

/** Noisy-sibling augmentation: two-stage seeded round robin over groups of primaries. */
export function augmentNoisy(primariesIn: readonly ToolRecord[], idx: SiblingIndex, domain: string, opts: NoisyOptions): ToolRecord[] {
  const seenNames = new Set<string>();
  const primaries: ToolRecord[] = [];
  for (const t of primariesIn) {
    if (seenNames.has(t.name)) continue;
    seenNames.add(t.name);
    primaries.push(t);
  }
  if (opts.mode !== "append_noisy_siblings") return primaries;
  const groups: Group[] = [];
  const byKey = new Map<string, Group>();
  for (const t of primaries) {
    const key = t.baseline_tool_name ?? t.name;
    let g = byKey.get(key);
    if (!g) {
      const pool: ToolRecord[] = [];
      for (const s of idx.noisyByBaseline.get(key) ?? []) {
        if (seenNames.has(s.name)) continue;
        pool.push(s);
        seenNames.add(s.name);
      }
      g = { key, primaries: [], blocked: false, pool, selected: [] };
      byKey.set(key, g);
      groups.push(g);
    }
    g.primaries.push(t);
    if (t.baseline_tool_name) g.blocked = true;
  }
  const candidates = groups.reduce((s, g) => s + g.pool.length, 0);
  if (candidates === 0) return primaries;
  const primaryCount = groups.reduce((s, g) => s + g.primaries.length, 0);
  let budget = candidates;
  if (opts.maxTotalTools !== null) budget = Math.min(candidates, Math.max(0, opts.maxTotalTools - primaryCount));
  if (budget <= 0) return primaries;
  const labels = groups.map((g) => `${g.key}:${g.blocked ? "blocked" : "baseline"}:${g.primaries.length}`);
  const rng = new PyRandom(blake2bInt([domain, String(budget), ...labels].join("||"), 16));
  for (const g of groups) rng.shuffle(g.pool);
  let remaining = budget;
  const unblocked = groups.filter((g) => !g.blocked);
  if (unblocked.length > 0) remaining -= allocate(unblocked, Math.min(remaining, 2 * unblocked.length), rng, 2, false);
  if (remaining > 0) allocate(groups, remaining, rng, null, true);
  const out: ToolRecord[] = [];
  for (const g of groups) out.push(...g.primaries, ...g.selected);
  return out;
}

/** The seed string of the final shuffle (Python sorted-key JSON). */
export function shuffleSeedMaterial(
  globalSeed: number,
  taskId: string,
  queryId: string,
  request: RetrievalRequest,
  tools: readonly ToolRecord[],
): string {
  return pyJsonDumps(
    {
      global_seed: globalSeed,
      task_id: taskId,
      query_id: queryId,
      request,
      tools: tools.map((t) => ({ name: t.name, tool_type: t.tool_type })),
    },
    { sortKeys: true },
  );
}

/** Final seeded shuffle of the visible list (lists of length ≤ 1 are returned as they are). */
export function shuffleTools(
  globalSeed: number,
  taskId: string,
  queryId: string,
  request: RetrievalRequest,
  tools: readonly ToolRecord[],
): ToolRecord[] {
  if (tools.length <= 1) return tools.slice();
  const seed = blake2bInt(shuffleSeedMaterial(globalSeed, taskId, queryId, request, tools), 16);
  return new PyRandom(seed).shuffle(tools.slice());
}

export function noisySeed(domain: string, budget: number, labels: readonly string[]): bigint {
  return blake2bInt([domain, String(budget), ...labels].join("||"), 16);
}
