/**
 * Facts derived from a task's DAG that scoring and the env read on every call or episode: downstream positions and
 * tools, per-slot solutions, and the tools that form an alternative path around a victim. Pure functions of the
 * task, cached on the task object's identity (tasks are immutable).
 */
import { Memo } from "./memo.js";
import { enumerateSlot } from "./solve.js";
import type { Task } from "./model.js";

/** Positions downstream of `pos` (transitive consumers) in the task DAG. */
export function downstreamPositions(task: Task, pos: number): Set<number> {
  const out = new Set<number>();
  let frontier = [pos];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const p of task.positions) {
      if (out.has(p.index)) continue;
      if (Object.values(p.bindings).some((b) => b.kind === "bound" && b.from.some((f) => frontier.includes(f)))) {
        out.add(p.index);
        next.push(p.index);
      }
    }
    frontier = next;
  }
  return out;
}

/** Per-slot solution lists (cached on the task object identity). */
const slotSolCache = new Memo<Task, string[][][]>("slotSolutions");
/**
 * Records the per-slot lists the generator already enumerated for `task` (the same `enumerateSlot` calls
 * `slotSolutions` would make), so a sampled reset enumerates them once rather than twice.
 */
export function rememberSlotSolutions(task: Task, perSlot: string[][][]): void {
  slotSolCache.set(task, perSlot);
}
export function slotSolutions(task: Task): string[][][] {
  let s = slotSolCache.get(task);
  if (!s) {
    s = task.slots.map((info) => enumerateSlot(task.positions, info.goal));
    slotSolCache.set(task, s);
  }
  return s;
}

const altCache = new Memo<Task, Map<number, Map<string, ReadonlySet<string>>>>("alternativeTools");
/**
 * Tools that put a slot on an alternative path once `victim` failed: on some solution of the slot that avoids the
 * victim, and on none through it. A pure function of (task, slot, victim), cached (read on every call once a slot
 * has a victim, hence nested maps rather than a composed key).
 */
export function alternativeTools(task: Task, slot: number, victim: string): ReadonlySet<string> {
  let bySlot = altCache.get(task);
  if (!bySlot) altCache.set(task, (bySlot = new Map()));
  let byVictim = bySlot.get(slot);
  if (!byVictim) bySlot.set(slot, (byVictim = new Map()));
  let tools = byVictim.get(victim);
  if (!tools) {
    const sols = slotSolutions(task)[slot]!;
    const withVictim = new Set(sols.filter((p) => p.includes(victim)).flat());
    tools = new Set(
      sols
        .filter((p) => !p.includes(victim))
        .flat()
        .filter((t) => !withVictim.has(t)),
    );
    byVictim.set(victim, tools);
  }
  return tools;
}

const downstreamCache = new Memo<Task, Map<number, ReadonlySet<string>>>("downstreamTools");
/** Tools of the positions downstream of `position` (a pure function of the task, cached on its identity). */
export function downstreamTools(task: Task, position: number): ReadonlySet<string> {
  let byPos = downstreamCache.get(task);
  if (!byPos) downstreamCache.set(task, (byPos = new Map()));
  let tools = byPos.get(position);
  if (!tools) {
    tools = new Set([...downstreamPositions(task, position)].flatMap((p) => task.positions[p]!.members));
    byPos.set(position, tools);
  }
  return tools;
}
