import { type Candidate, candidates } from "../../src/engine/discrete/candidates.js";
import { CANDIDATE_FEATURES, encodeFeatures, GLOBAL_FEATURES } from "../../src/engine/discrete/features.js";
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

/** One candidate slot's features by name. */
export type NamedSlot = Record<(typeof CANDIDATE_FEATURES)[number], number>;

/**
 * An episode's encoded discrete observation by feature name: the globals, and each candidate slot's features keyed
 * by `keyOf` (a tool name, a call with its arguments, ...), so a test asserts on `slot.get(key).feature_name`.
 */
export function namedFeatures(
  ep: ObservableEpisode,
  limits: Parameters<typeof candidates>[1],
  keyOf: (candidate: Candidate) => string,
): { global: Record<string, number>; slot: Map<string, NamedSlot> } {
  const list = candidates(ep, limits);
  const out = encodeFeatures(ep, list, limits.maxCandidates);
  const g = GLOBAL_FEATURES.length;
  const c = CANDIDATE_FEATURES.length;
  const named = (i: number) => Object.fromEntries(CANDIDATE_FEATURES.map((n, j) => [n, out[g + i * c + j]])) as NamedSlot;
  return {
    global: Object.fromEntries(GLOBAL_FEATURES.map((n, i) => [n, out[i]])),
    slot: new Map(list.map((cand, i) => [keyOf(cand), named(i)])),
  };
}
