/**
 * Strict loader for official ToolMisuseBench task records (JSONL or JSON; a folder per split
 * or flat files filtered by the `split` field). Unknown keys are rejected with a message that
 * names the key and the record id, because a silently ignored typo changes what is measured.
 */
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { JsonObj } from "./world/types.js";

export const SPLITS = ["train", "dev", "test_public"] as const;
export type Split = (typeof SPLITS)[number];
export const DOMAINS = ["crud", "retrieval", "files", "scheduling", "mixed"] as const;
export const FAULT_TYPES = ["timeout", "rate_limit", "schema_drift", "authz", "adversarial_error"] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

const jsonObject = z.record(z.string(), z.unknown()).transform((x) => x as JsonObj);
const int = z.number().int();

export const BudgetSchema = z.strictObject({
  max_steps: int.min(1),
  max_tool_calls: int.min(1),
  max_retries: int.min(0),
  timeout_ms: int.min(1),
});

export const FaultSpecSchema = z.strictObject({
  fault_type: z.enum(FAULT_TYPES),
  trigger: jsonObject,
  severity: z.enum(["soft", "hard"]).default("soft"),
  payload: jsonObject.default({}),
});

export const TaskRecordSchema = z.strictObject({
  task_id: z.string(),
  split: z.enum(SPLITS),
  difficulty: z.enum(["easy", "medium", "hard"]),
  domain: z.enum(DOMAINS),
  instruction: z.string(),
  toolset_id: z.string(),
  tool_schemas: z.array(jsonObject).default([]),
  initial_state: jsonObject.default({}),
  success_criteria: z.array(jsonObject).default([]),
  budget: BudgetSchema,
  fault_plan: z.array(FaultSpecSchema).default([]),
  gold_summary: z.string().nullable().default(null),
  seed: int.default(0),
});

export type TaskRecord = z.infer<typeof TaskRecordSchema>;
export type FaultSpec = z.infer<typeof FaultSpecSchema>;
export type Budget = z.infer<typeof BudgetSchema>;

/** A bad dataset file or record: names the file, line, record id and offending field. */
export class ToolMisuseDatasetError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number | null,
    readonly taskId: string | null,
    readonly field: string | null,
  ) {
    super(message);
    this.name = "ToolMisuseDatasetError";
  }
}

/** Validate one raw record; throws a `ToolMisuseDatasetError` naming the key and record id. */
export function parseTaskRecord(raw: unknown, where: { file: string; line: number | null } = { file: "<memory>", line: null }): TaskRecord {
  const res = TaskRecordSchema.safeParse(raw);
  if (res.success) return res.data;
  const rec = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const taskId = typeof rec.task_id === "string" ? rec.task_id : null;
  const issue = res.error.issues[0]!;
  const base = issue.path.map(String).join(".");
  let field = base || null;
  let what: string;
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys;
    field = [base, keys[0]].filter((s) => s).join(".");
    what = `unknown key${keys.length > 1 ? "s" : ""} ${keys.map((k) => `'${[base, k].filter((s) => s).join(".")}'`).join(", ")}`;
  } else {
    what = `field '${base || "<record>"}': ${issue.message}`;
  }
  const loc = `${where.file}${where.line !== null ? `:${where.line}` : ""}`;
  throw new ToolMisuseDatasetError(
    `ToolMisuseBench record ${taskId ? `'${taskId}'` : "(no task_id)"} at ${loc}: ${what}`,
    where.file,
    where.line,
    taskId,
    field,
  );
}

function parseFile(file: string, read: (file: string) => string): TaskRecord[] {
  const text = read(file);
  const out: TaskRecord[] = [];
  if (file.endsWith(".jsonl")) {
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (!line) continue;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (e) {
        throw new ToolMisuseDatasetError(`${file}:${i + 1}: invalid JSON (${(e as Error).message})`, file, i + 1, null, null);
      }
      out.push(parseTaskRecord(raw, { file, line: i + 1 }));
    }
  } else {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new ToolMisuseDatasetError(`${file}: invalid JSON (${(e as Error).message})`, file, null, null, null);
    }
    for (const r of Array.isArray(raw) ? raw : [raw]) out.push(parseTaskRecord(r, { file, line: null }));
  }
  return out;
}

/**
 * Load a split the way the official loader does: if `<dir>/<split>/` is a folder read its
 * `*.jsonl` then `*.json` files, otherwise read those files in `<dir>` itself (or the single
 * file given); keep only records whose `split` equals the requested split. `read` reads one file (a server passes
 * the option-file reader, so record files are read asynchronously and size-capped under its data root).
 */
export function loadTaskRecords(
  datasetPath: string,
  split: Split,
  read: (file: string) => string = (file) => readFileSync(file, "utf8"),
): TaskRecord[] {
  if (!existsSync(datasetPath)) {
    throw new ToolMisuseDatasetError(`dataset path '${datasetPath}' does not exist`, datasetPath, null, null, "dataset");
  }
  let files: string[];
  if (statSync(datasetPath).isFile()) {
    files = [datasetPath];
  } else {
    const splitDir = path.join(datasetPath, split);
    const dir = existsSync(splitDir) && statSync(splitDir).isDirectory() ? splitDir : datasetPath;
    const names = readdirSync(dir).sort();
    files = [
      ...names.filter((n) => n.endsWith(".jsonl")),
      ...names.filter((n) => n.endsWith(".json") && n !== "manifest.json" && !n.endsWith("_freeze.json")),
    ]
      .map((n) => path.join(dir, n))
      .filter((f) => statSync(f).isFile());
  }
  const records = files.flatMap((f) => parseFile(f, read)).filter((r) => r.split === split);
  const seen = new Set<string>();
  for (const r of records) {
    if (seen.has(r.task_id)) {
      throw new ToolMisuseDatasetError(`duplicate task_id '${r.task_id}' in split ${split}`, datasetPath, null, r.task_id, "task_id");
    }
    seen.add(r.task_id);
  }
  return records;
}
