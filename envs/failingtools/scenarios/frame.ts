import type { ProviderDef, TaskSpec } from "../world/index.js";
import type { ArgMatcher } from "./argMatch.js";
import type { FailureSource, Setting } from "./schema.js";

/** The facts every part of a generated scenario (requirements, chain steps, checkpoints) is derived from. */
export interface ScenarioFrame {
  task: TaskSpec;
  source: FailureSource;
  primary: ProviderDef;
  fallback: ProviderDef;
  /** The main operation's tool on the primary provider. */
  M: string;
  /** The main operation's tool on the fallback provider. */
  F: string;
  /** The request text, `{provider}` replaced by the primary's label. */
  request: string;
  /** The main call's argument requirements (bound arguments come from an earlier step, per provider). */
  mainArgs: Record<string, ArgMatcher> | undefined;
  permanent: boolean;
  /** A permanent compound cascade: the right outcome is telling the user the request could not be completed. */
  refusal: boolean;
  /** A permanent failure the fallback provider recovers from. */
  usesFallback: boolean;
  /** The write's read-back tool on the primary and on the fallback (null for reads). */
  verifyM: string | null;
  verifyF: string | null;
}

export const ALL: Setting[] = ["clean", "relaxed", "base"];
export const RB: Setting[] = ["relaxed", "base"];
export const B: Setting[] = ["base"];
/** Outcome checks: Clean and Base. Relaxed checks only required calls and their order (the paper's definition). */
export const CB: Setting[] = ["clean", "base"];

/** A required call's `args` member, present only when the request fixes some argument. */
export const withArgs = (a: Record<string, ArgMatcher> | undefined) => (a ? { args: a } : {});
