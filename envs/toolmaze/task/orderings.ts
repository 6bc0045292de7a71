/** Legal call orders of a solution (the hidden truth's `orderings`), counted per dependency part by bitmask DP. */
import { Memo } from "./memo.js";
import type { Position } from "./model.js";

let orderScratch = new Float64Array(1 << 10);

/**
 * Number of legal call orders of one solution (a tool set): permutations in which every tool comes after, for each
 * of its bound parameters, at least one chosen provider of that parameter. Independent parts (parallel slots, side
 * chains) interleave freely: the count is the multinomial of their sizes times each part's own count (bitmask DP).
 */
export function countOrderings(positions: readonly Position[], solution: readonly string[]): number {
  // Runs for every listed solution on every sampled reset (the hidden truth's `orderings`), so it allocates little:
  // plain loops and typed arrays instead of per-call maps, closures and spread copies.
  const n = solution.length;
  const posOf = positionIndex(positions);
  // needs[i]: for each bound parameter of tool i, the bitmask of chosen providers (any one suffices).
  const needs: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const list: number[] = [];
    const bindings = posOf.get(solution[i]!)!.bindings;
    for (const k in bindings) {
      const b = bindings[k]!;
      if (b.kind !== "bound") continue;
      let mask = 0;
      for (const f of b.from) {
        for (const m of positions[f]!.members) {
          // The last index, as a name -> index map built from the solution would give.
          const j = solution.lastIndexOf(m);
          if (j >= 0) mask |= 1 << j;
        }
      }
      list.push(mask);
    }
    needs[i] = list;
  }
  // Connected parts of the dependency graph (union-find).
  const part = new Int32Array(n);
  for (let i = 0; i < n; i++) part[i] = i;
  for (let i = 0; i < n; i++) for (const m of needs[i]!) for (let j = 0; j < n; j++) if (m & (1 << j)) part[root(part, i)] = root(part, j);
  // Parts in order of their first tool, members ascending (the order the product below is taken in).
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = root(part, i);
    const g = groups.get(r);
    if (g) g.push(i);
    else groups.set(r, [i]);
  }
  let total = 1;
  let placed = 0;
  for (const members of groups.values()) {
    const size = members.length;
    // req[k]: the part-local masks of member k's needs; ways[mask] = orders of the tools in `mask` (-1 = unknown).
    const req: number[][] = new Array(size);
    for (let k = 0; k < size; k++) {
      const global = needs[members[k]!]!;
      const local: number[] = new Array(global.length);
      for (let q = 0; q < global.length; q++) {
        let acc = 0;
        for (let l = 0; l < size; l++) if (global[q]! & (1 << members[l]!)) acc |= 1 << l;
        local[q] = acc;
      }
      req[k] = local;
    }
    // One scratch table for every part and call (a C4 solution's part needs up to 2^size entries: most of what a
    // sampled reset's hidden truth allocated), grown on demand and reset over the part's range only.
    if (orderScratch.length < 1 << size) orderScratch = new Float64Array(1 << size);
    const ways = orderScratch;
    ways.fill(-1, 0, 1 << size);
    ways[0] = 1;
    total *= countWays((1 << size) - 1, size, req, ways) * binomial(placed + size, size);
    placed += size;
  }
  return total;
}

/** Union-find root of `i`, compressing the path (a module function: a closure per call was measurable under tsx). */
function root(part: Int32Array, i: number): number {
  return part[i] === i ? i : (part[i] = root(part, part[i]!));
}

/** Orders of the tools in `mask` = the sum over its possible last tools (whose needs the rest already meets). */
function countWays(mask: number, size: number, req: readonly (readonly number[])[], ways: Float64Array): number {
  if (ways[mask]! >= 0) return ways[mask]!;
  let w = 0;
  for (let k = 0; k < size; k++) {
    if (!(mask & (1 << k))) continue;
    const rest = mask & ~(1 << k);
    const needsK = req[k]!;
    let met = true;
    for (let q = 0; q < needsK.length; q++) {
      if ((needsK[q]! & rest) === 0) {
        met = false;
        break;
      }
    }
    if (met) w += countWays(rest, size, req, ways);
  }
  ways[mask] = w;
  return w;
}

const positionIndexCache = new Memo<readonly Position[], Map<string, Position>>("positionIndex");
/** Position of each concrete tool (cached on the positions array). */
function positionIndex(positions: readonly Position[]): Map<string, Position> {
  let m = positionIndexCache.get(positions);
  if (!m) {
    m = new Map();
    for (const p of positions) for (const t of p.members) m.set(t, p);
    positionIndexCache.set(positions, m);
  }
  return m;
}

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}
