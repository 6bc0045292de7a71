import type { Info } from "../../core/env.js";
import { type JsonValue, stableStringify } from "../../core/json.js";
import { make, registryEntry } from "../../core/registry.js";
import { Rng } from "../../core/rng.js";
import type { Action } from "../actions.js";
import { DiscreteToolEnv } from "./mode.js";

/** `make(id)` in the discrete mode, checked at run time rather than cast. */
function makeDiscrete(id: string, options: Record<string, unknown>): DiscreteToolEnv {
  const env = make(id, { ...options, actionMode: "discrete" });
  if (!(env instanceof DiscreteToolEnv)) throw new Error(`${id}: the discrete action mode did not apply`);
  return env;
}

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
  /**
   * Steps where the policy's message (an answer or a family action made only of text, e.g. `ask_user`) or free
   * choice (a tool call with an argument value the agent never held: "a search of your choice") had no identical
   * candidate but one of the same kind (and tool) with exactly the same outcome (reward terms, success, metrics,
   * event types).
   */
  equivalent: number[];
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
  const env = makeDiscrete(id, options);
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
  const out: DrivenEpisode = { seed, indices: [], actions: [], equivalent: [], unreachable: null, success: false };
  let probe: DiscreteToolEnv | null = null;
  for (let t = 0; t < maxSteps; t++) {
    const action = p.act(env.structuredObservation(), info) as Action;
    let index = candidateIndexOf(env, action);
    if (index < 0 && (isMessage(action) || isFreeChoice(env, action))) {
      probe ??= makeDiscrete(id, options);
      index = equivalentMessageIndex(env, probe, action);
      if (index >= 0) out.equivalent.push(t);
    }
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
  probe?.close();
  return out;
}

/** A message: an answer, or a family action whose fields are all text (a question to the user). */
function isMessage(a: Action): boolean {
  if (a.type === "answer") return true;
  if (a.type === "tool_call" || a.type === "abort") return false;
  return Object.entries(a).every(([k, v]) => k === "type" || typeof v === "string");
}

/**
 * A tool call with an argument value that is neither a task parameter nor part of a response the agent received
 * (scalars and structures, at any depth): the policy chose it freely, as an instruction may leave a value open.
 */
function isFreeChoice(env: DiscreteToolEnv, a: Action): boolean {
  if (a.type !== "tool_call") return false;
  const ep = env.inner.observableEpisode();
  if (!ep) return false;
  const held = new Set<string>();
  const collect = (v: JsonValue): void => {
    if (v !== null && typeof v === "object") for (const x of Object.values(v)) collect(x);
    held.add(stableStringify(v));
  };
  for (const p of ep.parameters) if (p.value !== undefined) collect(p.value);
  for (const c of ep.calls) if (c.ok) collect(c.response);
  return Object.values(a.arguments ?? {}).some((v) => !held.has(stableStringify(v)));
}

/** What a step did, without the message's own words. */
function outcomeKey(step: ReturnType<DiscreteToolEnv["inner"]["step"]>): string {
  const [, reward, terminated, truncated, info] = step;
  const events = info.events.map((e) => e.type);
  const what = [reward, terminated, truncated, info.success ?? null, info.metrics ?? null, info.rewardTerms, events];
  return stableStringify(what as unknown as JsonValue);
}

/** The candidate of the same kind whose outcome equals the message's, tried on a probe env restored to this state. */
function equivalentMessageIndex(env: DiscreteToolEnv, probe: DiscreteToolEnv, action: Action): number {
  const state = env.getState();
  probe.setState(state);
  const want = outcomeKey(probe.inner.step(action));
  const list = env.candidateActions();
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c.type !== action.type || (c.type === "tool_call" && action.type === "tool_call" && c.name !== action.name)) continue;
    probe.setState(state);
    if (outcomeKey(probe.inner.step(list[i])) === want) return i;
  }
  return -1;
}
