/**
 * Task model. A task is a DAG of tool calls described by *positions*: a position is one capability with the
 * concrete tools the task exposes for it (one member = fixed; several = 1-to-N substitutes). Each parameter
 * of a position is either a literal quoted in the task text or bound to the outputs of one of several provider
 * positions (OR = alternative sub-graphs). This AND/OR form makes solution enumeration and recovery planning
 * simple, and the graphology DAG over concrete tools is derived from it.
 */
import type { Category, Domain } from "../world/catalog.js";
import type { Scalar } from "../world/types.js";
import type { Stratum } from "../version.js";

export const COMPLEXITIES = ["C1", "C2", "C3", "C4"] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

/** Structural subset of the core `Rng` the generator needs (kept structural so pure parts test in isolation). */
export interface RngLike {
  random(): number;
  int(n: number): number;
  bool(p?: number): boolean;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
  derive(name: string | number): RngLike;
}

export type Binding =
  | { readonly kind: "literal"; readonly value: Scalar }
  /** Any one of the provider positions may supply the value (their output field of type `type`). */
  | { readonly kind: "bound"; readonly type: string; readonly from: readonly number[] };

export interface Position {
  readonly index: number;
  readonly cap: string;
  readonly category: Category;
  /** Concrete tools exposed for this position, in preference order (first = default provider). */
  readonly members: readonly string[];
  readonly bindings: Readonly<Record<string, Binding>>;
  /** Parallel slot (C4 has several; C1–C3 have one). */
  readonly slot: number;
  /** Route id and branch number when the position lies on an alternative sub-graph (C3). */
  readonly route?: { readonly id: string; readonly branch: number };
}

export interface SlotInfo {
  readonly slot: number;
  /** Sink position of the slot: its completion is the slot's goal. */
  readonly goal: number;
  /** Pattern used in the slot (C4 mixes C2 and C3 patterns). */
  readonly pattern: "linear" | "substitute" | "multipath";
}

export interface Task {
  readonly id: string;
  readonly complexity: Complexity;
  readonly domain: Domain;
  readonly text: string;
  readonly positions: readonly Position[];
  readonly slots: readonly SlotInfo[];
  /** Every inclusion-minimal valid call sequence (canonical order), shortest first; capped. */
  readonly solutions: readonly (readonly string[])[];
  /** The shortest (default, unperturbed) path. */
  readonly sStar: readonly string[];
  /** v1: per slot, where its fault lands (victim category × corruption family); absent in v0 tasks. */
  readonly strata?: readonly Stratum[];
}

/** All concrete tools of a task (DAG nodes), in position order. */
export function taskTools(task: Task): string[] {
  return task.positions.flatMap((p) => p.members);
}

/** Position index of each concrete tool. */
export function positionOf(task: Task): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of task.positions) for (const t of p.members) m.set(t, p.index);
  return m;
}
