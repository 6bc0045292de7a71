import type { Info } from "../../core/env.js";
import { type JsonValue, stableStringify } from "../../core/json.js";
import { make, registryEntry } from "../../core/registry.js";
import { Rng } from "../../core/rng.js";
import type { Action } from "../actions.js";
import type { DiscreteToolEnv } from "./mode.js";

/** Why a scripted policy's action had no candidate. */
export interface Unreachable {
  seed: number;
  step: number;
  action: Action;
}

/** One discrete episode driven by a structured policy: indices chosen, the structured actions they stood for. */
export interface DrivenEpisode {
  seed: number;
  indices: number[];
  actions: Action[];
  /** Set when the policy asked for an action that was no candidate (the episode stops there). */
  unreachable: Unreachable | null;
  success: boolean;
}

/**
 * The candidate index that stands for `action`, or -1. Exact equality of the parsed actions, except that an abort's
 * free-text `reason` is not part of the action list (the abort candidate carries none; no family judges the reason).
 */
export function candidateIndexOf(env: DiscreteToolEnv, action: Action): number {
  const parsed = env.inner.actionSpace.parse(action);
  const list = env.candidateActions();
  if (parsed.type === "abort") return list.findIndex((a) => a.type === "abort");
  const key = stableStringify(parsed as unknown as JsonValue);
  return list.findIndex((a) => stableStringify(env.inner.actionSpace.parse(a) as unknown as JsonValue) === key);
}

/**
 * Plays one episode of env `id` in the discrete mode, choosing at every step the candidate equal to what the
 * registered structured policy `policy` (e.g. the oracle) would do. This is the reachability check of
 * docs/DISCRETE.md: the policy's whole action sequence must be expressible as candidates.
 */
export function driveDiscrete(id: string, options: Record<string, unknown>, policy: string, seed: number, maxSteps = 1000): DrivenEpisode {
  const env = make(id, { ...options, actionMode: "discrete" }) as unknown as DiscreteToolEnv;
  const entry = registryEntry(id).policies[policy];
  if (!entry) throw new Error(`${id} has no policy "${policy}"`);
  const p = entry.create(env.inner as never, new Rng(seed).derive("policy"));
  const [, resetInfo] = env.reset({ seed });
  const stripped = (info: Info): Info => {
    const { action_mask: _m, structured_action: _s, ...rest } = info;
    return rest;
  };
  p.reset?.(env.structuredObservation(), stripped(resetInfo));
  let info: Info = stripped(resetInfo);
  const out: DrivenEpisode = { seed, indices: [], actions: [], unreachable: null, success: false };
  for (let t = 0; t < maxSteps; t++) {
    const action = p.act(env.structuredObservation(), info) as Action;
    const index = candidateIndexOf(env, action);
    if (index < 0) {
      out.unreachable = { seed, step: t, action };
      break;
    }
    const [, , terminated, truncated, stepInfo] = env.step(index);
    out.indices.push(index);
    out.actions.push(stepInfo.structured_action as Action);
    info = stripped(stepInfo);
    if (terminated || truncated) {
      out.success = stepInfo.success === true;
      break;
    }
  }
  env.close();
  return out;
}
