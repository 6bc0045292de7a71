/**
 * Action and observation shapes of PlanBenchXL-v0 (zod-validated actions).
 *
 * Why a `text` action: an LLM's raw reply can be the action, parsed with the official tag rules,
 * so trainers can plug a model in without writing a parser.
 */
import { z } from "zod";

// JSON all the way down (z.json()), so a parsed action is an engine `Action` without a cast.
export const RetrieveActionSchema = z.object({
  type: z.literal("retrieve"),
  meta_tool: z.string(),
  output_information: z.json().optional(),
  input_information: z.json().optional(),
});
export const ToolCallActionSchema = z.object({
  type: z.literal("tool_call"),
  name: z.string(),
  arguments: z.record(z.string(), z.json()),
});
export const AnswerActionSchema = z.object({ type: z.literal("answer"), content: z.string() });
/** The official answer (`<final_answer>`): judged by the official rules, and with feedback enabled it may not end the episode. */
export const FinalAnswerActionSchema = z.object({ type: z.literal("final_answer"), content: z.string() });
export const TextActionSchema = z.object({ type: z.literal("text"), text: z.string() });

export const PlanBenchActionSchema = z.discriminatedUnion("type", [
  RetrieveActionSchema,
  ToolCallActionSchema,
  AnswerActionSchema,
  FinalAnswerActionSchema,
  TextActionSchema,
]);
export type PlanBenchAction = z.infer<typeof PlanBenchActionSchema>;

/** A tool as the agent sees it (OpenAI function format; datatypes stay hidden). */
export interface VisibleTool {
  type: "function";
  name: string;
  description: string;
  strict: boolean;
  /** `type` of a property: a JSON Schema type name (or list of them), as the schema gives it. */
  parameters: { type: "object"; properties: Record<string, { type?: unknown; description?: string }>; required?: string[] };
}

export interface PlanBenchObservation {
  /** The question (verbatim query text). */
  query: string;
  step: number;
  stepsLeft: number;
  /** What the last action was ("none" right after reset). */
  lastAction: "none" | "retrieve_tools" | "call_tool" | "final_answer" | "others";
  /** The environment's text reply to the last action (official feedback meaning; "" after reset). */
  feedback: string;
  /** Tools listed by the last retrieval, in shown order ([] otherwise). */
  tools: VisibleTool[];
  /** Result of the last executed call. */
  toolResult: { name: string; success: boolean; output: string | number | boolean | null } | null;
  /** Error kind of the last action, if it failed (label / json / interface / not_retrieved / wrong_arguments / ...). */
  error: string | null;
}
