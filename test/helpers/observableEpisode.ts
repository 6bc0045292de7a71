import type { ObservableEpisode, SeenCall, SeenTool } from "../../src/engine/discrete/source.js";
import type { TaskParameter } from "../../src/index.js";

/**
 * A hand-built observable episode for the discrete mode's unit tests: the given task parameters, tools and calls,
 * each tool's own semantics, no budgets, nothing suspicious, not done.
 */
export function observableEpisode(parameters: TaskParameter[], tools: SeenTool[], calls: SeenCall[] = []): ObservableEpisode {
  const byName = new Map(tools.map((t) => [t.name, t.semantics]));
  return {
    parameters,
    tools,
    calls,
    actions: [],
    semanticsOf: (name) => byName.get(name) ?? null,
    familyKinds: {},
    step: calls.length,
    maxSteps: 20,
    budget: { toolCalls: null, toolCallLimit: null, retryLimit: null },
    suspicious: () => false,
    inconsistent: () => false,
    lastResponse: null,
    done: false,
  };
}
