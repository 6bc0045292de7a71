import { type JsonObject, register, registerRewardTermKinds } from "../../src/family.js";
import { FT_POLICIES } from "./baselines.js";
import { FailingToolsEnv, ftOptionsSchema, MAX_STEPS } from "./env.js";
import { aggregateFailingTools } from "./report.js";
import { analyzeFailingToolsTrajectory } from "./analyze.js";

// Kinds of the family's own reward terms: specs may re-weight them, never relabel them.
registerRewardTermKinds("failingtools", {
  final_score: "terminal",
  checkpoint_credit: "terminal",
  required_progress: "event",
  readback_after_write: "event",
  fallback_after_permanent: "event",
  retry_after_temporary: "event",
});

register({
  id: "FailingTools-v0",
  family: "failingtools",
  description:
    "Failing Tools: 30 stateful service APIs (5 domains, 12 categories), 286 scenarios (4 multi-step templates) × " +
    "7 failure sources × permanent/temporary, staged fallback disclosure, safety-gated scoring (Clean / Relaxed / Base).",
  optionsSchema: ftOptionsSchema as never,
  optionDocs: {
    setting: "clean | relaxed | base (default base): no injection / required calls and their order only / all constraints + checkpoints",
    scenarioId: "play one scenario (e.g. ft-payments.send-corrupted-state-perm-zelle); otherwise the reset seed picks one",
    source:
      "filter: availability_denial | data_staleness | silent_noop | corrupted_state | schema_mismatch | " +
      "disambiguation_failure | compound_cascade",
    persistence: "filter: permanent | temporary",
    domain: "filter: information | communication | finance | commerce | travel",
    category: "filter: one of the 12 service categories (weather, payments, ...)",
    cycle:
      "true: scenario = (seed mod count) of the filtered set, so `--episodes 286` covers every scenario once (default false: seeded draw)",
    maxUserTurns: "how many ask_user questions the simulated user answers (default 2)",
    harness: "prompt harness H1 (default: the request alone) | H2 (+ failure notice) | H3 (+ recovery protocol); see harness.ts",
    judge: "concept judge for checkpoints, by registered name (default: the deterministic matcher; add one with registerConceptJudge)",
    reward: "reward preset (default shaped; see configs/rewards/failingtools), spec path, or inline spec",
    maxSteps: `step limit (default ${MAX_STEPS})`,
    invalidAction: "raise | penalize (default raise)",
    hiddenInfo: "include ground truth in info.hidden (default true)",
  },
  maxEpisodeSteps: MAX_STEPS,
  factory: (options: JsonObject, spec) => new FailingToolsEnv(ftOptionsSchema.parse(options), spec) as never,
  policies: FT_POLICIES,
  carefulPolicy: "careful",
  // Clean = no injection (its scoring tier checks required calls and ordering only).
  noFaultOptions: { setting: "clean" },
  aggregate: aggregateFailingTools,
  analyzeTrajectory: analyzeFailingToolsTrajectory,
});

export { FailingToolsEnv, ftOptionsSchema } from "./env.js";
export { buildScenarios, generateScenarios, scenarioById } from "./scenarios/generate.js";
export { WORKED_EXAMPLES } from "./scenarios/worked.js";
export { scoreRun, type FtRun, type FtScore, type FailureLabel } from "./scorer.js";
export { assertsWrongValue, defaultJudge, DISCLOSURE, NEGATION_BREAKERS, NEGATION_CUES, type ConceptJudge } from "./concepts.js";
export { conceptJudge, knownConceptJudges, registerConceptJudge } from "./judges.js";
export { argMatches, type ArgMatcher } from "./scenarios/argMatch.js";
export { FT_HIDDEN_STEP_KEYS } from "./hidden.js";
export { aggregateFailingTools } from "./report.js";
export { analyzeFailingToolsTrajectory } from "./analyze.js";
