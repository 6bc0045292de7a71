import {
  type Action,
  actionToolSchemas,
  type ChatMessage,
  type ChatTool,
  Dict,
  type Env,
  type Info,
  Json,
  type ResetArgs,
  Sequence,
  type Space,
  type StepResult,
  toChatMessages,
  toChatTools,
  ToolActionSpace,
  ToolEnv,
  type ToolObservation,
  Wrapper,
} from "../src/index.js";

/** The observation as an LLM would receive it. */
export interface ChatObservationValue {
  messages: ChatMessage[];
  tools: ChatTool[];
}

const CHAT_SPACE = new Dict({ messages: new Sequence(new Json()), tools: new Sequence(new Json()) }) as unknown as Space<ChatObservationValue>;

/**
 * Replaces the structured observation by the chat so far (messages + tools: visible tools, family actions, answer,
 * abort), for LLM trainers. Chat mode (`make(id, { obsFormat: "chat" })`) also takes the model's messages as actions.
 */
export class ChatObservation extends Wrapper<ChatObservationValue, Action, ToolObservation, Action> {
  private readonly tool: ToolEnv<unknown>;
  constructor(
    env: Env<ToolObservation, Action>,
    readonly systemPrompt?: string,
  ) {
    super(env);
    const inner = env.unwrapped;
    if (!(inner instanceof ToolEnv)) throw new TypeError("ChatObservation wraps tool envs only");
    this.tool = inner as ToolEnv<unknown>;
  }
  override get observationSpace(): Space<ChatObservationValue> {
    return CHAT_SPACE;
  }
  private chat(): ChatObservationValue {
    const kinds = this.tool.actionSpace instanceof ToolActionSpace ? this.tool.actionSpace.extraKinds : {};
    const tools = toChatTools([...this.tool.visibleToolSchemas(), ...actionToolSchemas(kinds, this.tool.spec.id)]);
    return { messages: toChatMessages(this.tool.taskPrompt(), this.tool.episodeHistory(), this.systemPrompt), tools };
  }
  override reset(args?: ResetArgs): [ChatObservationValue, Info] {
    const [, info] = this.env.reset(args);
    return [this.chat(), info];
  }
  override step(action: Action): StepResult<ChatObservationValue> {
    const [, reward, terminated, truncated, info] = this.env.step(action);
    return [this.chat(), reward, terminated, truncated, info];
  }
}
