/**
 * ToolMaze's requests as data: per request (a parallel slot; C4 tasks have several), what its sentence states — the
 * operations it names, the one it ends with, the literals it quotes. The prompt names the same steps in prose
 * (task/text.ts renders exactly these positions: alternative routes collapse to their first branch), so this
 * restates the request and reveals nothing the text does not: no substitutes, no alternative branches, no faults.
 */
import type { TaskParameter } from "../../src/family.js";
import type { Position, Task } from "./task/model.js";

/** The positions a request's sentence names (the filter of text.ts's `slotSteps`). */
function statedPositions(task: Task, slot: number): Position[] {
  return task.positions.filter((p) => p.slot === slot && (!p.route || p.route.branch === 0));
}

/** One `target: "request"` parameter per request, in the order the prompt lists them. */
export function requestParameters(task: Task): TaskParameter[] {
  return task.slots.map((s, i) => {
    const stated = statedPositions(task, s.slot);
    const values = stated.flatMap((p) => Object.values(p.bindings).flatMap((b) => (b.kind === "literal" ? [b.value] : [])));
    return {
      name: `request_${i + 1}`,
      target: "request",
      request: { steps: stated.map((p) => p.cap), goal: task.positions.find((p) => p.index === s.goal)!.cap, values },
    };
  });
}
