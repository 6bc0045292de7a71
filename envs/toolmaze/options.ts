/** ToolMaze's options (suite, instance filters, distractors, hint) on top of the engine's tool-env options. */
import { z } from "zod";
import { toolEnvOptionsSchema } from "../../src/family.js";
import { CANONICAL_INSTANCES, COMPLEXITIES, PERTURBATIONS } from "./tasks.js";
import { DOMAINS } from "./world/catalog.js";

export const toolMazeOptionsSchema = toolEnvOptionsSchema
  .extend({
    /** canonical: the fixed 2,000-instance suite; sampled: a fresh task from the reset seed. */
    suite: z.enum(["canonical", "sampled"]).default("canonical"),
    /** Pins one canonical instance (base task * 5 + perturbation index). */
    taskIndex: z
      .number()
      .int()
      .min(0)
      .max(CANONICAL_INSTANCES - 1)
      .optional(),
    complexity: z.enum(COMPLEXITIES).optional(),
    perturbation: z.enum(PERTURBATIONS).optional(),
    domain: z.enum(DOMAINS).optional(),
    /** Same-domain tools shown besides the task's own (never members of the task's alternative groups). */
    distractors: z.number().int().min(0).max(20).default(3),
    /** Failure-aware prompt variant (warns that tools may fail and lists recovery strategies). */
    hint: z.boolean().default(false),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.taskIndex !== undefined && o.suite === "sampled") {
      ctx.addIssue({ code: "custom", path: ["taskIndex"], message: 'taskIndex only applies to suite "canonical"' });
    }
    if (o.taskIndex !== undefined && (o.complexity || o.perturbation || o.domain)) {
      ctx.addIssue({
        code: "custom",
        path: ["taskIndex"],
        message: "taskIndex pins one instance; drop the complexity/perturbation/domain filters",
      });
    }
  });
export type ToolMazeOptions = z.infer<typeof toolMazeOptionsSchema>;
