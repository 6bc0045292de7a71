import type { JsonObject, JsonValue } from "../core/json.js";
import type { Rng } from "../core/rng.js";
import type { ToolSchema } from "../core/spaces/toolCall.js";
import type { ToolSemantics } from "./parameters.js";

/** Hidden facts about a tool: never shown to the agent, used by faults, events and scorers. */
export interface ToolMeta {
  /** Alternative group: tools in one group are functionally equivalent substitutes. */
  group?: string;
  category?: string;
  domain?: string;
  /** The tool changes world state (a write); forbidden-mutation rules and read-back checks key on this. */
  mutates?: boolean;
  /** Names of write tools whose effect this (read) tool lets the agent verify. */
  verifies?: string[];
  [key: string]: JsonValue | undefined;
}

/** A tool's normal error payload, in the style of an HTTP API error body. */
export interface ToolErrorPayload {
  code: string;
  message: string;
  status?: number;
  details?: JsonObject;
  /**
   * The response body the agent receives, when the tool answers errors in its own API's format (real APIs disagree:
   * `{error:{…}}`, problem+json, `{errors:[…]}`, SOAP faults). Default: the uniform `{ error: payload }` wrapper. The
   * call still fails (`ok: false`), and `tool_error` events report `code` and `message` either way.
   */
  body?: JsonObject;
}

/**
 * What running a tool produced. `taint: "untrusted"` marks outputs the agent should not rely on (e.g. noisy or
 * non-authoritative tools); the ledger tracks where such values flow.
 */
export type ToolOutcome = { ok: true; output: JsonValue; taint?: "untrusted" } | { ok: false; error: ToolErrorPayload };

export interface ToolContext<S> {
  /** The episode's world state: plain data, mutated in place by writes. */
  state: S;
  /** 1-based index of this call among all tool calls of the episode. */
  callIndex: number;
  step: number;
  /** A stream private to this call (derived from the episode seed and the call index). */
  rng(): Rng;
}

/** A tool: its public schema (what the agent sees), hidden metadata, and a deterministic simulator. */
export interface ToolDefinition<S = unknown> extends ToolSchema {
  meta?: ToolMeta;
  /**
   * The tool's own argument rules, checked instead of its JSON schema (a benchmark whose official harness fixes them,
   * e.g. PlanBench-XL's exact key set and trusted-input rule): an error payload refuses the call (source
   * `validation`), null lets it through to the faults and the simulator.
   */
  checkArguments?(args: JsonObject, state: S): ToolErrorPayload | null;
  /** Semantic types of parameters and response fields, as the documentation states them (discrete mode binds by them). */
  semantics?: ToolSemantics;
  run(args: JsonObject, ctx: ToolContext<S>): ToolOutcome;
}

/** The agent-facing view of a tool (no meta, no simulator). */
export function toolSchemaOf(tool: ToolSchema): ToolSchema {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}
