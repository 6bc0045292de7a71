import {
  type Env,
  type JsonObject,
  type AggregateReport,
  type EpisodeResult,
  type PolicyEntry,
  register,
  registerRewardTermKinds,
  registerGenerator,
  OptionsError,
} from "../../src/family.js";
import { BASELINE_NAMES, makeBaseline, OracleAgent, officialPolicy, type BaselineName } from "./baselines.js";
import { ToolMisuseEnv, toolMisuseOptionsSchema } from "./env.js";
import { aggregateToolMisuse, type FaultRow, type ToolMisuseMetrics } from "./scorer.js";
import { analyzeToolMisuseTrajectory } from "./annotations.js";
import { generateToolMisuseBench } from "./suiteOutput.js";
import { SUITE_PROFILES, type SuiteProfile } from "./tasks.js";
import type { OfficialAction } from "./world/types.js";

const DESCRIPTIONS: Record<BaselineName, string> = {
  heuristic: "official v0.1 heuristic: each tool once, schema-default arguments, no repair",
  "schema-repair": "official schema-repair: repairs and re-issues a failed call, else next tool with defaults",
  "policy-aware": "schema repair that never retries a denied mutation (falls back to a read-only tool or stops)",
  "instruction-parser": "parses the instruction into calls, repairs failures, skips a step after two failures",
  oracle: "replays the validated gold actions (hidden); falls back to the instruction parser",
};

function policies(): Record<string, PolicyEntry> {
  const out: Record<string, PolicyEntry> = {};
  for (const name of BASELINE_NAMES) {
    out[name] = {
      description: DESCRIPTIONS[name],
      usesHidden: name === "oracle",
      create: (env: Env<unknown, unknown>) => {
        const tm = env.unwrapped;
        if (!(tm instanceof ToolMisuseEnv)) throw new OptionsError("policy", `policy '${name}' plays ToolMisuseBench-v0 only`);
        let hiddenGold: OfficialAction[] | null = null;
        const agent = name === "oracle" ? new OracleAgent(() => hiddenGold) : makeBaseline(name);
        const p = officialPolicy<{ step: number }, unknown>(name, tm, agent);
        return {
          name,
          reset: (_obs: unknown, info: { hidden?: unknown }) => {
            const h = info.hidden as { gold?: OfficialAction[] | null } | undefined;
            hiddenGold = h?.gold ?? null;
            p.reset();
          },
          act: (obs: unknown, info: { hidden?: unknown }) => {
            const o = obs as { step: number };
            if (o.step === 0) hiddenGold = (info.hidden as { gold?: OfficialAction[] | null } | undefined)?.gold ?? null;
            return p.act(o);
          },
        };
      },
    };
  }
  return out;
}

function toMetrics(r: EpisodeResult): ToolMisuseMetrics {
  const m = r.metrics as JsonObject;
  const num = (k: string) => Number(m[k] ?? 0);
  return {
    task_id: String(m.task_id ?? r.taskId),
    domain: String(m.domain ?? ""),
    difficulty: String(m.difficulty ?? ""),
    success: num("success"),
    steps: num("steps"),
    tool_calls: num("tool_calls"),
    invalid_calls: num("invalid_calls"),
    invalid_call_rate: num("invalid_call_rate"),
    policy_violations: num("policy_violations"),
    budget_exceeded: num("budget_exceeded"),
    fault_seen: num("fault_seen"),
    time_to_recovery: m.time_to_recovery === null || m.time_to_recovery === undefined ? null : Number(m.time_to_recovery),
    recovery_success: num("recovery_success"),
    catastrophic_failure: num("catastrophic_failure"),
    primary_fault: String(m.primary_fault ?? "clean"),
    fault_types: String(m.fault_types ?? "")
      .split(",")
      .filter((x) => x),
  };
}

/** Table I headline metrics plus Table II (per primary fault) and per-domain breakdowns. */
export function aggregateResults(results: readonly EpisodeResult[]): AggregateReport {
  const a = aggregateToolMisuse(results.map(toMetrics));
  const table = (title: string, rows: Record<string, FaultRow>) => ({
    title,
    columns: ["group", "n", "success", "recovery", "mean_tool_calls", "invalid_call_rate", "budget_exceeded", "policy_violations"],
    rows: Object.entries(rows).map(([k, r]) => [
      k,
      r.n,
      r.success,
      r.recovery,
      r.mean_tool_calls,
      r.invalid_call_rate,
      r.budget_exceeded,
      r.policy_violations,
    ]),
  });
  return {
    metrics: {
      success: a.success,
      recovery_success: a.recovery_success,
      policy_violations: a.policy_violations,
      invalid_call_rate: a.invalid_call_rate,
      budget_exceeded: a.budget_exceeded,
      catastrophic_failure: a.catastrophic_failure,
      mean_tool_calls: a.mean_tool_calls,
      time_to_recovery: a.time_to_recovery ?? Number.NaN,
      ...a.budgeted_success,
      auc: a.auc,
      auc_log2: a.auc_log2,
    },
    breakdown: [table("by primary fault (Table II)", a.by_fault), table("by domain", a.by_domain), table("by difficulty", a.by_difficulty)],
  };
}

// Kinds of the family's own reward terms: specs may re-weight them, never relabel them.
registerRewardTermKinds("toolmisuse", { recovery: "event", argument_repair: "event", policy_violation: "cost", retry_overflow: "cost" });

register({
  id: "ToolMisuseBench-v0",
  family: "toolmisuse",
  description:
    "ToolMisuseBench: CRUD/retrieval/files/scheduling tools with schema drift, authz, rate " +
    "limits, timeouts and adversarial errors; official harness semantics.",
  optionsSchema: toolMisuseOptionsSchema as never,
  optionDocs: {
    dataset: "path to official task records (folder per split or flat JSON/JSONL filtered by split); default: built-in generated suite",
    split: "train | dev | test_public (default test_public)",
    taskIndex: "fixed task index; default: task = reset seed mod N",
    compat: "fixed (default) | official: reproduce the upstream harness's score-relevant quirks",
    exposeFaultMetadata: "show fault injection metadata to the agent, as upstream does (default false)",
    generatorSeed: "seed of the built-in suite (default 42)",
    faults: "plan (default) | none: the task's fault plan, or the same task with no faults (no-fault counterfactual)",
    profile: "solvable (default) | paper: built-in suite; paper = the v0.1 reconstruction behind the paper's baseline table",
    reward: "reward preset name (sparse | shaped | potential-only | shaped-no-<term>), spec file path, or inline spec (default shaped)",
    maxSteps: "hard step limit (default 50; each task's own max_steps truncates earlier)",
    invalidAction: "raise | penalize (default raise)",
    hiddenInfo: "include ground truth in info.hidden (default true)",
  },
  maxEpisodeSteps: 50,
  factory: (options, spec) => new ToolMisuseEnv(toolMisuseOptionsSchema.parse(options), spec) as never,
  policies: policies(),
  // Best baseline that sees only what the agent sees (instruction, schemas, transcript): the anti-hacking bar.
  carefulPolicy: "instruction-parser",
  noFaultOptions: { faults: "none" },
  aggregate: aggregateResults,
  analyzeTrajectory: analyzeToolMisuseTrajectory,
});

registerGenerator("toolmisusebench", {
  description:
    "ToolMisuseBench-style suite: 6,800 gold-validated tasks (train 5,000 / dev 800 / " +
    "test_public 1,000), canonical JSONL + sha256 manifest",
  flags: { profile: "solvable (default): gold-validated suite | paper: the v0.1 reconstruction behind the paper's baseline table" },
  run: ({ outDir, seed, options, progress }) => {
    const profile = options?.profile ?? "solvable";
    if (!SUITE_PROFILES.includes(profile as SuiteProfile)) {
      throw new OptionsError("profile", `profile must be one of ${SUITE_PROFILES.join(", ")}, got '${profile}'`);
    }
    const m = generateToolMisuseBench({ outDir, seed, profile: profile as SuiteProfile, progress });
    const splits = m.splits as Record<string, { file: string; count: number; sha256: string }>;
    return {
      files: [...Object.values(splits).map((s) => s.file), "manifest.json"],
      summary: Object.entries(splits)
        .map(([k, s]) => `${k}: ${s.count} tasks, sha256 ${s.sha256.slice(0, 12)}…`)
        .join("; "),
    };
  },
});

export { ToolMisuseEnv, toolMisuseOptionsSchema } from "./env.js";
export { generateToolMisuseBench } from "./suiteOutput.js";
export { generateTask, generateSplit } from "./tasks.js";
export { generatePaperTask, generatePaperSplit } from "./paper.js";
export { loadTaskRecords, parseTaskRecord, ToolMisuseDatasetError } from "./dataset.js";
export { aggregateToolMisuse } from "./scorer.js";
