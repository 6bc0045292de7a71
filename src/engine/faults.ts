import { type JsonObject, type JsonPrimitive, type JsonValue, jsonEquals } from "../core/json.js";
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
  /** Any tool whose hidden meta has all these values (a class of tools, e.g. a benchmark's decoys of one kind). */
  meta?: Record<string, JsonPrimitive>;
  /** 1-based index among all tool calls of the episode. */
  nthCall?: number;
  /** Argument equality, or `{ regex }` tested against the argument's string form. */
  argMatches?: Record<string, JsonPrimitive | { regex: string }>;
  /**
   * Argument equality with values of any shape, as benchmark data spells it (ToolMisuseBench `when_arg_matches`):
   * a missing argument compares as null, and the comparison is the caller's `equals` (default: JSON equality), so
   * a harness with another notion of equality (Python's `True == 1`) keeps it.
   */
  argEquals?: Record<string, JsonValue>;
  /** Fires with this probability, from a stream private to this fault. */
  prob?: number;
}

/**
 * How long a fault keeps firing. `transient` with `byTrigger`: the trigger itself fires once (a global call index,
 * a seeded `prob` cut), so the state machine counts hits without capping them and every later matching call still
 * draws its `prob` exactly as the benchmark's own harness draws it.
 */
export type FaultPersistence =
  | { type: "transient"; byTrigger?: boolean }
  | { type: "permanent" }
  | { type: "temporary"; attempts: number };

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
  | { type: "corrupt"; transform: string; params?: JsonObject }
  /**
   * The tool is a decoy by design (PlanBench-XL's noisy and blocker siblings always fail or answer a wrong value):
   * its own simulator answers, and the call counts as faulted (events, `untrusted` taint, retry / switch detection).
   */
  | { type: "decoy" }
  /**
   * Applied by the family in the order its benchmark's harness fixes (ToolMisuseBench: schema drift, then denials,
   * then error rewrites); the engine decides only whether the fault fires. The default call pipeline refuses it.
   */
  | { type: "family"; name: string };

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

/** Value equality for `argEquals`. */
export type ArgEquals = (got: JsonValue, want: JsonValue) => boolean;

function argEquals(args: JsonObject, cond: Record<string, JsonValue>, equals: ArgEquals): boolean {
  for (const [key, want] of Object.entries(cond)) if (!equals(args[key] ?? null, want)) return false;
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
  equals: ArgEquals = jsonEquals,
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
  if (t.meta) for (const k in t.meta) if (call.meta?.[k] !== t.meta[k]) return false;
  if (t.nthCall !== undefined && t.nthCall !== call.callIndex) return false;
  if (t.argMatches && !argMatches(call.args, t.argMatches)) return false;
  if (t.argEquals && !argEquals(call.args, t.argEquals, equals)) return false;
  const p = fault.persistence;
  if (p.type === "transient" && !p.byTrigger && state.hits >= 1) return false;
  if (p.type === "temporary" && state.hits >= p.attempts) return false;
  if (t.prob !== undefined && !(draw() < t.prob)) return false;
  state.hits += 1;
  if (state.victim === null) state.victim = call.tool;
  return true;
}
