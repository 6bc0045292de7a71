import type { ToolErrorPayload } from "./tool.js";
import { type BudgetLeft, BudgetLeftOf } from "./plainRecords.js";

/**
 * An episode's budgets (null or absent: unlimited). `steps` truncates the episode like the env's own step limit
 * (the smaller one applies); `toolCalls` and `retries` terminate it with a `budget_exceeded` event.
 */
export interface EpisodeBudgets {
  steps?: number | null;
  toolCalls?: number | null;
  retries?: number | null;
}

/**
 * How the call pipeline charges budgets. Benchmarks disagree, so each rule is an explicit choice:
 *
 * `calls`:
 * - `"refuse"` (default): a call past the tool-call budget is refused before the pipeline runs; it is not a call
 *   (no record, no `tool_called` event).
 * - `"record"` (ToolMisuseBench's harness): the call is charged first, before faults and validation, and recorded
 *   as a failed call with the `exceeded` error (error source `budget`), which the agent sees like any other.
 *
 * `retries`:
 * - `"retry_events"` (default): a detected `retry` event is charged when the earlier call visibly failed (an error
 *   response; a retry after a silent fault is not charged, since the remaining budget is observable); when the
 *   count passes the budget, the episode ends after that call, whose response is unchanged.
 * - `"errors"` (ToolMisuseBench's harness): every failed call (other than a budget refusal) is charged; the call
 *   that passes the budget has its error replaced by `retryExceeded(limit, error)` (the record keeps the replaced
 *   response in `overflowed`).
 */
export interface BudgetRules {
  calls: "refuse" | "record";
  retries: "retry_events" | "errors";
  /** The error of a call past the tool-call budget (`calls: "record"`). */
  exceeded?: ToolErrorPayload;
  /** The error that replaces the one of the call that overflows the retry budget (`retries: "errors"`). */
  retryExceeded?: (limit: number, replaced: ToolErrorPayload) => ToolErrorPayload;
}

export const DEFAULT_BUDGET_RULES: BudgetRules = { calls: "refuse", retries: "retry_events" };

/** The budgets with every field present (null: unlimited). Read-only: episodes without budgets share one. */
export interface ResolvedBudgets {
  readonly steps: number | null;
  readonly toolCalls: number | null;
  readonly retries: number | null;
}

export function resolveBudgets(b: EpisodeBudgets | undefined): ResolvedBudgets {
  // Shared and frozen when the family sets no budget (most episodes): it is read, never written.
  if (b === undefined) return NO_BUDGETS;
  return { steps: b?.steps ?? null, toolCalls: b?.toolCalls ?? null, retries: b?.retries ?? null };
}

const NO_BUDGETS: ResolvedBudgets = Object.freeze({ steps: null, toolCalls: null, retries: null });

/** The error of a call refused by the tool-call budget (`calls: "refuse"`). */
export function callBudgetError(limit: number): ToolErrorPayload {
  return { code: "budget_exceeded", message: `tool-call budget of ${limit} exhausted` };
}

/** Whether the next call is past the tool-call budget. */
export function callBudgetExhausted(budgets: ResolvedBudgets, callsMade: number): boolean {
  return budgets.toolCalls !== null && callsMade >= budgets.toolCalls;
}

/** Whether the retries charged so far overflow the retry budget. */
export function retryBudgetOverflowed(budgets: ResolvedBudgets, retries: number): boolean {
  return budgets.retries !== null && retries > budgets.retries;
}

/** The step at which the episode truncates: the env's step limit, or the episode's step budget if smaller. */
export function episodeStepLimit(maxSteps: number, budgets: ResolvedBudgets): number {
  return budgets.steps === null ? maxSteps : Math.min(maxSteps, budgets.steps);
}

/** What is left of each budget (the observation's `budget`), given the steps, calls and retries used so far. */
export function remainingBudgets(budgets: ResolvedBudgets, maxSteps: number, steps: number, calls: number, retries: number): BudgetLeft {
  // Positional counts rather than a `used` object: this runs on every observation.
  const left = budgets.steps === null ? maxSteps - steps : Math.min(Math.max(0, budgets.steps - steps), maxSteps - steps);
  // A plain object from a constructor, not a literal (see plainRecords.ts).
  const toolCalls = budgets.toolCalls === null ? null : Math.max(0, budgets.toolCalls - calls);
  return new BudgetLeftOf(left, toolCalls, budgets.retries === null ? null : Math.max(0, budgets.retries - retries));
}
