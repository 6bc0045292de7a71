/**
 * What the call pipeline records and returns per call (plain data), and the helpers both of its paths (the engine's
 * default one in episode.ts, a benchmark's staged one in staged.ts) build records with.
 */
import type { JsonObject, JsonValue } from "../core/json.js";
import type { Rng } from "../core/rng.js";
import { argumentIssues } from "../core/spaces/toolCall.js";
import type { CoreEvent, EpisodeEvent, FaultPersistenceType, ToolErrorSource } from "./events.js";
import type { FaultState } from "./faults.js";
import type { Taint } from "./ledger.js";
import type { ToolContext, ToolDefinition, ToolErrorPayload } from "./tool.js";

/** One tool call as recorded in the episode (plain data). */
export interface CallRecord {
  /** 1-based index among the episode's tool calls. */
  index: number;
  step: number;
  tool: string;
  arguments: JsonObject;
  ok: boolean;
  /** What the agent received: the (possibly corrupted) output, or the error payload. */
  response: JsonValue;
  errorSource: ToolErrorSource | null;
  /** Ids of faults that fired on this call. */
  faults: readonly string[];
  taint: Taint;
  /** Strongest persistence among fired faults, for retry/switch bookkeeping. */
  faultPersistence: FaultPersistenceType | null;
  /** Only under the `retries: "errors"` budget rule: the response the retry-budget overflow replaced. */
  overflowed?: JsonValue;
}

/** Serialisable state of the tool-calling part of an episode. */
export interface EpisodeData<S> {
  world: S;
  visible: string[];
  calls: CallRecord[];
  faultStates: Record<string, FaultState>;
  retries: number;
}

/** A budget that ended the episode with this call: the reason and the `budget_exceeded` event to report. */
export interface BudgetEnd {
  reason: "budget_exceeded" | "retry_exceeded";
  event: Extract<CoreEvent, { type: "budget_exceeded" }>;
}

/**
 * The result of `ToolEpisode.call`: the record (null when the tool-call budget refused the call), the events it
 * produced, the response the agent is shown, and the budget that ended the episode, if one did (its event is
 * reported after the family's own events of the call).
 */
export interface CallResult {
  record: CallRecord | null;
  /**
   * The episode's own copy of the call's arguments (what the record and the `tool_called` event hold), null when the
   * budget refused the call. The env's step history keeps this copy rather than the caller's object.
   */
  arguments: JsonObject | null;
  events: EpisodeEvent[];
  response: JsonValue;
  end: BudgetEnd | null;
}

/** An error payload as JSON (the same object: every field of ToolErrorPayload is JSON). */
function errorJson(error: ToolErrorPayload): JsonObject {
  return error as ToolErrorPayload & JsonObject;
}

/** What the agent receives for an error: the tool's own body when it has one, else the uniform wrapper. */
export function errorResponse(error: ToolErrorPayload): JsonValue {
  return error.body ?? { error: errorJson(error) };
}

/** The JSON-schema check of a call's arguments (tools without their own `checkArguments`). */
export function schemaError(def: ToolDefinition<unknown>, args: JsonObject): ToolErrorPayload | null {
  const issues = argumentIssues(def.parameters, args);
  if (!issues) return null;
  const message = issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ");
  return { code: "invalid_arguments", status: 400, message };
}

/** The `faults` of a call no fault fired on: one shared frozen array (records are read, never edited). */
export const NO_FAULTS: readonly string[] = Object.freeze([]);

/**
 * Records are built by a constructor, not an object literal: they live until the episode resets, so V8's
 * allocation-site pretenuring tenured the literal's site and every scavenge then promoted them (no-op step +70% in
 * bench/core.ts); `new` carries no allocation site. Instances hold only the CallRecord fields, in this order.
 */
export class CallRecordData implements CallRecord {
  index: number;
  step: number;
  tool: string;
  arguments: JsonObject;
  ok: boolean;
  response: JsonValue;
  errorSource: ToolErrorSource | null;
  faults: readonly string[];
  taint: Taint;
  faultPersistence: FaultPersistenceType | null;
  declare overflowed?: JsonValue;
  constructor(
    index: number,
    step: number,
    tool: string,
    args: JsonObject,
    ok: boolean,
    response: JsonValue,
    errorSource: ToolErrorSource | null,
    faults: readonly string[],
    taint: Taint,
    faultPersistence: FaultPersistenceType | null,
  ) {
    this.index = index;
    this.step = step;
    this.tool = tool;
    this.arguments = args;
    this.ok = ok;
    this.response = response;
    this.errorSource = errorSource;
    this.faults = faults;
    this.taint = taint;
    this.faultPersistence = faultPersistence;
  }
}

/** Order of fault persistence, for the strongest among the faults fired on a call. */
export const STRENGTH: Record<FaultPersistenceType, number> = { transient: 0, temporary: 1, permanent: 2 };

/**
 * The context a tool runs with. Its stream (`rng()`, derived from the episode's as `call:<index>`) is made only when
 * the tool asks for it: most tools never draw, so a call costs this one object. `rng` is read through an accessor
 * that hands out the function on demand, so `ctx.rng()` and a detached `const { rng } = ctx; rng()` both work, as
 * with the plain object and closure this replaces.
 */
export class ToolRunContext<S> implements ToolContext<S> {
  constructor(
    public state: S,
    public callIndex: number,
    public step: number,
    private readonly episodeRng: Rng,
  ) {}

  get rng(): () => Rng {
    const { episodeRng, callIndex } = this;
    return () => episodeRng.derive(`call:${callIndex}`);
  }
}
