import { z } from "zod";
import { toolEnvOptionsSchema } from "../../src/family.js";
import { HARNESSES } from "./harness.js";
import { DEFAULT_JUDGE, hasConceptJudge, knownConceptJudges } from "./judges.js";
import { generateScenarios, scenarioById } from "./scenarios/generate.js";
import { FAILURE_SOURCES, type Scenario, SETTINGS } from "./scenarios/schema.js";
import { CATEGORIES, DOMAINS } from "./world/index.js";

/** FailingTools-v0 options (zod): errors name the field; unknown judges and scenario ids list what exists. */
export const ftOptionsSchema = toolEnvOptionsSchema
  .extend({
    /** clean: no injection; relaxed: required calls + ordering only; base: plus verification, confirmation, checkpoints. */
    setting: z.enum(SETTINGS).default("base"),
    /** Play one scenario; without it the reset seed picks one from the (filtered) set. */
    scenarioId: z.string().optional(),
    source: z.enum(FAILURE_SOURCES).optional(),
    persistence: z.enum(["permanent", "temporary"]).optional(),
    domain: z.enum(DOMAINS).optional(),
    category: z.enum(CATEGORIES.map((c) => c.id) as [string, ...string[]]).optional(),
    /** Pick scenario number (seed mod count) instead of a seeded draw: seeds 0..N-1 then cover every scenario once. */
    cycle: z.boolean().default(false),
    /** How many `ask_user` questions get an answer. */
    maxUserTurns: z.number().int().min(0).max(5).default(2),
    /** Prompt-harness variant (harness.ts): H1 the request alone (default), H2 + failure notice, H3 + recovery protocol. */
    harness: z.enum(HARNESSES).optional(),
    /** The concept judge scoring checkpoints, by registered name (judges.ts). */
    judge: z.string().min(1).default(DEFAULT_JUDGE),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (!hasConceptJudge(o.judge)) {
      ctx.addIssue({
        code: "custom",
        path: ["judge"],
        message:
          `unknown concept judge "${o.judge}"; known judges: ${knownConceptJudges().join(", ")} ` +
          `(register one with registerConceptJudge)`,
      });
    }
    if (o.scenarioId !== undefined && !scenarioById(o.scenarioId)) {
      ctx.addIssue({
        code: "custom",
        path: ["scenarioId"],
        message: `unknown scenario id "${o.scenarioId}" (ids look like ft-payments.send-silent-noop-perm-zelle)`,
      });
    } else if (o.scenarioId === undefined && pool(o).length === 0) {
      ctx.addIssue({ code: "custom", path: ["source"], message: "no scenario matches the source/persistence/domain/category filters" });
    }
  });
export type FtOptions = z.infer<typeof ftOptionsSchema>;

type Filter = Pick<FtOptions, "source" | "persistence" | "domain" | "category">;
export function pool(o: Filter): Scenario[] {
  return generateScenarios().filter(
    (s) =>
      (!o.source || s.source === o.source) &&
      (!o.persistence || s.persistence.type === o.persistence) &&
      (!o.domain || s.domain === o.domain) &&
      (!o.category || s.category === o.category),
  );
}
