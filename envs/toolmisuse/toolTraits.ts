/** Per-tool facts the fault planner, the baselines and the rewards use: schema-drift payloads, and which tools write. */
import type { Json, JsonObj } from "./world/types.js";
import { TOOLSETS } from "./world/toolsets.js";

/** Schema-drift payload options per tool: some a schema-repair agent can undo, some it cannot. */
export function driftPayloads(tool: string): JsonObj[] {
  const add = (k: string, v: Json): JsonObj => ({ add_required: { [k]: v } });
  const ren = (a: string, b: string): JsonObj => ({ rename_args: { [a]: b } });
  switch (tool) {
    case "get_account":
    case "close_account":
    case "update_account":
      return [ren("id", "account_id"), add("audit_note", "auto")];
    case "create_account":
      return [ren("fields", "account"), add("region", "eu")];
    case "search_docs":
      return [{ type_changes: { top_k: "string" } }, add("lang", "en")];
    case "get_doc":
      return [ren("doc_id", "id"), add("include_body", true)];
    case "read_file":
    case "write_file":
      return [ren("path", "file_path"), add("encoding", "utf-8")];
    case "list_dir":
      return [ren("path", "dir"), add("recursive", false)];
    case "validate_cron":
      return [ren("cron", "expression"), add("timezone", "UTC")];
    case "create_job":
      return [ren("cron", "schedule"), ren("name", "job_name"), add("timezone", "UTC")];
    case "list_jobs":
      return [add("verbose", true)];
    default:
      return [add("extra", true)];
  }
}

/** Tools in a toolset that mutate state (for the policy-aware baseline and rewards). */
export function isMutating(tool: string): boolean {
  for (const ts of Object.values(TOOLSETS)) {
    const t = ts.tools.find((x) => x.schema.name === tool);
    if (t) return t.mutates;
  }
  return false;
}
