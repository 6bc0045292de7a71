/**
 * World versions of the ToolMaze family. v0 is frozen (its canonical suite, faults and scores stay byte-identical for
 * reproducibility); v1 changes the world where v0 made recovery too easy for an observation-only policy (issue 16):
 * victims and corruption classes stratified identically in every C × P cell, one error-text pool for transient and
 * permanent explicit faults, distractors that can produce the types a task consumes (decoys), C3 alternative routes
 * of at least two calls, chains that grow with C, tasks that may borrow General-domain tools, and PRR as the paper
 * defines it, with recovery cost measured against what an observable policy can do. Every difference is a field of the
 * version's profile, read where the behaviour lives.
 */
import type { RecoveryOptimum } from "./optimum.js";
import type { Category } from "./world/catalog.js";

export const TOOLMAZE_VERSIONS = ["v0", "v1"] as const;
export type ToolMazeVersion = (typeof TOOLMAZE_VERSIONS)[number];

/** Whether a victim's corruption reads as a wrong value (physics/temporal/scale) or as leaked foreign content. */
export type CorruptionFamily = "value" | "leakage";

/** Where a base task's fault lands: the victim's category and, under implicit faults, the corruption family. */
export interface Stratum {
  readonly category: Category;
  readonly family: CorruptionFamily;
}

export interface VersionProfile {
  readonly version: ToolMazeVersion;
  /** Seed of the canonical suite. */
  readonly canonicalSeed: string;
  /** Prefix of canonical task ids. */
  readonly idPrefix: string;
  /** Chain length bounds of linear slots (C1 chains, C2 chains and C4's substitute slots). */
  readonly chain: { readonly C1: readonly [number, number]; readonly C2: readonly [number, number] };
  /** Minimum length of every route branch but the shortest (C3 alternatives must cost at least this many calls). */
  readonly minAlternativeRoute: number;
  /** Suffix length bounds of C3 routes (the route's output feeds a chain ending in an Action). */
  readonly suffix: readonly [number, number];
  /** A non-General task's chain may borrow General-domain steps (translate, e-mail, shorten…), as the paper's tasks do. */
  readonly crossDomain: boolean;
  /** Victim strata cycled over the tasks of every level (null = v0's unstratified victim choice). */
  readonly strata: readonly Stratum[] | null;
  /** Transient and permanent explicit faults draw their texts from one pool (permanence is learned by retrying). */
  readonly sharedErrorPool: boolean;
  /** Distractors may produce types the task consumes (type-valid detours the scorer rejects: decoys). */
  readonly decoys: boolean;
  /** Recovery counted as the paper does (a valid strategy executed, whatever the outcome) or only with success. */
  readonly recovery: "paper" | "success";
  /**
   * Whose minimum c* is in recovery cost: the oracle's, as the paper's formula reads, or the cheapest policy that cannot
   * tell a transient fault from a permanent one (needed once their texts are shared; see `optimum.ts`).
   */
  readonly recoveryOptimum: RecoveryOptimum;
}

/**
 * Ten strata, cycled by task index within a level, so every level (and every C × P cell, which shares its base tasks)
 * holds the same mix: victims 30% Actions, 40% Sources, 30% Processors; corruptions half value, half leakage. (Action
 * outputs are identifiers, so Action corruptions are leakage; Shopping has no Processor with a free-text or id output,
 * so Processor corruptions are values.)
 */
const V1_STRATA: readonly Stratum[] = [
  { category: "action", family: "leakage" },
  { category: "source", family: "value" },
  { category: "processor", family: "value" },
  { category: "source", family: "leakage" },
  { category: "action", family: "leakage" },
  { category: "processor", family: "value" },
  { category: "source", family: "leakage" },
  { category: "source", family: "value" },
  { category: "action", family: "leakage" },
  { category: "processor", family: "value" },
];

const PROFILES: Readonly<Record<ToolMazeVersion, VersionProfile>> = {
  v0: {
    version: "v0",
    canonicalSeed: "toolmaze-canonical-v1",
    idPrefix: "cn-",
    chain: { C1: [2, 4], C2: [2, 4] },
    suffix: [2, 4],
    minAlternativeRoute: 1,
    crossDomain: false,
    strata: null,
    sharedErrorPool: false,
    decoys: false,
    recovery: "success",
    recoveryOptimum: "oracle",
  },
  v1: {
    version: "v1",
    canonicalSeed: "toolmaze-canonical-v2",
    idPrefix: "cn1-",
    chain: { C1: [2, 3], C2: [2, 3] },
    suffix: [3, 6],
    minAlternativeRoute: 2,
    crossDomain: true,
    strata: V1_STRATA,
    sharedErrorPool: true,
    decoys: true,
    recovery: "paper",
    recoveryOptimum: "observable",
  },
};

export function versionProfile(version: ToolMazeVersion): VersionProfile {
  return PROFILES[version];
}
