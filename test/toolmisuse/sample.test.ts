/**
 * End-to-end check against what was observed of the real v0.2 release
 * (`shared/toolmisusebench-sample`, see its README): instructions, task ids (domain, fault class,
 * budget profile), seeds, the first call an agent made and the agent-visible error and remaining
 * budget that followed. No raw task record exists, so each line becomes an official-format record
 * here — initial state and criteria derived from the instruction's own call, fault plan from the
 * recorded provenance — and is played through make("ToolMisuseBench-v0", { dataset, split }).
 * Skipped when the sample folder is absent.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { make } from "../../src/index.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import { parseInstruction } from "../../envs/toolmisuse/baselines.js";
import type { ToolMisuseEnv } from "../../envs/toolmisuse/env.js";
import { BUDGET_PROFILES, type BudgetProfile } from "../../envs/toolmisuse/tasks.js";
import { DOMAIN_TOOLSET, officialSchemas, type ToolsetId } from "../../envs/toolmisuse/world/toolsets.js";
import type { JsonObj, OfficialAction } from "../../envs/toolmisuse/world/types.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SAMPLE_FILE = "v0_2_observed_observations.jsonl";
const sampleDir = [
  process.env["TOOLMISUSE_SAMPLE_DIR"],
  path.resolve(repoRoot, "../shared/toolmisusebench-sample"),
  path.resolve(repoRoot, "../../shared/toolmisusebench-sample"),
].find((d) => d !== undefined && existsSync(path.join(d, SAMPLE_FILE)));

const error = z.strictObject({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) });
const firstFailure = z.strictObject({
  kind: z.literal("test_public_first_failure_observation"),
  source_task_id: z.string(),
  seed: z.number().int().nullable(),
  toolset_id: z.string(),
  instruction: z.string(),
  proper_failed_action: z.strictObject({ tool_name: z.string(), args: z.record(z.string(), z.unknown()) }),
  last_error: error,
  remaining_budget_after_first_call: z.strictObject({ steps_left: z.number(), tool_calls_left: z.number(), retries_left: z.number() }),
});
const experience = z.strictObject({
  kind: z.literal("dev_experience_text"),
  source_task_id: z.string().nullable(),
  instruction: z.string(),
  failed_tool: z.string(),
  error_code: z.string(),
  error_details_agent_visible: z.record(z.string(), z.unknown()),
  proper_provenance: z.enum(["authorization_transient", "schema_backend_one_shot", "argument_omission_extension"]),
  recovery_that_worked: z.string(),
});
const line = z.discriminatedUnion("kind", [firstFailure, experience]);
type Line = z.infer<typeof line>;

/** `{split}_v2_{domain}_{fault}_{difficulty}_{profile}_{index}` (reference §1.2). */
function parseId(id: string): {
  split: "dev" | "test_public";
  domain: keyof typeof DOMAIN_TOOLSET;
  difficulty: string;
  profile: BudgetProfile;
} {
  const m = /^(dev|test_public)_v2_(crud|retrieval|files|scheduling)_[a-z_]+?_(easy|medium|hard)_(tight|standard|relaxed)_\d{5}$/.exec(id);
  if (!m) throw new Error(`unexpected task id shape: ${id}`);
  return {
    split: m[1] as "dev" | "test_public",
    domain: m[2] as keyof typeof DOMAIN_TOOLSET,
    difficulty: m[3]!,
    profile: m[4] as BudgetProfile,
  };
}

/** The smallest world in which the instruction's call succeeds, and criteria that it makes true. */
function worldFor(call: OfficialAction): { initial_state: JsonObj; success_criteria: JsonObj[] } {
  const a = call.args;
  switch (call.tool_name) {
    case "close_account":
      return {
        initial_state: { accounts: { [String(a.id)]: { id: a.id!, status: "active" } } },
        success_criteria: [
          { op: "equals", path: `accounts.${String(a.id)}.status`, value: "closed" },
          { op: "equals", path: `accounts.${String(a.id)}.closed_reason`, value: a.reason! },
        ],
      };
    case "create_account":
      return {
        initial_state: { accounts: {} },
        success_criteria: [{ op: "exists", path: `accounts.${String((a.fields as JsonObj).id)}` }],
      };
    case "get_doc":
      return {
        initial_state: { docs: [{ id: a.doc_id!, title: "Quarterly ledger", text: "Notes for the finance team." }] },
        success_criteria: [{ op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: a.doc_id! }],
      };
    case "read_file":
      return {
        initial_state: { files: { [String(a.path)]: "# README" } },
        success_criteria: [{ op: "tool_output_path_equals", tool_name: "read_file", output_path: "path", value: a.path! }],
      };
    case "write_file":
      return {
        initial_state: { files: {} },
        success_criteria: [{ op: "map_value_equals", path: "files", key: a.path!, value: a.content! }],
      };
    case "validate_cron":
      return {
        initial_state: { jobs: [] },
        success_criteria: [{ op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "cron", value: a.cron! }],
      };
    default:
      throw new Error(`no world for ${call.tool_name}`);
  }
}

interface Case {
  record: JsonObj;
  first: OfficialAction;
  second: OfficialAction;
  expectError: { code: string; details: JsonObj; message?: string };
  expectBudget: JsonObj | null;
}

function toCase(l: Line, n: number): Case {
  // the one line without an id: a CRUD dev task
  const id = l.source_task_id ?? `dev_v2_crud_clean_easy_relaxed_9${String(n).padStart(4, "0")}`;
  const meta = parseId(id);
  const toolset: ToolsetId = DOMAIN_TOOLSET[meta.domain];
  const failedTool = l.kind === "dev_experience_text" ? l.failed_tool : l.proper_failed_action.tool_name;
  const plan = parseInstruction(
    l.instruction,
    officialSchemas(toolset).map((s) => s.name),
  );
  expect(
    plan.map((c) => c.tool_name),
    l.instruction,
  ).toEqual([failedTool]);
  const gold = { tool_name: plan[0]!.tool_name, args: plan[0]!.args };
  const fault_plan: JsonObj[] = [];
  let first: OfficialAction = gold;
  const second: OfficialAction = gold;
  if (l.kind === "test_public_first_failure_observation") {
    if (l.toolset_id !== toolset) throw new Error(`${id}: toolset ${l.toolset_id} does not match the id's domain`);
    first = l.proper_failed_action as OfficialAction;
    // The recorded failure drops exactly the arguments the error names from the instruction's call.
    const missing = (l.last_error.details.missing as string[]) ?? [];
    expect(Object.fromEntries(Object.entries(gold.args).filter(([k]) => !missing.includes(k)))).toEqual(first.args);
  } else if (l.proper_provenance === "argument_omission_extension") {
    const missing = (l.error_details_agent_visible.missing as string[]) ?? [];
    first = { tool_name: gold.tool_name, args: Object.fromEntries(Object.entries(gold.args).filter(([k]) => !missing.includes(k))) };
  } else if (l.proper_provenance === "authorization_transient") {
    fault_plan.push({
      fault_type: "authz",
      trigger: { on_tool: failedTool, on_nth_call: 1 },
      payload: { deny: true, required_role: l.error_details_agent_visible.required_role as string, recoverability: "transient_denial" },
    });
  } else {
    const field = (l.error_details_agent_visible.missing as string[])[0]!;
    fault_plan.push({
      fault_type: "schema_drift",
      trigger: { on_tool: failedTool, on_nth_call: 1 },
      payload: { rename_args: { [field]: `${field}_v2` }, recoverability: "transient" },
    });
  }
  const record: JsonObj = {
    task_id: id,
    split: meta.split,
    difficulty: meta.difficulty,
    domain: meta.domain,
    instruction: l.instruction,
    toolset_id: toolset,
    ...worldFor(gold),
    budget: { ...BUDGET_PROFILES[meta.profile], timeout_ms: 1000 },
    fault_plan,
    gold_summary: null,
    seed: l.kind === "test_public_first_failure_observation" ? (l.seed ?? 0) : 0,
  };
  return l.kind === "test_public_first_failure_observation"
    ? { record, first, second, expectError: l.last_error as Case["expectError"], expectBudget: l.remaining_budget_after_first_call }
    : { record, first, second, expectError: { code: l.error_code, details: l.error_details_agent_visible as JsonObj }, expectBudget: null };
}

describe.skipIf(!sampleDir)("observed v0.2 behaviour (shared/toolmisusebench-sample), end to end through the env", () => {
  const lines = sampleDir
    ? readFileSync(path.join(sampleDir, SAMPLE_FILE), "utf8")
        .split("\n")
        .filter((s) => s.trim())
        .map((s) => line.parse(JSON.parse(s)))
    : [];
  const cases = lines.map(toCase);
  const dir = mkdtempSync(path.join(tmpdir(), "tmb-sample-"));
  for (const split of ["dev", "test_public"] as const) {
    writeFileSync(
      path.join(dir, `${split}.jsonl`),
      `${cases
        .filter((c) => c.record.split === split)
        .map((c) => JSON.stringify(c.record))
        .join("\n")}\n`,
    );
  }

  it("has both kinds of line", () => {
    expect(lines.filter((l) => l.kind === "test_public_first_failure_observation").length).toBeGreaterThanOrEqual(5);
    expect(lines.filter((l) => l.kind === "dev_experience_text").length).toBeGreaterThanOrEqual(5);
  });

  for (const compat of ["fixed", "official"] as const) {
    it(`first call: the agent sees the recorded error and budget; the recorded recovery then succeeds (compat ${compat})`, () => {
      for (const split of ["dev", "test_public"] as const) {
        const mine = cases.filter((c) => c.record.split === split);
        mine.forEach((c, taskIndex) => {
          const env = make("ToolMisuseBench-v0", { dataset: dir, split, taskIndex, compat }) as unknown as ToolMisuseEnv;
          const [obs0] = env.reset({ seed: 0 }) as [ToolObservation, unknown];
          const b = c.record.budget as JsonObj;
          expect(obs0.budget).toEqual({ steps: b.max_steps, toolCalls: b.max_tool_calls, retries: b.max_retries });
          const [obs1, , term1] = env.step(c.first as never);
          const official = env.officialObservation();
          const id = String(c.record.task_id);
          expect(term1, id).toBe(false);
          expect(official.last_error, id).toMatchObject(c.expectError);
          expect(Object.keys(official.last_error!.details).sort(), id).toEqual(Object.keys(c.expectError.details).sort()); // nothing leaked
          if (c.expectBudget) expect(official.remaining_budget, id).toEqual(c.expectBudget);
          expect(obs1.budget).toEqual({
            steps: official.remaining_budget.steps_left,
            toolCalls: official.remaining_budget.tool_calls_left,
            retries: official.remaining_budget.retries_left,
          });
          expect((obs1.response as { error: unknown }).error).toEqual(official.last_error);
          env.step(c.second as never);
          expect(env.officialObservation().last_error, id).toBeNull();
          const [, , term, , info] = env.step({ type: "answer", content: "done" });
          expect(term).toBe(true);
          expect(info.success, id).toBe(true);
        });
      }
    });
  }
});
