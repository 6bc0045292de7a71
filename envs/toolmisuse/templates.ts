/**
 * Task templates for our ToolMisuseBench-style generator: per domain, an instruction with
 * varied phrasings, an initial state, success criteria and the gold plan (ordered calls, some
 * optional, some with an alternative route). Shapes of ids, paths and phrasings follow what
 * was observed of the official v0.2 release (reference §1.5); the templates themselves are ours.
 * This module holds their types and the per-domain lists; the templates are in templates/<domain>.ts.
 *
 * Multi-step templates (3–5 gold calls) for medium and hard tasks: several per domain, each with
 * a different mix of reads, writes and verifications, and with data flow where a real workflow
 * has it (copying a file means reading it first). Every template has at least one optional or
 * routable step so a persistent fault can be placed where a careful agent can still succeed,
 * and each required step declares the criteria it makes true (`achieves`, for the potential Φ).
 */
import type { JsonObj, OfficialAction } from "./world/types.js";
import { CRUD_MULTISTEP, CRUD_SHORT } from "./templates/crud.js";
import { FILES_MULTISTEP, FILES_SHORT } from "./templates/files.js";
import { RETRIEVAL_MULTISTEP, RETRIEVAL_SHORT } from "./templates/retrieval.js";
import { SCHEDULING_MULTISTEP, SCHEDULING_SHORT } from "./templates/scheduling.js";

/** The subset of the core `Rng` the generator needs (structural, so the core class fits). */
export interface GenRng {
  derive(name: string | number): GenRng;
  random(): number;
  int(n: number): number;
  range(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
  weighted(weights: readonly number[]): number;
}

export type GenDomain = "crud" | "retrieval" | "files" | "scheduling";
export const GEN_DOMAINS: readonly GenDomain[] = ["crud", "retrieval", "files", "scheduling"];

export interface PlanStep {
  call: OfficialAction;
  /** May be skipped when it fails persistently; success criteria never depend on it. */
  optional?: boolean;
  /** Calls that achieve the same effect if this one fails persistently. */
  alternative?: OfficialAction[];
  /**
   * Indices of the success criteria this step makes true (the potential Φ counts required steps
   * with an unmet criterion). Omitted everywhere: all criteria belong to the last required step.
   */
  achieves?: number[];
}

export interface Draft {
  template: string;
  /** Solvable without reading the instruction (schema-order default calls), like v0.1's easy share. */
  blind: boolean;
  instruction: string;
  initialState: JsonObj;
  criteria: JsonObj[];
  steps: PlanStep[];
}

export interface TemplateCtx {
  rng: GenRng;
  split: string;
  index: number;
}

/** A task family: `calls` = gold calls on the clean path (1: easy; ≥ 2: medium and hard). */
export type Template = { name: string; calls: number; build: (c: TemplateCtx) => Draft };

/** Every template of a domain, in the order the generator draws from (the order is part of the seeded output). */
export const TEMPLATES: Record<GenDomain, Template[]> = {
  crud: [...CRUD_SHORT, ...CRUD_MULTISTEP],
  retrieval: [...RETRIEVAL_SHORT, ...RETRIEVAL_MULTISTEP],
  files: [...FILES_SHORT, ...FILES_MULTISTEP],
  scheduling: [...SCHEDULING_SHORT, ...SCHEDULING_MULTISTEP],
};
