/**
 * Solution space and recovery cost. Solutions are the inclusion-minimal sets of concrete tools that complete
 * every slot goal (AND over parameters, OR over providers and substitutes), each in canonical position order.
 * `minRemainingCalls` is the theoretical minimum c* used by the RC metric; the oracle plans with the same
 * function, which is what makes "oracle RC = 0" a real check rather than a tautology of two copies.
 */
import { corpus } from "../world/corpus.js";
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
