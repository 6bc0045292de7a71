import { z } from "zod";
import type { EnvMetadata, EnvSpec, Env, ResetArgs, StepResult } from "../../core/env.js";
import { ActionError, OptionsError } from "../../core/errors.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import { registerMakeLayer } from "../../core/registry.js";
import type { Rng } from "../../core/rng.js";
import { Dict, Json, Sequence, Text } from "../../core/spaces/index.js";
import { Space, type SpaceJson } from "../../core/spaces/space.js";
import type { ToolSchema } from "../../core/spaces/toolCall.js";
import { Wrapper } from "../../core/wrapper.js";
import type { ToolActionSpace } from "../actionSpace.js";
import type { Action } from "../actions.js";
import { ASSISTANT_TEXT_ACTION, type ChatMessage, type ChatTool, chatTurn, DEFAULT_SYSTEM_PROMPT, toChatTools } from "../chat.js";
import type { EpisodeEvent } from "../events.js";
import type { ToolObservation } from "../observation.js";
import { ToolEnv, type ToolResetInfo, type ToolStepInfo } from "../toolEnv.js";
import { type AssistantInput, CHAT_PARSERS, type ChatItem, type ChatParser, readAssistantTurn } from "./parsers.js";
import { actionToolSchemas } from "./tools.js";
import { withKeys } from "../../core/objects.js";

/** What chat mode observes: messages and tools to append to the conversation (everything, at reset). */
export interface ChatModeObservation {
  /** Reset: system + user task. Step: the turn as the env understood it (see `ChatEnv.step`), then its replies. */
  messages: ChatMessage[];
  /** Reset: every tool offered. Step: tools that became visible (add them to the request's `tools`). */
  tools: ChatTool[];
  /** Tools no longer visible (drop them from the request's `tools`); always empty at reset. */
  removedTools: string[];
}

/** Per chat step: the last env step's info, with events and reward terms of every env step the message made. */
export type ChatStepInfo = ToolStepInfo & {
  chat: {
    /** Tool calls (or text items) read from the message. */
    items: number;
    /** Env steps they made: fewer than `items` when the episode ended part-way (the rest were not run). */
    executed: number;
  };
};

const CHAT_OBSERVATION_SPACE = new Dict({
  messages: new Sequence(new Json()),
  tools: new Sequence(new Json()),
  removedTools: new Sequence(new Text(512, 1)),
}) as unknown as Space<ChatModeObservation>;

/** Chat mode's options (given to `make` next to the env's own). */
export const chatModeOptionsSchema = z.object({
  /** `chat`: the env speaks OpenAI chat (this module); `structured` (default): the plain tool observation. */
  obsFormat: z.enum(["structured", "chat"]).default("structured"),
  /** How raw model text (a reply without `tool_calls`) is read: see CHAT_PARSERS. */
  chatParser: z.enum(Object.keys(CHAT_PARSERS) as [string, ...string[]]).optional(),
});

/** A model turn as an OpenAI assistant message; samples are the inner env's sampled actions written as tool calls. */
export class ChatActionSpace extends Space<AssistantInput> {
  constructor(
    private readonly inner: Space<Action>,
    /** Names of the tools that are env actions rather than tools (family kinds, `answer`, `abort`). */
    readonly actionTools: readonly string[] = [],
  ) {
    super();
  }
  contains(x: unknown): x is AssistantInput {
    if (typeof x === "string") return true;
    try {
      readAssistantTurn(x, CHAT_PARSERS.hermes!);
      return true;
    } catch {
      return false;
    }
  }
  sample(rng?: Rng): AssistantInput {
    const action = rng ? this.inner.sample(rng) : this.inner.sample();
    const [message] = chatTurn({ step: 0, action, response: null });
    return { role: "assistant", content: message!.content, ...(message!.tool_calls ? { tool_calls: message!.tool_calls } : {}) };
  }
  toJSON(): SpaceJson {
    return { type: "ChatMessage", parsers: Object.keys(CHAT_PARSERS), actionTools: [...this.actionTools], inner: this.inner.toJSON() };
  }
}

/**
 * Chat mode for every tool env (`make(id, { obsFormat: "chat" })`): `reset` gives OpenAI messages and function tools
 * (every visible tool, the family's own actions, `answer` and `abort`); `step` takes one assistant message (with
 * `tool_calls`) or the model's raw text (read by the `chatParser`).
 *
 * Model mistakes are episode steps answered with a message, never exceptions: arguments that are not JSON, an
 * unknown tool or a schema violation get a tool message with the env's error (an `invalid_action` or `tool_error`
 * event); a message without a usable call (plain text, empty, an unreadable call block) is the step of an
 * `assistant_text` action, an `invalid_action` event answered with a user message. Several calls in one message
 * run in order, each its own env step (each counted against budgets and the step limit); when one ends the
 * episode, the rest are not run. With `invalidAction: "raise"` given explicitly, every such mistake that the env
 * itself would refuse throws the ActionError instead (strict mode, for debugging).
 *
 * The returned messages are the conversation as the env recorded it: the model's turn rewritten as one assistant
 * message per call (ids `call_<step>`, arguments as sorted-key JSON, text beside calls dropped), each followed by
 * its reply. Append them instead of the model's own message and the conversation is byte-identical to
 * `export --format openai-chat` of the episode's trajectory.
 */
export class ChatEnv extends Wrapper<ChatModeObservation, AssistantInput, ToolObservation, Action> {
  private readonly tool: ToolEnv<unknown>;
  private readonly actionKinds: Set<string>;
  private readonly actionTools: readonly ToolSchema[];
  private readonly space: ChatActionSpace;
  private readonly chatSpec: EnvSpec;
  private readonly chatMetadata: EnvMetadata;
  private messages: ChatMessage[] = [];
  private tools = new Map<string, ChatTool>();

  constructor(
    env: Env<ToolObservation, Action>,
    readonly parser: ChatParser = CHAT_PARSERS.hermes!,
    /** Strict mode: model mistakes the env refuses throw (the inner env's `invalidAction: "raise"`). */
    readonly strict = false,
  ) {
    super(env);
    const inner = env.unwrapped;
    if (!(inner instanceof ToolEnv)) throw new TypeError("chat mode works on tool envs only");
    this.tool = inner as ToolEnv<unknown>;
    const kinds = (this.tool.actionSpace as ToolActionSpace).extraKinds;
    this.actionTools = actionToolSchemas(kinds, env.spec.id);
    this.actionKinds = new Set(["answer", "abort", ...Object.keys(kinds)]);
    this.space = new ChatActionSpace(
      this.tool.actionSpace,
      this.actionTools.map((t) => t.name),
    );
    this.chatSpec = { ...env.spec, entryOptions: { ...env.spec.entryOptions, obsFormat: "chat", chatParser: parser.name } };
    const chat = "chat mode, step only: { items, executed } (calls read from the message, env steps they made)";
    const infoKeys = { ...env.metadata.infoKeys, chat };
    this.chatMetadata = { ...env.metadata, infoKeys };
  }

  override get observationSpace(): Space<ChatModeObservation> {
    return CHAT_OBSERVATION_SPACE;
  }
  override get actionSpace(): Space<AssistantInput> {
    return this.space;
  }
  override get spec(): EnvSpec {
    return this.chatSpec;
  }
  override get metadata(): EnvMetadata {
    return this.chatMetadata;
  }

  override reset(args?: ResetArgs): [ChatModeObservation, ToolResetInfo] {
    const [obs, info] = this.env.reset(args) as [ToolObservation, ToolResetInfo];
    const tools = toChatTools([...obs.newTools, ...this.actionTools]);
    this.messages = [
      { role: "system", content: DEFAULT_SYSTEM_PROMPT },
      { role: "user", content: obs.task },
    ];
    this.tools = new Map(tools.map((t) => [t.function.name, t]));
    return [{ messages: this.messages.slice(), tools, removedTools: [] }, info];
  }

  override checkAction(action: AssistantInput): void {
    this.actionsOf(action);
  }

  override step(input: AssistantInput): StepResult<ChatModeObservation, ChatStepInfo> {
    const actions = this.actionsOf(input);
    const messages: ChatMessage[] = [];
    const newTools: ToolSchema[] = [];
    const removed: string[] = [];
    const events: EpisodeEvent[] = [];
    const rewardTerms: Record<string, number> = {};
    const rawTerms: Record<string, number> = {};
    let reward = 0;
    let last: StepResult<ToolObservation, ToolStepInfo> | null = null;
    for (const action of actions) {
      last = this.env.step(action) as StepResult<ToolObservation, ToolStepInfo>;
      const [obs, r, terminated, truncated, info] = last;
      reward += r;
      for (const e of info.events) events.push(e);
      for (const [k, v] of Object.entries(info.rewardTerms)) rewardTerms[k] = (rewardTerms[k] ?? 0) + v;
      for (const [k, v] of Object.entries(info.rawTerms)) rawTerms[k] = (rawTerms[k] ?? 0) + v;
      // The turn is rendered from the action as sent and the response as observed: exactly what a trajectory
      // recorder around the inner env writes, so the export rebuilds the same messages.
      for (const m of chatTurn({ step: info.step, action, response: obs.response })) messages.push(m);
      for (const t of obs.newTools) newTools.push(t);
      for (const t of obs.removedTools) removed.push(t);
      if (terminated || truncated) break;
    }
    const [, , terminated, truncated, lastInfo] = last!;
    const tools = toChatTools(newTools);
    for (const m of messages) this.messages.push(m);
    for (const t of tools) this.tools.set(t.function.name, t);
    const executed = messages.filter((m) => m.role === "assistant").length;
    const info: ChatStepInfo = withKeys(lastInfo, { events, rewardTerms, rawTerms, chat: { items: actions.length, executed } });
    return [{ messages, tools, removedTools: removed }, reward, terminated, truncated, info];
  }

  /** The whole conversation so far: every message and every tool offered (in order of first appearance). */
  transcript(): { messages: ChatMessage[]; tools: ChatTool[] } {
    return { messages: this.messages.slice(), tools: [...this.tools.values()] };
  }

  /** The env actions one model turn asks for, in order (see the class comment for how mistakes map). */
  actionsOf(input: AssistantInput): Action[] {
    const items = readAssistantTurn(input, this.parser);
    return items.map((item, i) => this.toAction(item, i));
  }

  private toAction(item: ChatItem, i: number): Action {
    if (item.kind === "text") {
      if (this.strict) {
        throw new ActionError(`tool_calls.${i}`, `chat mode: expected a tool call${item.parseError ? ` (${item.parseError})` : ""}`);
      }
      return { type: ASSISTANT_TEXT_ACTION, content: item.content, ...(item.parseError ? { parseError: item.parseError } : {}) };
    }
    if (item.malformed && this.strict) {
      throw new ActionError(`tool_calls.${i}.function.arguments`, `chat mode: arguments of "${item.name}" are not valid JSON`);
    }
    const args = item.arguments;
    // Arguments that are not a JSON object stay a tool call the env refuses (and the chat shows them as written).
    if (!isJsonObject(args) || !this.actionKinds.has(item.name)) {
      // The env's parse refuses arguments that are not an object, and that refusal is the answer the model gets.
      return { type: "tool_call", name: item.name, arguments: args as JsonObject };
    }
    return { ...args, type: item.name };
  }
}

/** The chat view of `make(id, options)` when `obsFormat` is "chat" (a make layer: src/core/registry.ts). */
registerMakeLayer({
  keys: ["obsFormat", "chatParser"],
  schema: chatModeOptionsSchema,
  docs: {
    obsFormat: "structured | chat (default structured): chat = OpenAI chat messages and function tools in, assistant messages out",
    chatParser: `chat mode: how raw model text is read (${Object.keys(CHAT_PARSERS).join(" | ")}; default hermes)`,
  },
  // Model mistakes are episode events in chat mode unless strict mode is asked for explicitly.
  familyDefaults: (own) => (own.obsFormat === "chat" ? { invalidAction: "penalize" } : {}),
  apply(env, own, spec, given) {
    if (own.obsFormat !== "chat") {
      if (own.chatParser !== undefined) throw new OptionsError("chatParser", 'chatParser needs obsFormat: "chat"');
      return env;
    }
    if (spec.entryOptions.actionMode === "discrete") {
      throw new OptionsError("obsFormat", 'obsFormat "chat" and actionMode "discrete" exclude each other: pick one view');
    }
    const parser = CHAT_PARSERS[typeof own.chatParser === "string" ? own.chatParser : "hermes"];
    const chat: Env<ChatModeObservation, AssistantInput> = new ChatEnv(
      env as Env<ToolObservation, Action>,
      parser,
      given.invalidAction === "raise",
    );
    return chat as Env<unknown, unknown>;
  },
});
