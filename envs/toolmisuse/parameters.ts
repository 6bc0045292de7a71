import type { JsonValue, TaskParameter } from "../../src/family.js";
import type { OfficialAction } from "./world/types.js";

/**
 * The task's parameters for the discrete action mode. ToolMisuseBench records carry no structured parameters, only
 * the instruction and the reference (gold) actions; the parameters are the reference actions' argument values that
 * the instruction quotes verbatim, so nothing the agent cannot read becomes a candidate. Other values (a file's
 * content read first, an id a search returns) reach candidates from the responses, as they reach the agent.
 */
export function goldParameters(instruction: string, gold: readonly OfficialAction[] | null): TaskParameter[] {
  const out: TaskParameter[] = [];
  const seen = new Set<string>();
  for (const a of gold ?? []) {
    for (const [name, value] of Object.entries(a.args ?? {})) {
      if (!quoted(instruction, value as JsonValue)) continue;
      const key = `${a.tool_name}\u0000${name}\u0000${JSON.stringify(value)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ name, target: a.tool_name, value: value as JsonValue });
    }
  }
  // The harness's stop is an answer whose content is not judged (see officialPolicy).
  out.push({ name: "content", target: "answer", value: "done" });
  return out;
}

/** A scalar the instruction quotes verbatim; a structure whose every leaf is quoted (a patch `{ tier: "silver" }`). */
function quoted(instruction: string, value: JsonValue): boolean {
  if (typeof value === "string") return value.length > 0 && instruction.includes(value);
  if (typeof value === "number") return instruction.includes(String(value));
  if (value === null || typeof value === "boolean") return false;
  const leaves = Array.isArray(value) ? value : Object.values(value);
  return leaves.length > 0 && leaves.every((v) => quoted(instruction, v));
}
