import { ConfigError } from "../core/errors.js";

/**
 * A reward term's role. `terminal`: paid on outcomes (success, wise abort), at most once per episode; `event`:
 * recovery behaviours, capped per episode so they cannot be farmed; `cost`: per-call or penalty counts (negative
 * weights, or capped); `potential`: F = γΦ(s′) − Φ(s), which leaves the optimal policy unchanged.
 */
export const REWARD_TERM_KINDS = ["terminal", "event", "cost", "potential"] as const;
export type RewardTermKind = (typeof REWARD_TERM_KINDS)[number];

/** Term name -> kind. The kind belongs to the signal, not to a spec: a spec can re-weight a term, never relabel it. */
export type RewardTermKinds = Readonly<Record<string, RewardTermKind>>;

/**
 * An env's reward term catalog as specs are checked against it: every term the env reports, with its fixed kind
 * (`null` when a family reports a term but declared no kind for it; such a term cannot be used in a spec).
 */
export type RewardTermCatalog = Readonly<Record<string, RewardTermKind | null>>;

/** Kinds of the core terms every tool env reports (their meaning: `CORE_TERMS` in src/engine/terms.ts). */
export const CORE_TERM_KINDS: RewardTermKinds = {
  success: "terminal",
  failure: "terminal",
  wise_abort: "terminal",
  tool_call: "cost",
  invalid_call: "cost",
  futile_retry: "cost",
  poisoned_value: "cost",
  forbidden_call: "cost",
  budget_exceeded: "cost",
  retry_after_fault: "event",
  alternative_switch: "event",
  verification: "event",
  potential: "potential",
};

const FAMILY_TERM_KINDS = new Map<string, RewardTermKinds>();

/**
 * Declares the kinds of a family's own reward terms (its `familyTerms`). Called from the family's registration
 * file, next to `register()`. A core term keeps its core kind; redeclaring it differently is an error.
 */
export function registerRewardTermKinds(family: string, kinds: RewardTermKinds): void {
  for (const [name, kind] of Object.entries(kinds)) {
    if (!(REWARD_TERM_KINDS as readonly string[]).includes(kind))
      throw new ConfigError(
        `rewardTermKinds.${name}`,
        `${family}: unknown reward term kind "${kind}" for ${name}; kinds: ${REWARD_TERM_KINDS.join(", ")}`,
      );
    const core = CORE_TERM_KINDS[name];
    if (core && core !== kind)
      throw new ConfigError(`rewardTermKinds.${name}`, `${family}: ${name} is a core ${core} term; a family cannot make it ${kind}`);
  }
  FAMILY_TERM_KINDS.set(family, { ...kinds });
}

/** The catalog of an env: its known term names (core + family) with their fixed kinds. */
export function rewardTermCatalog(family: string | null, knownTerms: readonly string[]): RewardTermCatalog {
  const own = (family ? FAMILY_TERM_KINDS.get(family) : undefined) ?? {};
  return Object.fromEntries(knownTerms.map((name) => [name, CORE_TERM_KINDS[name] ?? own[name] ?? null]));
}
