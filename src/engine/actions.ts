import { z } from "zod";
import type { JsonObject, JsonValue } from "../core/json.js";

/** Call a visible tool. */
export interface ToolCallAction {
  type: "tool_call";
  name: string;
  arguments: JsonObject;
}
/** Final answer / message to the user; ends the episode (unless a family expects more turns). */
export interface AnswerAction {
  type: "answer";
  content: string;
}
/** Graceful termination: the agent gives up on purpose (a "wise abort" when nothing else is safe). */
export interface AbortAction {
  type: "abort";
  reason?: string;
}
/** A family's own action kind (e.g. PlanBench-XL's `retrieve`): a tagged JSON object. */
export interface FamilyAction {
  type: string;
  [field: string]: JsonValue | undefined;
}
export type CoreAction = ToolCallAction | AnswerAction | AbortAction;
export type Action = CoreAction | FamilyAction;

const jsonObject: z.ZodType<JsonObject> = z.record(z.string(), z.json());

export const toolCallActionSchema = z
  .object({ type: z.literal("tool_call"), name: z.string().min(1), arguments: jsonObject.default({}) })
  .strict();
export const answerActionSchema = z.object({ type: z.literal("answer"), content: z.string() }).strict();
export const abortActionSchema = z.object({ type: z.literal("abort"), reason: z.string().optional() }).strict();

export const CORE_ACTION_SCHEMAS = {
  tool_call: toolCallActionSchema,
  answer: answerActionSchema,
  abort: abortActionSchema,
} as const;

export function isToolCall(a: Action): a is ToolCallAction {
  return a.type === "tool_call";
}
