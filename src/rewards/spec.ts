import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError, describeZodIssues } from "../core/errors.js";

/**
 * A reward term's role. `terminal`: paid on outcomes (success, wise abort); `event`: recovery behaviours, capped
 * per episode so they cannot be farmed; `cost`: per-call or penalty terms (usually negative weights);
 * `potential`: F = γΦ(s′) − Φ(s), which provably leaves the optimal policy unchanged.
 */
export const rewardTermKindSchema = z.enum(["terminal", "event", "cost", "potential"]);

export const rewardTermSchema = z
  .object({
    weight: z.number().finite(),
    kind: rewardTermKindSchema,
    /** Upper bound on the absolute total this term may contribute in one episode. */
    cap: z.number().positive().optional(),
    description: z.string().optional(),
  })
  .strict()
  .refine((t) => t.kind !== "event" || t.weight === 0 || t.cap !== undefined, {
    message: "event terms must have a cap (so they cannot be farmed)",
  });

export const rewardSpecSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    gamma: z.number().min(0).max(1).default(1),
    terms: z.record(z.string(), rewardTermSchema),
  })
  .strict();

export type RewardTerm = z.infer<typeof rewardTermSchema>;
export type RewardSpec = z.infer<typeof rewardSpecSchema>;

/** Validates a spec against the env's term catalog; errors name the bad term. */
export function parseRewardSpec(input: unknown, knownTerms: readonly string[] | null, source = "reward spec"): RewardSpec {
  const res = rewardSpecSchema.safeParse(input);
  if (!res.success) {
    const { field, message } = describeZodIssues(res.error.issues, input);
    throw new ConfigError(field, `${source}: ${message}`);
  }
  if (knownTerms) {
    for (const name of Object.keys(res.data.terms)) {
      if (!knownTerms.includes(name)) {
        throw new ConfigError(`terms.${name}`, `${source}: unknown reward term "${name}"; this env knows: ${knownTerms.join(", ")}`);
      }
    }
  }
  return res.data;
}

export function loadRewardSpecFile(path: string, knownTerms: readonly string[] | null): RewardSpec {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError("reward", `cannot read reward spec file ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError("reward", `${path}: not valid JSON: ${(e as Error).message}`);
  }
  return parseRewardSpec(json, knownTerms, path);
}
