import type { JsonValue } from "../core/json.js";
import { Dict, Json, Sequence, Text } from "../core/spaces/index.js";
import { Discrete } from "../core/spaces/discrete.js";
import type { Space } from "../core/spaces/space.js";
import type { ToolSchema } from "../core/spaces/toolCall.js";

/** Remaining budgets; null = unlimited. */
export interface BudgetView {
  steps: number | null;
  toolCalls: number | null;
  retries: number | null;
}

/**
 * What an agent observes each step. Tool schemas are sent once, when they become visible (`newTools`), so a step's
 * payload stays small; `visibleTools` names what may be called right now.
 *
 * The three lists are frozen: while the visible set stays the same, every observation hands out the same
 * `visibleTools` array (and shared empty `newTools` / `removedTools`), so a step copies no list and a consumer can
 * tell "unchanged" by identity. Copy a list (`slice()`) to edit it. The schemas in `newTools` are frozen too, one
 * per tool definition, and every episode that shows the tool hands out the same object.
 */
export interface ToolObservation {
  /** The task prompt (constant during an episode). */
  task: string;
  visibleTools: readonly string[];
  newTools: readonly ToolSchema[];
  removedTools: readonly string[];
  /** The latest tool response, error payload, or family response (null right after reset). */
  response: JsonValue;
  step: number;
  budget: BudgetView;
}

export const BUDGET_SPACE = new Json();

/** The observation space shared by every tool env. */
export function toolObservationSpace(maxSteps: number): Space<ToolObservation> {
  return new Dict({
    task: new Text(1_000_000),
    visibleTools: new Sequence(new Text(512, 1)),
    newTools: new Sequence(new Json()),
    removedTools: new Sequence(new Text(512, 1)),
    response: new Json(),
    step: new Discrete(maxSteps + 1),
    budget: BUDGET_SPACE,
  }) as unknown as Space<ToolObservation>;
}
