import type { JsonValue, TaskParameter } from "../../src/family.js";
import type { OfficialAction } from "./world/types.js";

/**
 * The task's parameters for the discrete action mode. ToolMisuseBench records carry no structured parameters, only
 * the instruction and the reference (gold) actions; the parameters are the reference actions' argument values that
 * the instruction quotes verbatim, so nothing the agent cannot read becomes a candidate. Other values (a file's
 * content read first, an id a search returns) reach candidates from the responses, as they reach the agent.
 */
export function goldParameters(
  instruction: string,
  gold: readonly OfficialAction[] | null,
  tools: readonly string[] = [],
): TaskParameter[] {
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
  out.push(...closeByPatch(out), ...freeChoices(tools));
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

/**
 * Closing an account by its other route: `update_account` with the patch `close_account` itself stores (status
 * `closed`, `closed_reason`; the crud toolset's documented effect, world/toolsets.ts), for the id and reason the
 * request states. A persistent failure of `close_account` leaves only this route.
 */
function closeByPatch(params: readonly TaskParameter[]): TaskParameter[] {
  const out: TaskParameter[] = [];
  const ids = params.filter((p) => p.target === "close_account" && p.name === "id");
  const reasons = params.filter((p) => p.target === "close_account" && p.name === "reason");
  for (const id of ids) {
    for (const r of reasons) {
      if (!params.some((p) => p.target === "update_account" && p.name === "id" && p.value === id.value)) {
        out.push({ name: "id", target: "update_account", value: id.value as JsonValue });
      }
      out.push({ name: "patch", target: "update_account", value: { status: "closed", closed_reason: r.value as JsonValue } });
    }
  }
  return out;
}

/**
 * Values an instruction may leave to the agent ("run a document search of your choice", "list a directory"): the
 * root folder for a listing, a generic term for a search. Offered whenever the tool is there, after any quoted value;
 * such a task accepts any successful call, so the choice carries no knowledge of the task.
 */
const FREE_CHOICES: readonly TaskParameter[] = [
  { name: "path", target: "list_dir", value: "/" },
  { name: "query", target: "search_docs", value: "report" },
];

function freeChoices(tools: readonly string[]): TaskParameter[] {
  return FREE_CHOICES.filter((p) => tools.includes(p.target as string));
}
