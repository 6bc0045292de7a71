/**
 * Call validation against a toolset's closed schemas, in the official order:
 * unknown tool → missing required → unknown argument → first type mismatch.
 */
import type { CompatMode, JsonObj, OfficialAction, ToolError } from "./types.js";
import { isObj } from "./types.js";
import { pyTypeName } from "./pyvalue.js";
import type { Toolset } from "./toolsets.js";

/** Error codes the official runner counts as invalid calls. */
export const INVALID_CALL_CODES: ReadonlySet<string> = new Set([
  "unknown_tool",
  "missing_required_arg",
  "unknown_argument",
  "invalid_argument_type",
]);

function typeMatches(expected: string, v: unknown, compat: CompatMode): boolean {
  // Python isinstance: a bool is an int. Reproduced only in "official" mode.
  const boolAsInt = compat === "official" && typeof v === "boolean";
  switch (expected) {
    case "string":
      return typeof v === "string";
    case "integer":
      return (typeof v === "number" && Number.isInteger(v)) || boolAsInt;
    case "number":
      return typeof v === "number" || boolAsInt;
    case "boolean":
      return typeof v === "boolean";
    case "object":
      return isObj(v);
    case "array":
      return Array.isArray(v);
    default:
      return true;
  }
}

export function validateCall(toolset: Toolset, action: OfficialAction, compat: CompatMode): ToolError | null {
  const spec = toolset.tools.find((t) => t.schema.name === action.tool_name);
  if (!spec) {
    return {
      code: "unknown_tool",
      message: `Tool '${action.tool_name}' is not available in toolset '${toolset.id}'.`,
      details: { toolset_id: toolset.id, tool_name: action.tool_name },
    };
  }
  const { properties, required } = spec.schema;
  const args: JsonObj = action.args;
  const missing = required.filter((f) => !Object.hasOwn(args, f));
  if (missing.length > 0) {
    return {
      code: "missing_required_arg",
      message: "Action is missing required arguments.",
      details: { missing, tool_name: action.tool_name },
    };
  }
  if (!spec.schema.additionalProperties) {
    const unknown = Object.keys(args).filter((k) => !Object.hasOwn(properties, k));
    if (unknown.length > 0) {
      return {
        code: "unknown_argument",
        message: "Action contains unknown arguments.",
        details: { unknown, tool_name: action.tool_name },
      };
    }
  }
  for (const [name, value] of Object.entries(args)) {
    const p = properties[name];
    if (!p) continue;
    if (!typeMatches(p.type, value, compat)) {
      return {
        code: "invalid_argument_type",
        message: "Argument type mismatch.",
        details: { tool_name: action.tool_name, arg: name, expected: p.type, received: pyTypeName(value) },
      };
    }
  }
  return null;
}
