import type { JsonObject, JsonPrimitive, JsonValue } from "../core/json.js";
import type { Rng } from "../core/rng.js";
import type { FaultVisibility } from "./events.js";
import type { ToolErrorPayload, ToolMeta } from "./tool.js";

/** When a fault fires. All present conditions must hold; `prob` is drawn last, and only if the rest hold. */
export interface FaultTrigger {
  tools?: string[];
  /** Any tool whose `meta.group` is this group. */
  group?: string;
  /** With `group`: the first member the agent calls becomes the victim; no other member is ever perturbed. */
  bindFirstInGroup?: boolean;
  /** 1-based index among all tool calls of the episode. */
  nthCall?: number;
  /** Argument equality, or `{ regex }` tested against the argument's string form. */
  argMatches?: Record<string, JsonPrimitive | { regex: string }>;
  /** Fires with this probability, from a stream private to this fault. */
  prob?: number;
}

export type FaultPersistence = { type: "transient" } | { type: "permanent" } | { type: "temporary"; attempts: number };

/**
 * What the fault does. `error` and `replace` skip the simulator (the call never reaches the service, or a silent
 * no-op answers success without writing); `corrupt` runs it and rewrites its output.
 */
export type FaultEffect =
  /**
   * `errorByTool` lets a group-bound fault answer in the victim's own error format (APIs disagree on error bodies).
   * `perEpisodeResponse`: the spec is shared by many episodes (a family caches it), so the engine gives each episode
   * its own copy of the error response, made at the first fire and returned by every later fire of the episode:
   * exactly what the agent would get from a spec built per episode.
   */
  | { type: "error"; error: ToolErrorPayload; errorByTool?: Record<string, ToolErrorPayload>; perEpisodeResponse?: boolean }
  | { type: "replace"; output?: JsonValue; transform?: string; params?: JsonObject }
  | { type: "corrupt"; transform: string; params?: JsonObject };

/** A fault as plain data, so fault plans can live in task files and episode state stays serialisable. */
export interface FaultSpec {
  id: string;
  kind: string;
  visibility: FaultVisibility;
  persistence: FaultPersistence;
  trigger: FaultTrigger;
  effect: FaultEffect;
}

/** Mutable per-episode state of one fault. */
export interface FaultState {
  victim: string | null;
  hits: number;
}

/** A named corruption: a pure function of the call and the simulator's output (null when the simulator was skipped). */
export type CorruptionFn<S = unknown> = (input: {
  tool: string;
  args: JsonObject;
  output: JsonValue | null;
  params: JsonObject;
  state: S;
  rng: Rng;
}) => JsonValue;

export function initialFaultState(): FaultState {
  return { victim: null, hits: 0 };
}

function argMatches(args: JsonObject, cond: Record<string, JsonPrimitive | { regex: string }>): boolean {
  for (const [key, want] of Object.entries(cond)) {
    const got = args[key];
    if (want !== null && typeof want === "object") {
      if (got === undefined || !new RegExp(want.regex).test(typeof got === "string" ? got : JSON.stringify(got))) return false;
    } else if (got !== want) return false;
  }
  return true;
}

/**
 * Decides whether `fault` fires for this call and updates its state. The victim binding happens on the first call
 * into the group even when another condition (e.g. nthCall) then fails, because the paper binds the fault to the
 * first member the agent touches.
 */
export function faultFires(
  fault: FaultSpec,
  state: FaultState,
  call: { tool: string; meta: ToolMeta | undefined; args: JsonObject; callIndex: number },
  draw: () => number,
): boolean {
  const t = fault.trigger;
  if (t.tools && !t.tools.includes(call.tool)) return false;
  if (t.group !== undefined) {
    if (call.meta?.group !== t.group) return false;
    if (t.bindFirstInGroup) {
      if (state.victim === null) state.victim = call.tool;
      else if (state.victim !== call.tool) return false;
    }
  }
  if (t.nthCall !== undefined && t.nthCall !== call.callIndex) return false;
  if (t.argMatches && !argMatches(call.args, t.argMatches)) return false;
  const p = fault.persistence;
  if (p.type === "transient" && state.hits >= 1) return false;
  if (p.type === "temporary" && state.hits >= p.attempts) return false;
  if (t.prob !== undefined && !(draw() < t.prob)) return false;
  state.hits += 1;
  if (state.victim === null) state.victim = call.tool;
  return true;
}
