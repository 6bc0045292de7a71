/**
 * ToolMaze's per-episode view of the engine's call log, kept current one call at a time: the clean/poison analysis,
 * each slot's first victim, each fault's first hit, Φ's cache and the fault paths the path events test calls against.
 */
import { type CallRecord as EngineCall, youngArray } from "../../src/family.js";
import { alternativeTools, CallAnalysis, type CallRecord, downstreamTools } from "./scorer.js";
import type { FaultProfile } from "./faults.js";
import type { ProfileFacts } from "./instanceCache.js";
import type { Task } from "./tasks.js";
import type { Scalar } from "./world/types.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What `trackCalls` keeps per episode (see there). */
export interface Tracked {
  readonly calls: readonly EngineCall[];
  /** How many of `calls` the analysis, victims and first hits have seen. */
  analysed: number;
  /** The scorer-form log: built when read (scoring, `callLog`), not per call; it may lag `analysed`. */
  readonly log: CallRecord[];
  readonly analysis: CallAnalysis;
  /** The victim of each slot whose fault has fired (a shared empty map until the first one: most episodes meet none). */
  victims: ReadonlyMap<number, string>;
  /** The index of the first call each fault fired on (shared empty map until then, as `victims`). */
  firstHit: ReadonlyMap<string, number>;
  /**
   * Φ for the clean tools and victims counted in `phiClean` / `phiVictims` (both sets only grow, so their sizes
   * identify them): Φ depends on nothing else, and most calls change neither.
   */
  phi: number;
  phiClean: number;
  phiVictims: number;
  /** `pathEvents`' view of the faults that have a victim, as of `victims.size === pathsAt` (see `faultPaths`). */
  paths: readonly FaultPath[];
  pathsAt: number;
}

/** A fault with a victim, with the tool sets `pathEvents` tests every call against (cached per task). */
export interface FaultPath {
  readonly fault: FaultProfile["faults"][number];
  readonly victim: string;
  /** Tools downstream of the fault's position when a call to them is forbidden (unsolvable, permanent), else null. */
  readonly forbidden: ReadonlySet<string> | null;
  readonly alternatives: ReadonlySet<string>;
}
const NO_PATHS: readonly FaultPath[] = [];
// Never written: `trackCalls` replaces them with a Map of the episode's own before the first entry.
const NO_VICTIMS: ReadonlyMap<number, string> = new Map();
const NO_HITS: ReadonlyMap<string, number> = new Map();

/** The fault that fired first on a call and the output field it corrupted (undefined when none), in a scratch object. */
export function faultFacts(facts: ProfileFacts, r: EngineCall): { faultId: string | undefined; corruptedField: string | undefined } {
  const out = factsScratch;
  const faultId = r.faults[0];
  const f = faultId !== undefined ? facts.faultById.get(faultId) : undefined;
  out.faultId = faultId;
  out.corruptedField = f?.corruption && r.ok ? f.corruption.field : undefined;
  return out;
}
const factsScratch: { faultId: string | undefined; corruptedField: string | undefined } = {
  faultId: undefined,
  corruptedField: undefined,
};
/** The call the analysis reads (`add` keeps values, never the record): one object refilled per call. */
const analysedCall: Mutable<CallRecord> = {
  tool: "",
  args: {},
  ok: false,
  perturbed: false,
  output: undefined,
  faultId: undefined,
  corruptedField: undefined,
};

/**
 * A class, not a literal: it lives as long as its episode, and V8 may allocate a literal's objects straight into the
 * old generation (see src/engine/plainRecords.ts), where a dead one keeps its young log and analysis alive.
 */
class TrackedCalls implements Tracked {
  analysed = 0;
  readonly log: CallRecord[] = youngArray();
  victims: ReadonlyMap<number, string> = NO_VICTIMS;
  firstHit: ReadonlyMap<string, number> = NO_HITS;
  phiClean = 0;
  phiVictims = 0;
  paths: readonly FaultPath[] = NO_PATHS;
  pathsAt = 0;
  constructor(
    readonly calls: readonly EngineCall[],
    readonly analysis: CallAnalysis,
    public phi: number,
  ) {}
}

/**
 * Clean/poison analysis, victims and first hits, extended by the calls made since the last look: several hooks
 * read them on every step, and recomputing over the whole log made steps cost O(calls). Keyed on the engine's
 * call array, so a restored or new episode (a different array) starts over from `prev === null` or a fresh array.
 */
export function trackCalls(prev: Tracked | null, calls: readonly EngineCall[], task: Task, facts: ProfileFacts): Tracked {
  let t = prev;
  if (!t || t.calls !== calls || t.analysed > calls.length) {
    t = new TrackedCalls(calls, new CallAnalysis(task, facts.corruptible), facts.phi0);
  }
  for (let i = t.analysed; i < calls.length; i++) {
    const r = calls[i]!;
    const { faultId, corruptedField } = faultFacts(facts, r);
    const a = analysedCall;
    a.tool = r.tool;
    a.args = r.arguments;
    a.ok = r.ok;
    a.perturbed = r.faults.length > 0;
    a.output = r.ok ? (r.response as Record<string, Scalar>) : undefined;
    a.faultId = faultId;
    a.corruptedField = corruptedField;
    t.analysis.add(a);
    t.analysed = i + 1;
    // Indexed (see onCall): most calls' faults are the engine's shared frozen empty list.
    for (let k = 0; k < r.faults.length; k++) {
      const id = r.faults[k]!;
      const hit = facts.faultById.get(id);
      if (hit && !t.victims.has(hit.slot)) {
        if (t.victims === NO_VICTIMS) t.victims = new Map();
        (t.victims as Map<number, string>).set(hit.slot, r.tool);
      }
      if (!t.firstHit.has(id)) {
        if (t.firstHit === NO_HITS) t.firstHit = new Map();
        (t.firstHit as Map<string, number>).set(id, r.index);
      }
    }
  }
  return t;
}

/** Catches the scorer-form log up with the tracked calls (its records are made here, once each). */
export function catchUpLog(t: Tracked, facts: ProfileFacts): void {
  for (let i = t.log.length; i < t.calls.length; i++) {
    const r = t.calls[i]!;
    const { faultId, corruptedField } = faultFacts(facts, r);
    // Optional keys are added in this order (callers of callLog() see the records).
    const rec: Mutable<CallRecord> = { tool: r.tool, args: r.arguments, ok: r.ok, perturbed: r.faults.length > 0 };
    if (r.ok) rec.output = r.response as Record<string, Scalar>;
    if (faultId !== undefined) rec.faultId = faultId;
    if (corruptedField !== undefined) rec.corruptedField = corruptedField;
    t.log.push(rec);
  }
}

/**
 * The profile's faults that have a victim, in profile order, with their tool sets: rebuilt only when a fault meets
 * its first victim (victims are set once per slot and never change), not looked up per fault on every call.
 */
export function faultPaths(t: Tracked, task: Task, profile: FaultProfile, unsolvable: boolean): readonly FaultPath[] {
  if (t.pathsAt === t.victims.size) return t.paths;
  const paths: FaultPath[] = [];
  for (const fault of profile.faults) {
    const victim = t.victims.get(fault.slot);
    if (victim === undefined) continue;
    const forbidden = unsolvable && fault.persistence === "permanent" ? downstreamTools(task, fault.position) : null;
    paths.push({ fault, victim, forbidden, alternatives: alternativeTools(task, fault.slot, victim) });
  }
  t.paths = paths;
  t.pathsAt = t.victims.size;
  return paths;
}
