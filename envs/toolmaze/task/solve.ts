/**
 * Solution space and recovery cost. Solutions are the inclusion-minimal sets of concrete tools that complete
 * every slot goal (AND over parameters, OR over providers and substitutes), each in canonical position order.
 * `minRemainingCalls` is the theoretical minimum c* used by the RC metric; the oracle plans with the same
 * function, which is what makes "oracle RC = 0" a real check rather than a tautology of two copies.
 */
import { DirectedGraph } from "graphology";
import { corpus } from "../world/corpus.js";
import { Memo } from "./memo.js";
import type { Domain } from "../world/catalog.js";
import type { Position, Task } from "./model.js";

const MAX_PER_SLOT = 64;
const MAX_TOTAL = 256;

type Choice = Map<number, string>;

function preference(positions: readonly Position[], choice: Choice): number {
  let s = 0;
  for (const [pos, tool] of choice) s += positions[pos]!.members.indexOf(tool);
  return s;
}

/** Enumerate minimal solutions of one slot, shortest then most-preferred first. */
export function enumerateSlot(positions: readonly Position[], goal: number): string[][] {
  const found = new Map<string, Choice>();
  // Every sampled reset enumerates its task's slots, so the per-position provider lists and the cartesian products
  // of bound parameters are built once per call instead of once per visit.
  const combosOf: (number[][] | undefined)[] = new Array(positions.length);
  const combosAt = (pos: number): number[][] => {
    let combos = combosOf[pos];
    if (combos) return combos;
    // Cartesian product over bound parameters of the provider position chosen for each.
    combos = [[]];
    for (const b of Object.values(positions[pos]!.bindings)) {
      if (b.kind !== "bound") continue;
      const acc: number[][] = [];
      for (const c of combos) for (const f of b.from) acc.push([...c, f]);
      combos = acc;
    }
    combosOf[pos] = combos;
    return combos;
  };
  const expand = (chosen: Choice, pending: number[]): void => {
    if (found.size >= MAX_PER_SLOT * 4) return;
    if (pending.length === 0) {
      // Positions in ascending order, as sorting the entries would give.
      let key = "";
      for (let p = 0; p < positions.length; p++) {
        const t = chosen.get(p);
        if (t !== undefined) key += key === "" ? `${p}:${t}` : `,${p}:${t}`;
      }
      if (!found.has(key)) found.set(key, new Map(chosen));
      return;
    }
    const pos = pending[0]!;
    const rest = pending.slice(1);
    if (chosen.has(pos)) return expand(chosen, rest);
    const p = positions[pos]!;
    const combos = combosAt(pos);
    for (const member of p.members) {
      const next = new Map(chosen).set(pos, member);
      for (const combo of combos) {
        const add = combo.filter((f) => !next.has(f) && !rest.includes(f));
        expand(next, [...rest, ...new Set(add)]);
      }
    }
  };
  expand(new Map(), [goal]);
  const sets = [...found.values()];
  // Arrays handed between the enumerator's functions are built by push onto a literal, never by `.map`: a `.map`
  // result is holey or packed depending on whether its caller runs optimized, so the callee, optimized on one kind,
  // deoptimizes on the other (session 27, `--trace-deopt`: the cold phase's recompiles of `enumerateSolutions`).
  const asSet: Set<string>[] = [];
  for (const c of sets) asSet.push(new Set(c.values()));
  // Prune redundant chains: drop any solution that strictly contains another.
  const minimal = sets.filter(
    (_, i) => !asSet.some((other, j) => j !== i && other.size < asSet[i]!.size && [...other].every((t) => asSet[i]!.has(t))),
  );
  minimal.sort(
    (a, b) => a.size - b.size || preference(positions, a) - preference(positions, b) || order(a).join().localeCompare(order(b).join()),
  );
  const out: string[][] = [];
  for (let i = 0; i < minimal.length && i < MAX_PER_SLOT; i++) out.push(order(minimal[i]!));
  return out;
}

function order(choice: Choice): string[] {
  const out: string[] = [];
  for (const [, t] of [...choice.entries()].sort((a, b) => a[0] - b[0])) out.push(t);
  return out;
}

/** Per-slot solutions plus their cross product (task-level), shortest first. */
export function enumerateSolutions(
  positions: readonly Position[],
  goals: readonly number[],
): {
  perSlot: string[][][];
  all: string[][];
} {
  const perSlot: string[][][] = [];
  for (const g of goals) perSlot.push(enumerateSlot(positions, g));
  let all: string[][] = [[]];
  for (const slotSols of perSlot) {
    const acc: string[][] = [];
    for (const prefix of all) for (const s of slotSols) acc.push([...prefix, ...s]);
    acc.sort((a, b) => a.length - b.length);
    all = acc.slice(0, MAX_TOTAL);
  }
  return { perSlot, all };
}

/** The graphology DAG over concrete tools: an edge per (provider member -> consumer member, parameter). */
export function buildDag(task: Pick<Task, "positions">): DirectedGraph {
  const g = new DirectedGraph({ multi: false, allowSelfLoops: false });
  const c = corpus();
  for (const p of task.positions) {
    for (const m of p.members) {
      const t = c.tool(m);
      g.addNode(m, { position: p.index, group: p.cap, category: t.category, slot: p.slot });
    }
  }
  for (const p of task.positions) {
    for (const [param, b] of Object.entries(p.bindings)) {
      if (b.kind !== "bound") continue;
      for (const from of b.from) {
        for (const src of task.positions[from]!.members) {
          for (const dst of p.members) {
            const field = Object.entries(c.tool(src).outputTypes).find(([, ty]) => ty === b.type)?.[0];
            g.mergeEdge(src, dst, { param, field, type: b.type });
          }
        }
      }
    }
  }
  return g;
}

/** Kahn's algorithm over the graphology DAG; returns undefined when the graph has a cycle. */
export function topoOrder(g: DirectedGraph): string[] | undefined {
  const indeg = new Map<string, number>();
  g.forEachNode((n) => indeg.set(n, g.inDegree(n)));
  const ready = [...indeg.entries()]
    .filter(([, d]) => d === 0)
    .map(([n]) => n)
    .sort();
  const out: string[] = [];
  while (ready.length > 0) {
    const n = ready.shift()!;
    out.push(n);
    for (const m of g.outNeighbors(n).sort()) {
      const d = indeg.get(m)! - 1;
      indeg.set(m, d);
      if (d === 0) ready.push(m);
    }
  }
  return out.length === g.order ? out : undefined;
}

/**
 * Whether `buildDag(task)` would have a cycle, without building it. Every generated task is validated, and a
 * graphology graph defines accessor closures per instance, which give each graph its own hidden class: the old-space
 * map keeps the graph alive through scavenges until a full GC (measured: ~5 KB promoted per sampled reset). Each
 * tool belongs to one position, so the tool graph has a cycle iff the position graph (an edge from each provider
 * position to its consumer, both with members) has one. Tasks outside that shape (a tool in two positions, a provider
 * index out of range) go through `buildDag`, which refuses them exactly as before.
 */
function hasCycle(task: Pick<Task, "positions">): boolean {
  const positions = task.positions;
  const n = positions.length;
  const seen = new Set<string>();
  for (const p of positions) {
    for (const m of p.members) {
      if (seen.has(m)) return !topoOrder(buildDag(task));
      seen.add(m);
    }
  }
  const indeg = new Int32Array(n);
  const out: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    const p = positions[i]!;
    if (p.members.length === 0) continue;
    for (const param in p.bindings) {
      const b = p.bindings[param]!;
      if (b.kind !== "bound") continue;
      for (const f of b.from) {
        const src = positions[f];
        if (src === undefined) return !topoOrder(buildDag(task));
        if (src.members.length === 0) continue;
        out[f]!.push(i);
        indeg[i]! += 1;
      }
    }
  }
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) ready.push(i);
  let done = 0;
  while (ready.length > 0) {
    const i = ready.pop()!;
    done++;
    for (const j of out[i]!) if (--indeg[j]! === 0) ready.push(j);
  }
  return done < n;
}

/**
 * Structural and type validation; returns a list of problems (empty = valid). With `home`, tools of that domain may
 * be joined by General-domain ones (cross-domain tasks); without it a task has exactly one domain.
 */
export function validateTask(task: Pick<Task, "positions" | "slots">, home?: Domain): string[] {
  const problems: string[] = [];
  const c = corpus();
  if (hasCycle(task)) problems.push("task graph has a cycle");
  const cats = new Set(task.positions.map((p) => p.category));
  if (!cats.has("source")) problems.push("no Source node");
  if (!cats.has("action")) problems.push("no Action node");
  const domains = new Set(task.positions.flatMap((p) => p.members.map((m) => c.tool(m).domain)));
  const foreign = [...domains].filter((d) => d !== home && d !== "General");
  const mixed = home === undefined ? domains.size !== 1 : foreign.length > 0 || !domains.has(home);
  if (mixed) problems.push(`mixed domains: ${[...domains].join(",")}`);
  for (const p of task.positions) {
    const capSpec = c.caps.get(p.cap);
    if (!capSpec) {
      problems.push(`unknown capability ${p.cap}`);
      continue;
    }
    for (const m of p.members) if (c.tool(m).group !== p.cap) problems.push(`${m} is not in group ${p.cap}`);
    for (const [param, type] of Object.entries(capSpec.params)) {
      const b = p.bindings[param];
      if (!b) {
        problems.push(`${p.cap}.${param} unbound`);
        continue;
      }
      if (b.kind === "bound") {
        if (b.type !== type) problems.push(`${p.cap}.${param}: edge type ${b.type} != ${type}`);
        for (const f of b.from) {
          const src = task.positions[f];
          if (!src || f >= p.index) problems.push(`${p.cap}.${param}: provider ${f} not upstream`);
          else if (!Object.values(c.caps.get(src.cap)!.outputs).includes(type)) problems.push(`${src.cap} does not output ${type}`);
        }
      }
    }
  }
  for (const s of task.slots) if (task.positions[s.goal]?.category !== "action") problems.push(`slot ${s.slot} goal is not an Action`);
  return problems;
}

/** Fault knowledge for one slot, as seen from a point in the episode. */
export interface SlotFaultState {
  readonly group: string;
  readonly persistence: "transient" | "permanent";
  /** Tool that became the victim (undefined = no member of the group called yet). */
  readonly victim?: string;
}

/**
 * Minimum number of further tool calls to complete one slot, or Infinity if impossible (then the optimal
 * move is a graceful abort). An unfired fault costs one extra call on any path through its group: a retry
 * (transient) or a switch to a sibling substitute at the same position (permanent); a fired permanent
 * victim is unusable.
 */
export function slotCost(
  task: Task,
  slotSolutions: readonly (readonly string[])[],
  cleanDone: ReadonlySet<string>,
  fault: SlotFaultState | undefined,
): { cost: number; path: readonly string[] | undefined } {
  let best = Infinity;
  let bestPath: readonly string[] | undefined;
  const c = corpus();
  // Plain loops: Φ0 of every canonical instance's first visit and the potential of every step come through here.
  for (const p of slotSolutions) {
    let cost = 0;
    for (let i = 0; i < p.length; i++) if (!cleanDone.has(p[i]!)) cost++;
    if (fault) {
      if (fault.victim !== undefined) {
        if (fault.persistence === "permanent" && p.includes(fault.victim)) continue;
      } else {
        let member: string | undefined;
        for (let i = 0; i < p.length && member === undefined; i++) if (c.tool(p[i]!).group === fault.group) member = p[i];
        if (member !== undefined && !cleanDone.has(member)) {
          if (fault.persistence === "transient") cost += 1;
          else {
            const pos = task.positions.find((q) => q.members.includes(member))!;
            if (pos.members.length < 2) continue;
            cost += 1;
          }
        }
      }
    }
    if (cost < best) {
      best = cost;
      bestPath = p;
    }
  }
  return { cost: best, path: bestPath };
}

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
