import { type EpisodeResult, type JsonObject, mean, register, registerRewardTermKinds } from "../../src/family.js";
import { DEMO_POLICIES } from "./baselines.js";
import { DemoEnv, demoOptionsSchema } from "./env.js";

// Kinds of the family's own reward terms: specs may re-weight them, never relabel them.
registerRewardTermKinds("demo", { sent_correct_email: "event" });

register({
  id: "Demo-v0",
  family: "demo",
  description: "Five-tool demo: fetch a temperature (one provider faulty), convert it, e-mail it. Exercises every engine mechanism.",
  optionsSchema: demoOptionsSchema as never,
  optionDocs: {
    fault: "none | transient | permanent | implicit (default transient): the forecast group's fault",
    reward: "reward preset name, spec file path, or inline spec (default shaped)",
    maxSteps: "step limit (default 10)",
    invalidAction: "raise | penalize (default raise)",
    hiddenInfo: "include ground truth in info.hidden (default true)",
  },
  maxEpisodeSteps: 10,
  factory: (options, spec) => new DemoEnv(demoOptionsSchema.parse(options), spec) as never,
  policies: DEMO_POLICIES,
  carefulPolicy: "careful",
  noFaultOptions: { fault: "none" },
  aggregate: (results: readonly EpisodeResult[]) => ({
    metrics: {
      successRate: mean(results.map((r) => (r.success ? 1 : 0))),
      meanToolCalls: mean(results.map((r) => Number((r.metrics as JsonObject).toolCalls ?? 0))),
    },
    breakdown: [],
  }),
});

export { DemoEnv } from "./env.js";
