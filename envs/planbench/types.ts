/**
 * Action and observation shapes of PlanBenchXL-v0 (zod-validated actions).
 *
 * Why a `text` action: an LLM's raw reply can be the action, parsed with the official tag rules,
 * so trainers can plug a model in without writing a parser.
 */
import { z } from "zod";
import { ActionError, type FamilyAction } from "../../src/family.js";

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

/**
 * The official wire format on the engine's action union: `answer` is the official answer (`final_answer`: judged by
 * the official rules, and with incorrect-answer feedback on it may not end the episode); `text` only if enabled.
 */
export function officialWireFormat(x: unknown, textActions: boolean): unknown {
  if (x === null || typeof x !== "object" || !("type" in x)) return x;
  if (x.type === "answer") return { ...x, type: "final_answer" };
  if (x.type === "text" && !textActions) {
    throw new ActionError("action.type", 'text actions are disabled (option textActions: false): send "retrieve", "tool_call" or "answer"');
  }
  return x;
}

/**
 * A family action as the runtime's action. The action space already parsed it with its kind's schema, so this only
 * narrows the types (a second zod parse per step would cost more than the checks it repeats).
 */
export function familyAction(a: FamilyAction): PlanBenchAction {
  const text = a["text"];
  const content = a["content"];
  const metaTool = a["meta_tool"];
  if (a.type === "text" && typeof text === "string") return { type: "text", text };
  if (a.type === "final_answer" && typeof content === "string") return { type: "final_answer", content };
  if (a.type === "retrieve" && typeof metaTool === "string") {
    const out = a["output_information"];
    const inp = a["input_information"];
    return {
      type: "retrieve",
      meta_tool: metaTool,
      ...(out !== undefined ? { output_information: out } : {}),
      ...(inp !== undefined ? { input_information: inp } : {}),
    };
  }
  throw new ActionError("action.type", `PlanBenchXL-v0 has no family action ${JSON.stringify(a.type)}`);
}
