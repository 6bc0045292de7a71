import type { JsonObject } from "../core/json.js";
import type { ToolSchema } from "../core/spaces/toolCall.js";
import type { HistoryEntry } from "./render.js";

/** An OpenAI-style chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** An OpenAI-style tool entry (`tools` of a chat request). */
export interface ChatTool {
  type: "function";
  function: ToolSchema;
}

export const DEFAULT_SYSTEM_PROMPT =
  "You are an agent that completes the user's task by calling tools. Tools can fail or return wrong data: check what you get, retry or switch to an alternative when a call fails, and stop gracefully when nothing safe remains.";

/**
 * Renders an episode as the chat a model would have seen: system + user task, then one assistant turn per action
 * (tool calls as `tool_calls`, family actions as calls of a tool named after the action type) and one tool message
 * per response. This is what an LLM trainer feeds a model, and what `export --format openai-chat` writes.
 */
export function toChatMessages(prompt: string, history: readonly HistoryEntry[], system: string = DEFAULT_SYSTEM_PROMPT): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: system }, { role: "user", content: prompt }];
  for (const h of history) {
    const a = h.action as unknown as JsonObject;
    const id = `call_${h.step}`;
    if (a.type === "answer") {
      messages.push({ role: "assistant", content: String(a.content) });
      continue;
    }
    if (a.type === "abort") {
      messages.push({ role: "assistant", content: `I am stopping here${a.reason ? `: ${String(a.reason)}` : "."}` });
      continue;
    }
    const name = a.type === "tool_call" ? String(a.name) : String(a.type);
    const args = a.type === "tool_call" ? a.arguments : Object.fromEntries(Object.entries(a).filter(([k]) => k !== "type"));
    messages.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args ?? {}) } }] });
    messages.push({ role: "tool", tool_call_id: id, content: JSON.stringify(h.response) });
  }
  return messages;
}

export function toChatTools(tools: readonly ToolSchema[]): ChatTool[] {
  return tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
}
