import { isJsonObject, type JsonObject, type JsonValue, stableStringify } from "../core/json.js";
import type { ToolSchema } from "../core/spaces/toolCall.js";
import type { HistoryEntry } from "./render.js";

/** One tool call of an assistant message, as OpenAI's chat API writes it (`arguments` is JSON text). */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** An OpenAI-style chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

/** An OpenAI-style tool entry (`tools` of a chat request). */
export interface ChatTool {
  type: "function";
  function: ToolSchema;
}

export const DEFAULT_SYSTEM_PROMPT =
  "You are an agent that completes the user's task by calling tools. Tools can fail or return wrong data: check what you get, " +
  "retry or switch to an alternative when a call fails, and stop gracefully when nothing safe remains.";

/**
 * The action chat mode steps when a model message holds no usable tool call (plain text, an empty message, a
 * tool-call block that does not parse). No env has an action kind of this name, so the step is an
 * `invalid_action` event; the chat shows the text and a user message asking for a call.
 */
export const ASSISTANT_TEXT_ACTION = "assistant_text";

/** The user message that answers a model message without a usable tool call (see ASSISTANT_TEXT_ACTION). */
export function noToolCallMessage(parseError: string | null): string {
  const why = parseError ? `Your message had no valid tool call (${parseError}).` : "Your message had no tool call.";
  return `${why} Reply with a tool call: one of the listed tools, \`answer\` to give your final answer, or \`abort\` to stop.`;
}

/**
 * The messages of one env step: the assistant turn as the env understood it (one tool call named after the tool,
 * or after the action type for `answer`, `abort` and family actions, with id `call_<step>`), then the env's reply
 * (a tool message carrying the response). Arguments and responses are written with sorted keys, so a chat rebuilt
 * from a recorded trajectory (whose JSON lines sort keys) is byte-identical to the one played live.
 */
export function chatTurn(h: Pick<HistoryEntry, "step" | "action" | "response">): ChatMessage[] {
  // Recorded trajectories may hold anything an agent sent, so the action is inspected as untyped data.
  const a: unknown = h.action;
  if (!isJsonObject(a) || a.type === ASSISTANT_TEXT_ACTION || typeof a.type !== "string") {
    const content = isJsonObject(a) ? (typeof a.content === "string" ? a.content : "") : stableStringify(a);
    const parseError = isJsonObject(a) && typeof a.parseError === "string" ? a.parseError : null;
    return [
      { role: "assistant", content },
      { role: "user", content: noToolCallMessage(parseError) },
    ];
  }
  const id = `call_${h.step}`;
  const isCall = a.type === "tool_call";
  const name = isCall ? String(a.name) : a.type;
  const args: JsonValue | undefined = isCall ? a.arguments : Object.fromEntries(Object.entries(a).filter(([k]) => k !== "type"));
  // Arguments that were not a JSON object (a model's broken JSON) are shown exactly as the model wrote them.
  const text = typeof args === "string" ? args : stableStringify(args ?? {});
  return [
    { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: text } }] },
    { role: "tool", tool_call_id: id, content: stableStringify(h.response) },
  ];
}

/**
 * Renders an episode as the chat a model sees: system + user task, then per step the assistant's tool call and
 * the env's tool message (see `chatTurn`). This is what chat mode (`obsFormat: "chat"`) plays live and what
 * `export --format openai-chat` writes.
 */
export function toChatMessages(
  prompt: string,
  history: readonly Pick<HistoryEntry, "step" | "action" | "response">[],
  system: string = DEFAULT_SYSTEM_PROMPT,
): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: system },
    { role: "user", content: prompt },
  ];
  for (const h of history) for (const m of chatTurn(h)) messages.push(m);
  return messages;
}

/** OpenAI function tools; schemas go through sorted-key JSON so live and recorded tools are written alike. */
export function toChatTools(tools: readonly ToolSchema[]): ChatTool[] {
  return tools.map((t) => {
    const fn: JsonObject = { name: t.name };
    if (t.description !== undefined) fn.description = t.description;
    fn.parameters = JSON.parse(stableStringify(t.parameters ?? { type: "object", properties: {} })) as JsonObject;
    return { type: "function", function: fn as unknown as ToolSchema };
  });
}
