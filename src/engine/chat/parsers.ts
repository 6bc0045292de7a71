import { z } from "zod";
import { ActionError, describeZodIssues } from "../../core/errors.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../core/json.js";

/**
 * What a model message asks for, before it meets the env: tool calls (arguments as parsed JSON, or the model's
 * text when it is not JSON) and pieces of text that should have been a call (with the reason, when a call was
 * attempted but could not be read).
 */
export type ChatItem =
  | { kind: "call"; name: string; arguments: JsonValue | string; malformed: boolean }
  | { kind: "text"; content: string; parseError: string | null };

/** A named reader of raw model text (the model's reply when it came without OpenAI `tool_calls`). */
export interface ChatParser {
  readonly name: string;
  readonly description: string;
  /** The calls (and unreadable call attempts) in `text`, in order; empty when the text attempts no call. */
  parse(text: string): ChatItem[];
}

/**
 * Arguments given as JSON text, as OpenAI sends them. Empty text means no arguments (several servers send "" for a
 * function without parameters); text that is not JSON stays text, so the env can answer it as the model's mistake.
 */
export function parseArgumentsText(text: string): { value: JsonValue | string; malformed: boolean } {
  if (text.trim() === "") return { value: {}, malformed: false };
  try {
    return { value: JSON.parse(text) as JsonValue, malformed: false };
  } catch {
    return { value: text, malformed: true };
  }
}

function tryJson(text: string): { ok: true; value: JsonValue } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch {
    return { ok: false };
  }
}

/** A `{name, arguments}` object (`arguments` as an object or as JSON text; `parameters` accepted as its alias). */
function callFromObject(body: JsonValue, block: string, names: readonly string[]): ChatItem {
  if (!isJsonObject(body)) return { kind: "text", content: block, parseError: "the call is not a JSON object" };
  const name = names.map((k) => body[k]).find((v) => typeof v === "string" && v !== "");
  if (typeof name !== "string") return { kind: "text", content: block, parseError: `the call has no string "${names[0]}"` };
  const raw = body.arguments ?? body.parameters ?? {};
  if (typeof raw === "string") {
    const a = parseArgumentsText(raw);
    return { kind: "call", name, arguments: a.value, malformed: a.malformed };
  }
  return { kind: "call", name, arguments: raw, malformed: false };
}

/** Hermes / Qwen style: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, any number per message. */
export const hermesParser: ChatParser = {
  name: "hermes",
  description:
    'Hermes / Qwen tool calls: each <tool_call>{"name": "...", "arguments": {...}}</tool_call> block is one call, in order; ' +
    "text outside the blocks is ignored. A block that is not JSON, or an opened block never closed, is a mistake answered " +
    "with a user message.",
  parse(text) {
    const items: ChatItem[] = [];
    const re = /<tool_call>([\s\S]*?)<\/tool_call>/g;
    let end = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      end = m.index + m[0].length;
      const body = tryJson(m[1]!.trim());
      items.push(body.ok ? callFromObject(body.value, m[0], ["name"]) : { kind: "text", content: m[0], parseError: NOT_JSON });
    }
    const rest = text.slice(end);
    const open = rest.indexOf("<tool_call>");
    if (open >= 0) items.push({ kind: "text", content: rest.slice(open), parseError: "a <tool_call> tag was not closed" });
    return items;
  },
};

const PB_TAGS = ["retrieve_tools", "tool_call", "final_answer"] as const;
const NOT_JSON = "the <tool_call> body is not valid JSON";

/**
 * PlanBench-XL's official reply format (one tag per reply, case-insensitive): `<retrieve_tools>{json}</retrieve_tools>`
 * is the family action `retrieve`, `<tool_call>{"name" | "tool_name": ..., "arguments": {...}}</tool_call>` a tool
 * call, `<final_answer>text</final_answer>` the `answer` action. Zero or several tags is the official label error.
 */
export const planbenchTagsParser: ChatParser = {
  name: "planbench-tags",
  description:
    "PlanBench-XL's official tags: exactly one of <retrieve_tools>{json}</retrieve_tools> (the retrieve action), " +
    '<tool_call>{"name": ..., "arguments": {...}}</tool_call> or <final_answer>...</final_answer> per reply (case-insensitive; ' +
    "content trimmed). None or several is a mistake answered with a user message.",
  parse(text) {
    const found: { tag: (typeof PB_TAGS)[number]; body: string; block: string }[] = [];
    for (const tag of PB_TAGS) {
      const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "gi");
      for (let m = re.exec(text); m !== null; m = re.exec(text)) found.push({ tag, body: m[1]!.trim(), block: m[0] });
    }
    if (found.length === 0) {
      const opened = PB_TAGS.some((t) => text.toLowerCase().includes(`<${t}>`));
      return opened ? [{ kind: "text", content: text, parseError: "a tag was not closed" }] : [];
    }
    if (found.length > 1) {
      const parseError = `use exactly one of <retrieve_tools>, <tool_call>, <final_answer> per reply (found ${found.length})`;
      return [{ kind: "text", content: text, parseError }];
    }
    const { tag, body, block } = found[0]!;
    if (tag === "final_answer") return [{ kind: "call", name: "answer", arguments: { content: body }, malformed: false }];
    const json = tryJson(body);
    if (tag === "retrieve_tools") return [{ kind: "call", name: "retrieve", arguments: json.ok ? json.value : body, malformed: !json.ok }];
    return [json.ok ? callFromObject(json.value, block, ["name", "tool_name"]) : { kind: "text", content: block, parseError: NOT_JSON }];
  },
};

/** The parsers chat mode knows, by name (option `chatParser`). */
export const CHAT_PARSERS: Readonly<Record<string, ChatParser>> = { hermes: hermesParser, "planbench-tags": planbenchTagsParser };

const toolCallSchema = z.object({
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.json())]).optional() }).loose(),
}).loose();

/** An assistant message as OpenAI-compatible servers return it (extra fields such as `refusal` are ignored). */
export const assistantMessageSchema = z.object({
  role: z.literal("assistant").optional(),
  content: z.string().nullable().optional(),
  tool_calls: z.array(toolCallSchema).nullable().optional(),
}).loose();

/** An OpenAI assistant message (extra fields allowed and ignored). */
export interface AssistantMessage {
  role?: "assistant";
  content?: string | null;
  tool_calls?: { id?: string; type?: "function"; function: { name: string; arguments?: string | JsonObject } }[] | null;
}
/** What chat mode's `step` takes: an OpenAI assistant message, or the model's raw text. */
export type AssistantInput = string | AssistantMessage;

/**
 * Reads one model turn. A message with `tool_calls` is read from them (its text is commentary, not an action); a
 * message without calls, or raw text, goes through `parser`; text that attempts no call is one text item. A value
 * that is neither a string nor an assistant message is the caller's bug: an ActionError naming the field.
 */
export function readAssistantTurn(input: unknown, parser: ChatParser): ChatItem[] {
  if (typeof input === "string") return textItems(input, parser);
  const res = assistantMessageSchema.safeParse(input);
  if (!res.success) {
    const { field, message } = describeZodIssues(res.error.issues, input);
    const where = field === "" ? "message" : `message.${field}`;
    throw new ActionError(where, `chat mode takes an assistant message or the model's text: ${message}`);
  }
  const msg = res.data;
  if (msg.tool_calls && msg.tool_calls.length > 0) {
    return msg.tool_calls.map((c): ChatItem => {
      const raw = c.function.arguments ?? "";
      if (typeof raw !== "string") return { kind: "call", name: c.function.name, arguments: raw, malformed: false };
      const a = parseArgumentsText(raw);
      return { kind: "call", name: c.function.name, arguments: a.value, malformed: a.malformed };
    });
  }
  return textItems(msg.content ?? "", parser);
}

function textItems(text: string, parser: ChatParser): ChatItem[] {
  if (text.trim() === "") return [{ kind: "text", content: text, parseError: "the message was empty" }];
  const items = parser.parse(text);
  return items.length > 0 ? items : [{ kind: "text", content: text, parseError: null }];
}
