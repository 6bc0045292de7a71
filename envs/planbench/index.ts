/** Registers PlanBenchXL-v0. */
import { type EpisodeResult, type JsonObject, register, registerRewardTermKinds } from "../../src/family.js";
import { PlanBenchEnv, planBenchOptionsSchema } from "./env.js";
import { PLANBENCH_POLICIES } from "./policies.js";
import { aggregateMetrics } from "./scorer.js";
import { analyzePlanBenchTrajectory } from "./annotations.js";
import { paperAnalyses } from "./paperAnalyses.js";

// Kinds of the family's own reward terms: specs may re-weight them, never relabel them.
registerRewardTermKinds("planbench", { untrusted_output: "cost", progress: "event", label_error: "cost" });

register({
  id: "PlanBenchXL-v0",
  family: "planbench",
  // A retrieval names one of ~56 datatypes, so a step lists far more requests than other families' steps list
  // calls: at K = 64 the oracle's path is expressible for 20% of the queries, at 256 for 99.7% (docs/DISCRETE.md).
  discreteCandidates: 256,
  description:
    "PlanBench-XL: retrieval-mediated retail planning (hashing retriever, noisy siblings, " +
    "path-preserving blockers, trusted/untrusted values), bit-exact with the official runtime",
  optionsSchema: planBenchOptionsSchema as never,
  optionDocs: {
    dataDir:
      "release directory in the official format (default: $PLANBENCH_DATA_DIR or " +
      "../shared/planbench-xl, else the built-in generated world)",
    world: "auto (dataDir / official data / built-in) | builtin (always the generated world)",
    worldSeed: "seed of the built-in world generator (default 42)",
    domain:
      "built-in world's domain: a shipped name (configs/planbench/domains) or a path to a domain " +
      "JSON file; implies the built-in world (default retail)",
    setting:
      "default | blocker | explicit | implicit | misleading | finegrain_long | finegrain_short | " +
      "block_ratio_0.2..0.8 (paper's block ratio) | " +
      "feedback; old names noise_ratio_X = block_ratio_(1-X) (the official run YAMLs' target_remaining_ratio X)",
    settings:
      "overrides of the preset: { noise, blocker, runtime, capabilities: { tool_id_calling }, " +
      "query_sample: { size, seed } } with the official key names",
    compat:
      "fixed (default: bit-exact with the official runtime, an ambiguous lookup is an in-episode " +
      "error) | official (the episode ends there, unevaluated, as the official evaluator counts " +
      "it)",
    queryIds: "restrict the episode pool to these query ids; reset({options:{queryId}}) picks one",
    cycle:
      "true: query = pool[seed mod n] (pool = queries.json order, filtered by queryIds), so " +
      "`eval --episodes n` plays each query once (default false: seeded draw with replacement)",
    textActions: "accept {type:'text', text} actions parsed with the official tag rules (default true)",
    reward: "reward preset name, spec file path, or inline spec (default shaped)",
    maxSteps: "step limit (default 100, as the official runs)",
    invalidAction: "raise | penalize (default raise)",
    hiddenInfo: "include ground truth in info.hidden (default true)",
  },
  maxEpisodeSteps: 100,
  factory: (options, spec) => new PlanBenchEnv(planBenchOptionsSchema.parse(options), spec),
  policies: PLANBENCH_POLICIES,
  carefulPolicy: "planner",
  // Blockers off (as in the default setting); noise siblings, runtime and feedback stay as configured.
  noFaultOptions: { settings: { blocker: { enable_block: false } } },
  analyzeTrajectory: analyzePlanBenchTrajectory,
  aggregate: (results: readonly EpisodeResult[]) => {
    const rep = aggregateMetrics(results.map((r) => r.metrics as Record<string, number | null>));
    const metrics: Record<string, number> = {};
    for (const [k, v] of Object.entries(rep)) if (typeof v === "number") metrics[k] = v;
    // The paper's analyses over the evaluated episodes (a query the official runtime crashes on is not evaluated).
    const paper = paperAnalyses(results.map((r) => r.metrics).filter((m) => m["evaluated"] !== 0));
    Object.assign(metrics, paper.metrics);
    const rows = results.map((r) => {
      const m = r.metrics as JsonObject;
      return [
        r.taskId,
        r.success ? 1 : 0,
        Number(m["turns"] ?? 0),
        Number(m["searchTurns"] ?? 0),
        Number(m["callTurns"] ?? 0),
        String(m["officialFailure"] ?? ""),
      ];
    });
    return {
      metrics,
      breakdown: [...paper.tables, { title: "Per query", columns: ["query", "success", "turns", "search", "calls", "failure"], rows }],
    };
  },
});

export { PlanBenchEnv, planBenchOptionsSchema } from "./env.js";
export { loadRelease, resolveQueryInputs } from "./dataset.js";
export { PlanBenchDataError } from "./dataError.js";
export { scoreEpisode, aggregateMetrics, analyseEpisode } from "./scorer.js";
export { pathAndSelectionCounts, paperAnalyses } from "./paperAnalyses.js";
export { analyzePlanBenchTrajectory } from "./annotations.js";
export { remainingShortestPath, unblockedPaths } from "./potential.js";
export { PlanBenchSession } from "./session.js";
export { createWorld, PlanBenchEpisode } from "./world/index.js";
export { builtinRelease, generatePlanBenchWorld, loadDomain } from "./generator/index.js";
export { loadPreset, presetName, PRESET_NAMES, SETTING_ALIASES, SETTING_NAMES } from "./settings.js";
