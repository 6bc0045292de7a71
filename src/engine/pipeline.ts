/**
 * The call pipeline's options for a benchmark whose harness fixes another order or wording than the engine's
 * default (ToolMisuseBench): the pipeline order, the validator, the family fault stage, pattern and budget rules,
 * and the response envelope. ToolEpisode (episode.ts) runs them.
 */
import type { JsonObject, JsonValue } from "../core/json.js";
import type { BudgetRules } from "./budgets.js";
import type { ToolErrorSource } from "./events.js";
import type { FaultSpec } from "./faults.js";
import type { PatternRules } from "./patterns.js";
import type { ToolDefinition, ToolErrorPayload } from "./tool.js";

/** One call as a family fault stage sees it (arguments after earlier rewrites). */
export interface StageCall {
  tool: string;
  args: JsonObject;
  callIndex: number;
}

/** What a call produced before the stage's `after` (or the family's `respond`) sees it. */
export type StageOutcome = { ok: true; output: JsonValue } | { ok: false; error: ToolErrorPayload; source: ToolErrorSource };

/**
 * Faults whose effects a benchmark's harness applies in its own order (`FaultEffect` type `family`; whether each
 * fires is still the engine's `faultFires`). `before` runs first for every call that is not refused or charged by
 * a budget: it may rewrite the arguments (schema drift) or pre-empt the call with an error (a denial). Its `after`
 * sees the call's outcome (the pre-empting error, a validation error, the simulator's result) and may rewrite it
 * (an adversarial error message); it names every fault that fired on the call, in the order the benchmark lists
 * them (its `fault_injected` events and `CallRecord.faults` follow that order).
 */
export interface FamilyFaultStage {
  before(call: StageCall): {
    args: JsonObject;
    error: ToolErrorPayload | null;
    after(call: StageCall, outcome: StageOutcome): { outcome: StageOutcome; fired: readonly FaultSpec[] };
  };
}

/**
 * The pipeline options a benchmark whose harness fixes another order or wording sets (ToolMisuseBench); every
 * field defaults to the engine's own behaviour.
 */
export interface CallPipeline<S> {
  /**
   * `"validate_first"` (default): unknown tool -> visibility -> arguments -> faults -> simulator. `"faults_first"`:
   * the family fault stage runs before validation, so a denial answers even a malformed call and a schema drift
   * is what validation sees (ToolMisuseBench's drift -> authz -> rate limit -> timeout -> validation -> simulator).
   */
  order?: "validate_first" | "faults_first";
  /** Replaces the engine's argument check (and the unknown-tool error) with the benchmark's own validator. */
  validate?: (tool: string, def: ToolDefinition<S> | undefined, args: JsonObject) => ToolErrorPayload | null;
  familyFaults?: FamilyFaultStage;
  patternRules?: PatternRules;
  budgetRules?: BudgetRules;
  /**
   * The recorded response of a call in the benchmark's envelope (default: the output, or the error body). It gets
   * the arguments the simulator saw (after rewrites).
   */
  respond?: (call: StageCall, outcome: StageOutcome) => JsonValue;
  /** What the agent is shown of a recorded response (default: all of it), e.g. without fault metadata. */
  view?: (response: JsonValue) => JsonValue;
}
