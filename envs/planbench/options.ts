/** The options of PlanBenchXL-v0 (zod): the engine's options plus the release, world, setting and compat choices. */
import { z } from "zod";
import { toolEnvOptionsSchema } from "../../src/family.js";
import { domainFile } from "./generator/index.js";
import { PlanBenchSettingsSchema, SETTING_NAMES } from "./settings.js";

export const planBenchOptionsSchema = toolEnvOptionsSchema
  .extend({
    /** Release directory in the official format; default: the official data next to the repo, if present. */
    dataDir: z.string().min(1).optional(),
    /** `auto`: `dataDir`, else the official data if found, else the built-in world; `builtin`: always the built-in world. */
    world: z.enum(["auto", "builtin"]).default("auto"),
    /** Seed of the built-in world's generator. */
    worldSeed: z.number().int().nonnegative().default(42),
    /**
     * Domain of the built-in world: a shipped name (configs/planbench/domains/<name>.json) or a path to a domain JSON
     * file. Implies the built-in world (a release directory carries its own domain). Default: retail.
     */
    domain: z
      .string()
      .min(1)
      .superRefine((v, ctx) => {
        try {
          domainFile(v);
        } catch (e) {
          ctx.addIssue({ code: "custom", message: (e as Error).message });
        }
      })
      .optional(),
    /** Named setting preset (the official run configs). */
    setting: z.enum(SETTING_NAMES).default("default"),
    /** Field overrides on top of the preset (`noise` / `blocker` / `runtime`, official key names). */
    settings: PlanBenchSettingsSchema.partial().optional(),
    /**
     * `fixed` (default): bit-exact with the official runtime, except that an ambiguous DB lookup (where the official
     * code crashes) is an in-episode call error; `official`: the episode ends there, unevaluated, as the official
     * evaluator (which never sees the crashed query) counts it.
     */
    compat: z.enum(["fixed", "official"]).default("fixed"),
    /** Restrict the episode pool to these query ids. */
    queryIds: z.array(z.string().min(1)).min(1).optional(),
    /**
     * `true`: the query of a seeded reset is pool[seed mod |pool|] (pool = the release's queries in queries.json order,
     * filtered by `queryIds`), so seeds 0..n-1 play every query exactly once; default `false`: a seeded draw.
     */
    cycle: z.boolean().default(false),
    /** Accept `{type:"text"}` actions: an LLM's raw reply parsed with the official tag rules. */
    textActions: z.boolean().default(true),
  })
  .strict();
export type PlanBenchOptions = z.infer<typeof planBenchOptionsSchema>;
