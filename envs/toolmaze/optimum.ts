/**
 * The optimum c* that recovery cost compares against (SEEDS §1: the minimum number of further calls from the first
 * perturbed response). The paper's value is an oracle's: it knows the fault's persistence, so when a permanent fault
 * leaves no way around it the optimum is to stop at once (c* = 0). ToolMaze-v1 makes transient and permanent faults
 * look alike (one error-text pool; a corrupted value reads the same whichever its persistence), so no policy that acts
 * on what it has seen can stop there without failing the transient twin of the same episode. v1 therefore measures
 * against the cheapest policy that succeeds in every world consistent with its observations.
 */
import type { FaultProfile, SlotFault } from "./faults.js";
import { downstreamPositions, slotSolutions } from "./task/facts.js";
import type { Task } from "./task/model.js";

/**
 * Whose minimum c* is. "oracle": the paper's formula read literally (v0). "observable": the minimum over policies that
 * see only responses and must succeed whichever persistence the fault has (v1).
 */
export type RecoveryOptimum = "oracle" | "observable";

/**
 * Permanent faults that leave their slot without any path: their group has one member and every solution of the slot
 * goes through it (C1 under P2/P4). A task with one is unsolvable; only a wise abort succeeds.
 */
export function doomedFaults(task: Task, profile: FaultProfile): SlotFault[] {
  const sols = slotSolutions(task);
  return profile.faults.filter(
    (f) =>
      f.persistence === "permanent" &&
      task.positions[f.position]!.members.length < 2 &&
      sols[f.slot]!.every((p) => p.some((t) => task.positions[f.position]!.members.includes(t))),
  );
}

/**
 * c* of an observable policy, from the first perturbed response (caused by `first`), given the tools executed cleanly
 * before it and the oracle's minimum `oracleMin`.
 *
 * Where a way around the fault exists, switching to it at once succeeds whether the fault is transient or permanent,
 * and retrying succeeds when it is transient: each world's oracle minimum is reachable by a policy that does not
 * know the persistence, so the oracle's value stands. Where a permanent fault leaves no way around (the task is
 * unsolvable), stopping is right only once permanence is proven: the same failure twice, so the doomed victim must be
 * called (with whatever it needs upstream, if it has not fired yet) and retried once. Stopping earlier would fail the
 * same episode under its transient twin, which shows the same first response.
 */
export function observableMinCalls(
  task: Task,
  profile: FaultProfile,
  cleanBefore: ReadonlySet<string>,
  first: SlotFault,
  oracleMin: number,
): number {
  const doomed = doomedFaults(task, profile);
  if (doomed.length === 0) return oracleMin;
  let best = Infinity;
  for (const f of doomed) {
    // Its victim has just failed: one retry shows the failure is permanent.
    if (f.id === first.id) return 1;
    // Not reached yet: the cheapest way to call its group (unfinished steps upstream and the call itself), then a retry.
    const needed = (pos: number): boolean => pos === f.position || downstreamPositions(task, pos).has(f.position);
    for (const path of slotSolutions(task)[f.slot]!) {
      let calls = 1;
      for (const t of path) if (!cleanBefore.has(t) && needed(task.positions.find((q) => q.members.includes(t))!.index)) calls++;
      best = Math.min(best, calls);
    }
  }
  return best;
}
