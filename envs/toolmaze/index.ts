/** Registers ToolMaze-v0 and re-exports the family's public pieces. */
import type { JsonObject } from "../../src/core/json.js";
import { type EpisodeResult, type PolicyEntry, register } from "../../src/core/registry.js";
import { registerRewardTermKinds } from "../../src/rewards/catalog.js";
import { analyzeToolMazeTrajectory } from "./analysis.js";
import { TOOLMAZE_POLICIES } from "./baselines.js";
import { TOOLMAZE_MAX_STEPS, ToolMazeEnv, toolMazeOptionsSchema } from "./env.js";
import { aggregateRows, type MetricRow } from "./scorer.js";

// Kinds of the family's own reward terms: specs may re-weight them, never relabel them.
registerRewardTermKinds("toolmaze", { alternative_path: "event", excess_calls: "cost" });

register({
  id: "ToolMaze-v0",
  family: "toolmaze",
  description: "DAG tool tasks C1–C4 over a 270-tool simulated API corpus under perturbations NP, P1–P4 (explicit/implicit × transient/permanent); TSR / PRR / RC.",
  optionsSchema: toolMazeOptionsSchema as never,
  optionDocs: {
    suite: "canonical (2,000 fixed instances, default) | sampled (fresh task from the reset seed)",
    taskIndex: "canonical instance in [0, 2000) = base task * 5 + perturbation index; without it the reset seed picks one in a stratified order (levels and perturbations interleaved)",
    complexity: "C1 | C2 | C3 | C4: restrict to a level",
    perturbation: "NP | P1 | P2 | P3 | P4: restrict to a mode",
    domain: "Financial | Travel | Office | Shopping | IoT | General: restrict to a domain",
    distractors: "same-domain distractor tools shown (0-20, default 3)",
    hint: "failure-aware prompt variant (default false)",
    reward: "reward preset (shaped | sparse | potential-only | shaped-no-<term>), spec path or inline spec (default shaped)",
    maxSteps: `step limit (default ${TOOLMAZE_MAX_STEPS})`,
    invalidAction: "raise | penalize (default raise)",
    hiddenInfo: "include ground truth in info.hidden (default true; happy-path and oracle need it, heuristic does not)",
  },
  maxEpisodeSteps: TOOLMAZE_MAX_STEPS,
  factory: (options, spec) => new ToolMazeEnv(toolMazeOptionsSchema.parse(options), spec) as never,
  policies: TOOLMAZE_POLICIES as unknown as Record<string, PolicyEntry>,
  carefulPolicy: "heuristic",
  // With the perturbation pinned (P1–P4), a seed selects the same base task under NP.
  noFaultOptions: { perturbation: "NP" },
  analyzeTrajectory: analyzeToolMazeTrajectory,
  aggregate: (results: readonly EpisodeResult[]) => aggregateRows(results.map((r) => r.metrics as unknown as MetricRow & JsonObject)),
});

export { ToolMazeEnv, toolMazeOptionsSchema, type ToolMazeOptions } from "./env.js";
export { analyzeToolMazeTrajectory, RECOVERY_CATEGORIES, type RecoveryCategory } from "./analysis.js";
export { aggregateRows, scoreEpisode, type EpisodeMetrics } from "./scorer.js";
export { canonicalInstance, canonicalTasks, generateTask, meanPairwiseJaccard, CANONICAL_INSTANCES } from "./tasks.js";
export { corpus } from "./world/corpus.js";
