import type { JsonObject, JsonValue } from "../core/json.js";

/** How a fault shows itself: a machine-readable error, or a plausible but wrong response. */
export type FaultVisibility = "explicit" | "implicit";
/** transient = first matching call only; temporary = the first `attempts` matching calls; permanent = always. */
export type FaultPersistenceType = "transient" | "temporary" | "permanent";

/** Why an episode ended (`info.terminationReason`). */
export type TerminationReason =
  | "success"
  | "answered"
  | "aborted"
  | "max_steps"
  | "budget_exceeded"
  | "retry_exceeded"
  | "invalid_action"
  | (string & {});

/**
 * Everything that happened in a step, as typed data. Rewards, metrics and trajectory analyses are computed from
 * these (never from side channels), so an ablation can always be recomputed offline.
 */
export type CoreEvent =
  | { type: "tool_called"; tool: string; callIndex: number; arguments: JsonObject; ok: boolean }
  | { type: "tool_error"; tool: string; callIndex: number; code: string; source: ToolErrorSource; message: string }
  | {
      type: "fault_injected";
      tool: string;
      callIndex: number;
      faultId: string;
      kind: string;
      visibility: FaultVisibility;
      persistence: FaultPersistenceType;
    }
  | { type: "retry"; tool: string; callIndex: number; ofCallIndex: number; afterFault: boolean; persistence: FaultPersistenceType | null }
  | { type: "alternative_switch"; from: string; to: string; group: string; callIndex: number; afterFault: boolean }
  | { type: "poisoned_value_reused"; tool: string; callIndex: number; argument: string; sourceCallIndex: number; taint: "corrupted" | "untrusted" }
  | { type: "forbidden_call"; tool: string; callIndex: number; reason: string; mutation: boolean }
  | { type: "verification_call"; tool: string; callIndex: number; verifies: string; ofCallIndex: number }
  | { type: "budget_exceeded"; budget: BudgetName; limit: number }
  | { type: "invalid_action"; field: string; message: string }
  | { type: "answered"; content: string; correct: boolean | null }
  | { type: "aborted"; reason: string | null }
  | { type: "success" };

/**
 * Where a tool error came from: the agent's own mistake, an injected fault, the simulator's normal errors, or a
 * call charged past the tool-call budget (budget rule `calls: "record"`, see src/engine/budgets.ts).
 */
export type ToolErrorSource = "unknown_tool" | "not_visible" | "validation" | "fault" | "simulator" | "budget";
/**
 * Budgets whose exhaustion *terminates* an episode with a `budget_exceeded` event: tool calls
 * (terminationReason `budget_exceeded`) and retries (`retry_exceeded`). The step limit is deliberately not one of
 * them: running out of steps is a Gymnasium truncation (truncated = true, terminationReason `max_steps`), with no
 * budget event and no budget penalty, as with Gymnasium's TimeLimit.
 */
export const BUDGET_NAMES = ["tool_calls", "retries"] as const;
export type BudgetName = (typeof BUDGET_NAMES)[number];

/** A family-specific event: `type` is namespaced `family:name` so it never collides with core events. */
export interface FamilyEvent {
  type: `${string}:${string}`;
  [field: string]: JsonValue;
}

/**
 * Typed family events. A family declares the fields of each of its events by merging into this interface
 * (`declare module ".../src/family.js" { interface FamilyEventRegistry { "family:name": { ... } } }`); those
 * events are then typed members of `EpisodeEvent`, and `eventsOfType` narrows to them. Keys must be `family:name`.
 */
export interface FamilyEventRegistry {}

/** The registered family events, each as `{ type, ...fields }`. */
export type RegisteredFamilyEvent = {
  [K in keyof FamilyEventRegistry]: K extends `${string}:${string}` ? { type: K } & FamilyEventRegistry[K] : never;
}[keyof FamilyEventRegistry];

/** Events whose shape is known statically: the core ones and every registered family event. */
export type TypedEvent = CoreEvent | RegisteredFamilyEvent;

export type EpisodeEvent = TypedEvent | FamilyEvent;

/** Documented so `checkEnv` can verify that every event type an env emits is known. */
export const CORE_EVENT_TYPES: readonly CoreEvent["type"][] = [
  "tool_called",
  "tool_error",
  "fault_injected",
  "retry",
  "alternative_switch",
  "poisoned_value_reused",
  "forbidden_call",
  "verification_call",
  "budget_exceeded",
  "invalid_action",
  "answered",
  "aborted",
  "success",
];

export function eventsOfType<T extends TypedEvent["type"]>(events: readonly EpisodeEvent[], type: T): Extract<TypedEvent, { type: T }>[] {
  return events.filter((e): e is Extract<TypedEvent, { type: T }> => e.type === type);
}
