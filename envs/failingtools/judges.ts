import { OptionsError } from "../../src/family.js";
import { type ConceptJudge, defaultJudge } from "./concepts.js";

/**
 * Named concept judges for checkpoint scoring. `default` is the deterministic matcher of concepts.ts; register
 * another (e.g. an LLM judge with a cache) and select it with the env option `judge: "<name>"`. The registry is
 * per process: register the judge in every process that builds envs (worker threads and bridge workers import
 * the package afresh). A judge must be a pure function of (message, concept) for episodes to stay replayable.
 */

export const DEFAULT_JUDGE = "default";

const JUDGES = new Map<string, ConceptJudge>([[DEFAULT_JUDGE, defaultJudge]]);

/** Registers (or replaces) a judge under `name`; `default` cannot be replaced. */
export function registerConceptJudge(name: string, judge: ConceptJudge): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(name))
    throw new OptionsError("judge", `judge name "${name}" must be letters, digits, _ . : - (starting with a letter or digit)`);
  if (name === DEFAULT_JUDGE)
    throw new OptionsError("judge", `the "${DEFAULT_JUDGE}" judge cannot be replaced; register yours under another name`);
  if (typeof judge !== "function")
    throw new OptionsError("judge", `registerConceptJudge("${name}"): judge must be a function (message, concept) => boolean`);
  JUDGES.set(name, judge);
}

/** Names of the registered judges, sorted. */
export function knownConceptJudges(): string[] {
  return [...JUDGES.keys()].sort();
}

export function hasConceptJudge(name: string): boolean {
  return JUDGES.has(name);
}

/** The judge registered under `name` (typed error listing the known ones otherwise). */
export function conceptJudge(name: string): ConceptJudge {
  const j = JUDGES.get(name);
  if (!j) throw new OptionsError("judge", `unknown concept judge "${name}"; known judges: ${knownConceptJudges().join(", ")}`);
  return j;
}
