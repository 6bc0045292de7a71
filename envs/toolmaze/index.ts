/** Registers ToolMaze-v0 and ToolMaze-v1 (one env class, two worlds: see version.ts) and re-exports the family's public pieces. */
import { z } from "zod";
import { type JsonObject, type EpisodeResult, register, registerRewardTermKinds } from "../../src/family.js";
import { analyzeToolMazeTrajectory } from "./analysis.js";
import { TOOLMAZE_POLICIES } from "./baselines.js";
import { TOOLMAZE_MAX_STEPS, ToolMazeEnv, toolMazeOptionsSchema } from "./env.js";
import { aggregateRows, type MetricRow } from "./scorer.js";
import type { ToolMazeVersion } from "./version.js";

/** The per-episode metrics `aggregateRows` reads, checked where they leave `info.metrics` (other keys pass through). */
const metricRowSchema: z.ZodType<MetricRow> = z.looseObject({
  complexity: z.string(),
  perturbation: z.string(),
  success: z.number(),
  exposed: z.number(),
  recovered: z.number().nullable(),
  recoveredOnSuccess: z.number().nullable().optional(),
  rc: z.number(),
  rcLiteral: z.number().optional(),
});

// Kinds of the family's own reward terms: specs may re-weight them, never relabel them.
registerRewardTermKinds("toolmaze", { alternative_path: "event", excess_calls: "cost" });

const OPTION_DOCS = {
  suite: "canonical (2,000 fixed instances, default) | sampled (fresh task from the reset seed)",
  taskIndex: "canonical instance in [0, 2000) = base task * 5 + perturbation index; without it the reset seed picks one "
    + "in a stratified order (levels and perturbations interleaved)",
  complexity: "C1 | C2 | C3 | C4: restrict to a level",
  perturbation: "NP | P1 | P2 | P3 | P4: restrict to a mode",
  domain: "Financial | Travel | Office | Shopping | IoT | General: restrict to a domain",
  distractors: "same-domain distractor tools shown (0-20, default 3; ToolMaze-v1 also shows sandbox decoy twins of some task tools)",
  hint: "failure-aware prompt variant (default false)",
  reward: "reward preset (shaped | sparse | potential-only | shaped-no-<term>), spec path or inline spec (default shaped)",
  maxSteps: `step limit (default ${TOOLMAZE_MAX_STEPS})`,
  invalidAction: "raise | penalize (default raise)",
  hiddenInfo: "include ground truth in info.hidden (default true; happy-path and oracle need it, heuristic does not)",
};

/** The registration both versions share; they differ in the world (`version`) and the description. */
function registerVersion(version: ToolMazeVersion, description: string): void {
  register({
    id: `ToolMaze-${version}`,
    family: "toolmaze",
    description,
    optionsSchema: toolMazeOptionsSchema as never,
    optionDocs: OPTION_DOCS,
    maxEpisodeSteps: TOOLMAZE_MAX_STEPS,
    factory: (options, spec) => new ToolMazeEnv(toolMazeOptionsSchema.parse(options), spec, version) as never,
    policies: TOOLMAZE_POLICIES,
    carefulPolicy: "heuristic",
    // The unperturbed instance of the same base task (instance = base task * 5 + perturbation index); without hidden
    // info, or on the sampled suite (whose task does not depend on the perturbation), pinning NP is enough.
    noFaultOptions: (options, info): JsonObject => {
      const i = (info.hidden as { instanceIndex?: unknown } | undefined)?.instanceIndex;
      if (typeof i !== "number") return { ...options, perturbation: "NP" };
      const { complexity: _c, perturbation: _p, domain: _d, ...rest } = options; // taskIndex excludes the filters
      return { ...rest, taskIndex: i - (i % 5) };
    },
    analyzeTrajectory: analyzeToolMazeTrajectory,
    aggregate: (results: readonly EpisodeResult[]) => aggregateRows(results.map((r) => metricRowSchema.parse(r.metrics))),
  });
}

registerVersion("v0", "DAG tool tasks C1–C4 over a 270-tool simulated API corpus under perturbations NP, P1–P4 "
  + "(explicit/implicit × transient/permanent); TSR / PRR / RC. Frozen world, kept for reproducibility; ToolMaze-v1 is the default.");
registerVersion("v1", "ToolMaze with the paper's difficulty structure: stratified victims (Actions included) in every C × P cell, "
  + "permanence learned by retrying, decoy tools, multi-call alternative routes, cross-domain tasks; PRR as the paper defines it.");

export { ToolMazeEnv, toolMazeOptionsSchema, type ToolMazeOptions } from "./env.js";
export { analyzeToolMazeTrajectory, RECOVERY_CATEGORIES, type RecoveryCategory } from "./analysis.js";
export { aggregateRows, scoreEpisode, type EpisodeMetrics } from "./scorer.js";
export { canonicalInstance, canonicalTasks, generateTask, meanPairwiseJaccard, CANONICAL_INSTANCES } from "./tasks.js";
export { corpus } from "./world/corpus.js";
export { TOOLMAZE_VERSIONS, type ToolMazeVersion, versionProfile } from "./version.js";
