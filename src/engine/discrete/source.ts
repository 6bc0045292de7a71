import type { JsonObject, JsonValue } from "../../core/json.js";
import type { JsonSchema } from "../../core/jsonSchema.js";
import type { ActionKind } from "../actionSpace.js";
import type { CallRecord } from "../episode.js";
import type { TaskParameter, ToolSemantics } from "../parameters.js";
import type { ToolDefinition } from "../tool.js";

/** A tool call as the agent saw it: no taint, fault ids or error source (those are ground truth). */
export interface SeenCall {
  tool: string;
  arguments: JsonObject;
  ok: boolean;
  response: JsonValue;
}

/** A visible tool as the agent knows it: schema and documented semantic types, never `meta`. */
export interface SeenTool {
  name: string;
  parameters: JsonSchema;
  semantics: ToolSemantics | null;
}

/**
 * Everything the discrete mode reads of a tool episode. It is built from observable data only — the same facts a
 * structured-mode agent has (prompt parameters, tool documentation, the responses it received, budgets) — which is
 * what the no-leakage test checks: two episodes with equal observable histories give equal candidates and features.
 */
export interface ObservableEpisode {
  parameters: readonly TaskParameter[];
  tools: readonly SeenTool[];
  calls: readonly SeenCall[];
  /** The documented semantic types of a tool (any tool the episode defines; null when it documents none). */
  semanticsOf(tool: string): ToolSemantics | null;
  /** Family action kinds (beyond tool_call / answer / abort) and their schemas. */
  familyKinds: Readonly<Record<string, ActionKind>>;
  step: number;
  maxSteps: number;
  /** Remaining budgets (null: unlimited) and their initial sizes. */
  budget: { toolCalls: number | null; retries: number | null; toolCallLimit: number | null; retryLimit: number | null };
  /** The response of the last step (family actions and answers included), null after reset. */
  lastResponse: JsonValue;
  done: boolean;
}

const seenCalls = new WeakMap<CallRecord, SeenCall>();
function seen(c: CallRecord): SeenCall {
  let s = seenCalls.get(c);
  if (!s) seenCalls.set(c, (s = { tool: c.tool, arguments: c.arguments, ok: c.ok, response: c.response }));
  return s;
}

/** Projects a ToolEnv's state onto what the agent observed (called by `ToolEnv.observableEpisode`). */
export function projectEpisode(args: {
  parameters: readonly TaskParameter[] | undefined;
  visible: readonly ToolDefinition<unknown>[];
  definitions: ReadonlyMap<string, ToolDefinition<unknown>>;
  calls: readonly CallRecord[];
  familyKinds: Readonly<Record<string, ActionKind>>;
  step: number;
  maxSteps: number;
  budgets: { toolCalls: number | null; retries: number | null };
  retriesUsed: number;
  lastResponse: JsonValue;
  done: boolean;
}): ObservableEpisode {
  const { toolCalls, retries } = args.budgets;
  return {
    parameters: args.parameters ?? [],
    tools: args.visible.map((t) => ({ name: t.name, parameters: t.parameters, semantics: t.semantics ?? null })),
    semanticsOf: (tool) => args.definitions.get(tool)?.semantics ?? null,
    calls: args.calls.map(seen),
    familyKinds: args.familyKinds,
    step: args.step,
    maxSteps: args.maxSteps,
    budget: {
      toolCalls: toolCalls === null ? null : Math.max(0, toolCalls - args.calls.length),
      retries: retries === null ? null : Math.max(0, retries - args.retriesUsed),
      toolCallLimit: toolCalls,
      retryLimit: retries,
    },
    lastResponse: args.lastResponse,
    done: args.done,
  };
}
