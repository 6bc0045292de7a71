/**
 * Plain-data types shared by the ToolMisuseBench simulators, fault engine and scorer.
 * They mirror the official harness's wire format (snake_case keys) so that official task
 * records, observations and transcripts round-trip unchanged.
 */

/** Any JSON value. Kept local so the world layer has no dependency on the core. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObj = { [key: string]: Json };

/** A structured tool error, as the official harness reports it (a type, not an interface: it is JSON data). */
export type ToolError = {
  code: string;
  message: string;
  details: JsonObj;
};

/** The official tool schema shape (closed JSON-schema object per tool). */
export interface OfficialToolSchema {
  name: string;
  properties: Record<string, { type: "string" | "integer" | "number" | "boolean" | "object" | "array" }>;
  required: string[];
  additionalProperties: boolean;
}

/** One agent action in the official format. */
export interface OfficialAction {
  tool_name: string;
  args: JsonObj;
}

/** Result of running a simulator on a validated call. */
export type SimResult = { output: JsonObj; error: null } | { output: null; error: ToolError };

/** A transcript entry: effective (possibly drifted) arguments plus output or error (JSON data, hence a type). */
export type TranscriptEntry = {
  tool_name: string;
  args: JsonObj;
  output: JsonObj | null;
  error: ToolError | null;
};

/** Remaining budget as the agent sees it (floored at 0). */
export interface RemainingBudget {
  steps_left: number;
  tool_calls_left: number;
  retries_left: number;
}

/** The official observation. */
export interface OfficialObservation {
  instruction: string;
  tool_schemas: OfficialToolSchema[];
  transcript: TranscriptEntry[];
  remaining_budget: RemainingBudget;
  last_error: ToolError | null;
}

/**
 * Which behaviour to follow where the official harness has a known quirk (reference §8).
 * "official" reproduces score-relevant quirks for parity; "fixed" is our corrected default.
 */
export type CompatMode = "official" | "fixed";

export function deepCopy<T extends Json>(x: T): T {
  // structuredClone keeps key order and is exact for JSON data.
  return structuredClone(x);
}

export function isObj(x: unknown): x is JsonObj {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
