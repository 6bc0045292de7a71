import { z } from "zod";
import type { JsonSchema } from "../../core/jsonSchema.js";
import type { ToolSchema } from "../../core/spaces/toolCall.js";
import type { ActionKind } from "../actionSpace.js";

// The env's non-tool actions offered to a model as function tools, so that every model output is a tool call and
// none is ambiguous: `answer` and `abort` (core), then the family's own action kinds in declaration order.

const ANSWER_TOOL: ToolSchema = {
  name: "answer",
  description: "Give your final answer to the user's task. This ends the episode.",
  parameters: {
    type: "object",
    properties: { content: { type: "string", description: "the final answer" } },
    required: ["content"],
    additionalProperties: false,
  },
};

const ABORT_TOOL: ToolSchema = {
  name: "abort",
  description: "Stop without answering, on purpose, when no safe way to complete the task remains. This ends the episode.",
  parameters: { type: "object", properties: { reason: { type: "string", description: "why you stop" } }, additionalProperties: false },
};

/** The core action kinds that chat mode offers as tools (`answer`, `abort`). */
export const CORE_ACTION_TOOLS: readonly ToolSchema[] = [ANSWER_TOOL, ABORT_TOOL];

/**
 * Function schemas of a family's action kinds (every kind besides tool_call / answer / abort), derived from each
 * kind's zod schema: a call of a function named after the kind becomes the action `{type: kind, ...arguments}`,
 * so the schema is the kind's minus its `type` field.
 */
export function familyActionToolSchemas(extraKinds: Readonly<Record<string, ActionKind>>, envId: string): ToolSchema[] {
  return Object.entries(extraKinds).map(([name, kind]) => {
    const schema = z.toJSONSchema(kind.schema, { io: "input", unrepresentable: "any" }) as JsonSchema & { $schema?: string };
    const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([k]) => k !== "type"));
    const required = (schema.required ?? []).filter((k) => k !== "type");
    const parameters: JsonSchema = {
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
      ...(schema.additionalProperties === false ? { additionalProperties: false } : {}),
    };
    const description = kind.schema.description ?? schema.description ?? `${envId} action "${name}" ({"type": "${name}", ...arguments})`;
    return { name, description, parameters };
  });
}

/** Every action tool of an env, in the order chat mode lists them: family kinds, then `answer` and `abort`. */
export function actionToolSchemas(extraKinds: Readonly<Record<string, ActionKind>>, envId: string): ToolSchema[] {
  const family = familyActionToolSchemas(extraKinds, envId);
  const taken = new Set(family.map((t) => t.name));
  return [...family, ...CORE_ACTION_TOOLS.filter((t) => !taken.has(t.name))];
}
