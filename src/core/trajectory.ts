import { z } from "zod";

/** Version of the trajectory JSONL schema; bump on any incompatible change. */
export const TRAJECTORY_SCHEMA_VERSION = 1;

const json = z.json();

export const trajectoryStepSchema = z.object({
  t: z.number().int().nonnegative(),
  action: json,
  observation: json,
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  rewardTerms: z.record(z.string(), z.number()),
  rawTerms: z.record(z.string(), z.number()),
  phi: z.number().nullable(),
  events: z.array(z.record(z.string(), json)),
  /** Per-step ground-truth annotations (blocked tools, progress vs non-progress call, ...). */
  hidden: json.optional(),
});

/** One finished episode, one JSON line. */
export const trajectorySchema = z.object({
  schema: z.literal("recovery-gym/trajectory"),
  version: z.literal(TRAJECTORY_SCHEMA_VERSION),
  episodeId: z.string(),
  envId: z.string(),
  options: z.record(z.string(), json),
  seed: z.number().int().nullable(),
  libraryVersion: z.string(),
  /** The policy that played the episode (written by `collect`; absent in files of other writers). */
  policy: z.string().optional(),
  taskId: z.string().nullable(),
  initialObservation: json,
  initialHidden: json.optional(),
  phi0: z.number().nullable(),
  steps: z.array(trajectoryStepSchema),
  return: z.number(),
  length: z.number().int(),
  success: z.boolean(),
  terminationReason: z.string(),
  metrics: z.record(z.string(), json),
  /** Ground truth at the end of the episode. */
  hidden: json.optional(),
  /** Family analyses computed at the end (failure category, blocker follow-up, ...). */
  analysis: z.record(z.string(), json).optional(),
});

export type TrajectoryStep = z.infer<typeof trajectoryStepSchema>;
export type Trajectory = z.infer<typeof trajectorySchema>;
