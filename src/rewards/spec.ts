import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError, RecoveryGymError, describeZodIssues } from "../core/errors.js";
import { REWARD_TERM_KINDS, type RewardTermCatalog, type RewardTermKind } from "./catalog.js";

export { REWARD_TERM_KINDS, type RewardTermCatalog, type RewardTermKind } from "./catalog.js";

export const rewardTermKindSchema = z.enum(REWARD_TERM_KINDS);

/**
 * One term of a spec as written. Against an env's catalog a spec sets only `weight` (and `cap`): the kind is fixed
 * by the catalog, and a `kind` written in the spec must repeat it (it documents the file, it cannot relabel a term).
 * Without a catalog (a spec checked on its own, e.g. by scripts) `kind` is required.
 */
export const rewardTermSchema = z
  .object({
    weight: z.number().finite(),
    kind: rewardTermKindSchema.optional(),
    /** Upper bound on the absolute total this term may contribute in one episode. */
    cap: z.number().positive().optional(),
    description: z.string().optional(),
  })
  .strict();

export const rewardSpecSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    gamma: z.number().min(0).max(1).default(1),
    /**
     * Φ of the state an episode ends in. "keep" (the default when absent): the env's Φ(s_T), so the shaping sums to
     * γ^T·Φ(s_T) − Φ(s_0) and rewards partial progress at the end. "zero": Φ(s_T) := 0 on the final step (Ng et
     * al.'s condition for episodic tasks), so the shaping sums to −Φ(s_0), the same for every policy.
     */
    potentialTerminal: z.enum(["keep", "zero"]).optional(),
    terms: z.record(z.string(), rewardTermSchema),
  })
  .strict();

/** A term of a validated spec: its kind resolved from the catalog. */
export interface RewardTerm {
  weight: number;
  kind: RewardTermKind;
  cap?: number;
  description?: string;
}

/** A validated spec (`parseRewardSpec`): every term has its catalog kind and obeys that kind's rule. */
export interface RewardSpec {
  name: string;
  description?: string;
  gamma: number;
  potentialTerminal?: "keep" | "zero";
  terms: Record<string, RewardTerm>;
}

/**
 * The rule of each kind, so no term can be farmed: an event term pays per occurrence, so it needs a per-episode cap;
 * a cost term with a positive weight would pay per call, so it needs one too; a potential term must stay uncapped,
 * or its sum would no longer telescope to γ^T·Φ(s_T) − Φ(s_0).
 */
function kindRuleViolation(kind: RewardTermKind, term: z.infer<typeof rewardTermSchema>): string | null {
  if (kind === "event" && term.weight !== 0 && term.cap === undefined) return "event terms must have a cap (so they cannot be farmed)";
  if (kind === "cost" && term.weight > 0 && term.cap === undefined)
    return "a cost term with a positive weight pays per occurrence: give it a cap or a weight <= 0";
  if (kind === "potential" && term.cap !== undefined)
    return "potential terms cannot be capped (a cap breaks the shaping identity γ^T·Φ(s_T) − Φ(s_0))";
  return null;
}

/**
 * Validates a spec against the env's term catalog (`rewardTermCatalog`); errors name the bad term. With `null`
 * (no env at hand) terms are checked on their own and must state their kind.
 */
export function parseRewardSpec(input: unknown, catalog: RewardTermCatalog | null, source = "reward spec"): RewardSpec {
  const res = rewardSpecSchema.safeParse(input);
  if (!res.success) {
    const { field, message } = describeZodIssues(res.error.issues, input);
    throw new ConfigError(field, `${source}: ${message}`);
  }
  const terms: Record<string, RewardTerm> = {};
  for (const [name, term] of Object.entries(res.data.terms)) {
    const field = `terms.${name}`;
    if (catalog && !(name in catalog)) {
      throw new ConfigError(field, `${source}: unknown reward term "${name}"; this env knows: ${Object.keys(catalog).join(", ")}`);
    }
    const fixed = catalog ? catalog[name] : undefined;
    if (fixed === null)
      throw new ConfigError(
        `${field}.kind`,
        `${source}: reward term "${name}" has no kind in the env's term catalog (its family must declare it with registerRewardTermKinds)`,
      );
    if (fixed && term.kind !== undefined && term.kind !== fixed) {
      throw new ConfigError(
        `${field}.kind`,
        `${source}: ${field}.kind is "${term.kind}", but the env's term catalog fixes "${name}" as ` +
          `a ${fixed} term; a spec may set weight and cap only`,
      );
    }
    const kind = fixed ?? term.kind;
    if (!kind)
      throw new ConfigError(`${field}.kind`, `${source}: ${field}.kind is required when the spec is checked without an env's term catalog`);
    const violation = kindRuleViolation(kind, term);
    if (violation) throw new ConfigError(field, `${source}: ${field} (${kind}): ${violation}`);
    terms[name] = { ...term, kind };
  }
  return { ...res.data, terms };
}

export function loadRewardSpecFile(
  path: string,
  catalog: RewardTermCatalog | null,
  read: (file: string) => string = (f) => readFileSync(f, "utf8"),
): RewardSpec {
  let text: string;
  try {
    text = read(path);
  } catch (e) {
    if (e instanceof RecoveryGymError) throw e;
    throw new ConfigError("reward", `cannot read reward spec file ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    // V8 quotes the text around the error; a server must not echo a file's content, so only the position is kept.
    const why = (e as Error).message.replace(/"(?:[^"\\]|\\.)*"(?:\.\.\.)?|'[^']*'/g, "…");
    throw new ConfigError("reward", `${path}: not valid JSON: ${why}`);
  }
  return parseRewardSpec(json, catalog, path);
}
