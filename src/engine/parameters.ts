import type { JsonValue } from "../core/json.js";

/**
 * One structured parameter of a task, as data: what the task asks for (a city, an account id, the subject of an
 * e-mail), with the semantic type that tool parameters and response fields declare (`ToolDefinition.semantics`).
 * Families build these from their own task model, never by parsing the prompt; the discrete action mode binds tool
 * arguments and answers from them. Everything here must be observable: it restates what the prompt says.
 */
export interface TaskParameter {
  /** The argument it fills (`content` for an answer). */
  name: string;
  /** Semantic type shared with tool parameters / response fields; absent: matched by argument name only. */
  type?: string;
  /** Where it applies: one tool's name, or `"answer"`; absent: any tool with a matching parameter. */
  target?: string;
  /** A literal value the task quotes. */
  value?: JsonValue;
  /**
   * A text built from held values: each `{type}` hole is filled with a value of that semantic type (a task
   * parameter or a response field), e.g. `"It is {temperature_f}°F in {city}."`. Without `value` and `template`,
   * the parameter only declares that `name` of `target` takes held values of `type`.
   */
  template?: string;
  /**
   * With `target: "request"`: one request of the task as the prompt states it, as data (no value, type or
   * template): the operations it names (`ToolSemantics.operation`), the one whose success completes it, and the
   * literal values it quotes. The discrete mode's request features (discrete/requests.ts) read it.
   */
  request?: TaskRequest;
}

/** One request of a task (several in a multi-request task), restating its prompt: never how to solve it. */
export interface TaskRequest {
  /** The operations the request names, in the order it names them. */
  steps: readonly string[];
  /** The operation whose successful call completes the request (one of `steps`). */
  goal: string;
  /** The literal values the request quotes. */
  values: readonly JsonValue[];
}

/**
 * The semantic types of a tool's parameters and response fields (public: the tool's documentation states them),
 * so held values can be matched to arguments by meaning rather than by name.
 */
export interface ToolSemantics {
  /** Parameter name -> semantic type. */
  parameters?: Readonly<Record<string, string>>;
  /** Response field (dotted path, `[]` for array items) -> semantic type. */
  outputs?: Readonly<Record<string, string>>;
  /**
   * The service's display name as its description states it (`Weather.com`): a held value of type
   * `provider_label` while the tool is visible, so messages can name the services the agent can see.
   */
  label?: string;
  /**
   * The service-independent operation (`get_forecast`) that counterpart services' tools share: the discrete
   * features identify a tool by it, so what a policy learns of one service's tool carries over to the others.
   */
  operation?: string;
  /**
   * The tool changes the service's state (sends, books, places, cancels). Documentation, the same for every task:
   * the discrete features track whether such a write was read back (`writes.ts`).
   */
  writes?: boolean;
  /** Operations (`operation`) whose effect this tool reads back: a `get_order` confirms a `place_order`. */
  confirms?: readonly string[];
  /**
   * The tool's own documentation warns that it is not authoritative (a legacy endpoint, a cache, a preview value):
   * PlanBench-XL's noisy tools say so in their descriptions. A feature of the tool's calls (`documented_caveat`).
   */
  caveat?: boolean;
}
