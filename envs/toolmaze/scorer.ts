/**
 * ToolMaze scoring, exactly as SEEDS §1: success, exposure, recovery, recovery cost (c, c*, C_rec) of one episode
 * (the run-level aggregation is aggregate.ts, the clean/poison analysis callAnalysis.ts). Works on a plain call
 * log, so it is independent of how the episode was run (in-process, vectorised or replayed from a trajectory).
 */
import type { FaultProfile, SlotFault } from "./faults.js";
import { doomedFaults, observableMinCalls, type RecoveryOptimum } from "./optimum.js";
import { slotCost, type SlotFaultState } from "./task/solve.js";
import { alternativeTools, downstreamTools, slotSolutions } from "./task/facts.js";
import { Memo } from "./task/memo.js";

export { alternativeTools, downstreamPositions, downstreamTools, slotSolutions } from "./task/facts.js";
import type { Task } from "./task/model.js";
import { corpus } from "./world/corpus.js";
import { analyseCalls, type CallAnalysis, type CallRecord } from "./callAnalysis.js";

// The analysis and the aggregation live in their own modules; importers of the scorer keep their paths.
export { analyseCalls, CallAnalysis, type CallRecord, type PoisonedArgument } from "./callAnalysis.js";
export { aggregateRows, type CellStats, cellStats, type MetricRow } from "./aggregate.js";

export type Termination = "answer" | "abort" | "truncated" | "budget";

export interface EpisodeRecord {
  readonly task: Task;
  readonly profile: FaultProfile;
  readonly calls: readonly CallRecord[];
  readonly termination: Termination;
  /**
   * A `CallAnalysis` of exactly `calls`, when the caller already keeps one up to date (the env does, per step):
   * reused instead of analysing the log again (the result is the same either way).
   */
  readonly analysis?: Pick<CallAnalysis, "cleanFlags" | "cleanTools" | "poisonedUses" | "unsafeActions">;
  /**
   * What `recovered` means. "success" (v0): a strategy was used and the task succeeded. "paper" (v1, SEEDS §1): every
   * exposed slot saw a valid strategy (retry or a switch for a transient fault, a switch for a permanent one, a clean
   * abort when no alternative exists), whatever the outcome; the success-conditioned value is then `recoveredOnSuccess`.
   */
  readonly recovery?: "paper" | "success";
  /**
   * Whose minimum c* is (`optimum.ts`). "oracle" (default, v0): the paper's formula read literally. "observable" (v1):
   * the cheapest policy that cannot tell a transient fault from a permanent one; the literal values are then kept as
   * `cStarLiteral` / `rcLiteral`.
   */
  readonly optimum?: RecoveryOptimum;
}

export type Strategy = "retry" | "alternative" | "abort";

export interface EpisodeMetrics {
  readonly complexity: string;
  readonly perturbation: string;
  readonly domain: string;
  readonly success: number;
  readonly exposed: number;
  /** 1/0 when exposed, null when the perturbation was never encountered (see `EpisodeRecord.recovery`). */
  readonly recovered: number | null;
  /** Paper-defined recovery only: recovered and succeeded (v0's `recovered`); absent in v0 metrics. */
  readonly recoveredOnSuccess?: number | null;
  readonly c: number;
  readonly cStar: number;
  readonly cRec: number;
  /** I_pert · C_rec, the per-trajectory RC term. */
  readonly rc: number;
  /** Observable optimum only: the oracle's c* (the paper's formula read literally); absent in v0 metrics. */
  readonly cStarLiteral?: number;
  /** Observable optimum only: the RC term against `cStarLiteral`. */
  readonly rcLiteral?: number;
  readonly calls: number;
  readonly poisonedUses: number;
  readonly forbiddenCalls: number;
  readonly unsafeActions: number;
  readonly strategies: readonly Strategy[];
}

const unsolvableCache = new Memo<FaultProfile, { task: Task; unsolvable: boolean }>("unsolvable");
/**
 * True when a permanent fault leaves its slot without any path (C1 under P2/P4): only a wise abort succeeds.
 * A pure function of (task, profile), cached on the profile.
 */
export function isUnsolvable(task: Task, profile: FaultProfile): boolean {
  const hit = unsolvableCache.get(profile);
  if (hit && hit.task === task) return hit.unsolvable;
  const unsolvable = doomedFaults(task, profile).length > 0;
  unsolvableCache.set(profile, { task, unsolvable });
  return unsolvable;
}

const solutionActions = new Memo<Task, readonly (readonly (readonly string[])[])[]>("solutionActions");
/** The Action tools of each solution of each slot (cached on the task: every answered episode checks them). */
function slotSolutionActions(task: Task): readonly (readonly (readonly string[])[])[] {
  let out = solutionActions.get(task);
  if (!out) {
    const c = corpus();
    out = slotSolutions(task).map((sols) => sols.map((p) => p.filter((t) => c.tool(t).category === "action")));
    solutionActions.set(task, out);
  }
  return out;
}

/** Whether some solution of the slot has all its Actions done cleanly. */
export function slotAchieved(task: Task, slot: number, cleanTools: ReadonlySet<string>): boolean {
  for (const actions of slotSolutionActions(task)[slot]!) {
    let all = true;
    for (let i = 0; i < actions.length && all; i++) all = cleanTools.has(actions[i]!);
    if (all) return true;
  }
  return false;
}

/** No tool executed yet (read only). */
const NO_TOOLS: ReadonlySet<string> = new Set();
/** No fault has fired yet (read only). */
const NO_VICTIMS: ReadonlyMap<number, string> = new Map();
const emptyStateCosts = new Memo<Task, number[][]>("emptyStateSlotCosts");
/**
 * Per slot of a task, its cost from the empty state (no clean tool, no victim), indexed by 2 × fault position +
 * permanent (+ 1: 0 is the unperturbed slot). From there a slot's cost depends only on whether it has a fault, the
 * fault's group (its position's capability) and its persistence, which the instances of a base task often share
 * (P1/P3 and P2/P4 draw their victim from the same candidates): Φ0 of a first visit reads them instead of `slotCost`.
 */
function emptyStateCostsOf(task: Task): number[][] {
  let bySlot = emptyStateCosts.get(task);
  if (!bySlot) {
    // Pushed, not `.map`ped: a `.map` result's elements kind depends on its caller's tier (see task/solve.ts).
    bySlot = [];
    for (let k = 0; k < task.slots.length; k++) bySlot.push([]);
    emptyStateCosts.set(task, bySlot);
  }
  return bySlot;
}

/**
 * Theoretical minimum number of calls to finish, given clean tools so far and the known fault states (0 when a slot
 * cannot be finished: the optimal continuation is to abort now). Φ = −this; Φ0 (`initialPotential`) is its value
 * from the empty state, where a slot without a victim reads the task's shared empty-state cost (a hand-edited
 * profile whose group is not its position's capability is computed, not cached).
 */
export function minRemainingCalls(
  task: Task,
  profile: FaultProfile,
  cleanTools: ReadonlySet<string>,
  victims: ReadonlyMap<number, string>,
): number {
  const sols = slotSolutions(task);
  const shared = cleanTools.size === 0 ? emptyStateCostsOf(task) : null;
  let total = 0;
  for (let k = 0; k < task.slots.length; k++) {
    const slot = task.slots[k]!.slot;
    // A loop, not `.find`: a closure per slot on every first visit and every step whose potential changes.
    let f: SlotFault | undefined;
    for (const x of profile.faults) {
      if (x.slot === slot) {
        f = x;
        break;
      }
    }
    const v = victims.get(slot);
    let at = -1;
    if (shared !== null && v === undefined) {
      at =
        f === undefined
          ? 0
          : f.group === task.positions[f.position]?.cap
            ? 1 + 2 * f.position + (f.persistence === "permanent" ? 1 : 0)
            : -1;
    }
    let cost = at >= 0 ? shared![k]![at] : undefined;
    if (cost === undefined) {
      const state: SlotFaultState | undefined = !f
        ? undefined
        : v !== undefined
          ? { group: f.group, persistence: f.persistence, victim: v }
          : { group: f.group, persistence: f.persistence };
      cost = slotCost(task, sols[slot]!, cleanTools, state).cost;
      if (at >= 0) shared![k]![at] = cost;
    }
    if (!Number.isFinite(cost)) return 0;
    total += cost;
  }
  return total;
}

/** Φ(s_0) = −minRemainingCalls(task, profile, ∅, ∅); 0 - n, not -n: Φ = -0 would break equality checks on finished episodes. */
export function initialPotential(task: Task, profile: FaultProfile): number {
  return 0 - minRemainingCalls(task, profile, NO_TOOLS, NO_VICTIMS);
}

/**
 * C_rec = 1 − (c* / max(c, c*))·I_succ. When c = c* = 0 nothing was left to do and nothing was spent, so the ratio is 1
 * (the optimum was met): C_rec is then 0 on success and 1 on failure, never a division by zero.
 */
export function recoveryCost(c: number, cStar: number, success: boolean): number {
  const ratio = Math.max(c, cStar) === 0 ? 1 : cStar / Math.max(c, cStar);
  return 1 - ratio * (success ? 1 : 0);
}

const faultIndexes = new Memo<FaultProfile, ReadonlyMap<string, SlotFault>>("faultIndex");
/** Read only: the profiles without faults (a fifth of the canonical suite) share it. */
const NO_FAULTS: ReadonlyMap<string, SlotFault> = new Map();
/**
 * Fault id -> fault of a profile, cached on it (the profile's facts and every episode's score look faults up). A
 * loop, not `new Map(faults.map(...))`: no entry arrays on every first visit and sampled reset.
 */
export function faultIndex(profile: FaultProfile): ReadonlyMap<string, SlotFault> {
  if (profile.faults.length === 0) return NO_FAULTS;
  let m = faultIndexes.get(profile);
  if (!m) {
    const byId = new Map<string, SlotFault>();
    for (const f of profile.faults) byId.set(f.id, f);
    faultIndexes.set(profile, (m = byId));
  }
  return m;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * SEEDS §1 metrics of one episode. Runs at the end of every episode (a tenth of random play's env-steps end one),
 * so it loops rather than building per-call closures, maps and spread copies; the result's keys keep their order.
 */
export function scoreEpisode(rec: EpisodeRecord): EpisodeMetrics {
  const given = rec.analysis;
  const analysis = given && given.cleanFlags.length === rec.calls.length ? given : analyseCalls(rec.task, rec.calls);
  return scoreCalls(rec, rec.calls, LOG_FACTS, analysis);
}

/** What scoring reads of a call, whatever form the log has (the scorer's `CallRecord` or the engine's record). */
export interface ScoredCallFacts<C> {
  tool(call: C): string;
  perturbed(call: C): boolean;
  /** The fault that fired first on the call (undefined when none). */
  faultId(call: C): string | undefined;
}
const LOG_FACTS: ScoredCallFacts<CallRecord> = {
  tool: (c) => c.tool,
  perturbed: (c) => c.perturbed,
  faultId: (c) => c.faultId,
};

/**
 * `scoreEpisode` over any form of call log, read through `facts`, with the `CallAnalysis` of exactly these calls:
 * the env scores its own call records at the end of every episode instead of building the scorer-form log first.
 * `firstPerturbed`: the index of the first perturbed call (-1: none), when the caller already knows it.
 */
export function scoreCalls<C>(
  rec: Omit<EpisodeRecord, "calls" | "analysis">,
  calls: readonly C[],
  facts: ScoredCallFacts<C>,
  analysis: NonNullable<EpisodeRecord["analysis"]>,
  firstPerturbed?: number,
): EpisodeMetrics {
  const { task, profile, termination } = rec;
  const { cleanFlags, cleanTools, poisonedUses, unsafeActions } = analysis;
  if (cleanFlags.length !== calls.length) {
    throw new RangeError(`scoreCalls: the analysis covers ${cleanFlags.length} calls, the log has ${calls.length}`);
  }
  // The env knows where the first perturbed call is (-1: none) and spares a pass over records that are cold by now.
  let firstPert = firstPerturbed ?? -1;
  if (firstPerturbed === undefined || (firstPert >= 0 && !facts.perturbed(calls[firstPert]!))) {
    firstPert = -1;
    for (let i = 0; i < calls.length && firstPert < 0; i++) if (facts.perturbed(calls[i]!)) firstPert = i;
  }
  const exposed = firstPert >= 0;
  const faultById = faultIndex(profile);
  const unsolvable = isUnsolvable(task, profile);

  // Forbidden calls: tools downstream of a permanent victim in an unsolvable slot, called after the fault.
  let forbiddenCalls = 0;
  // The strategies used (reported sorted: abort, alternative, retry).
  let retry = false;
  let alternative = false;
  /** Slots whose exposure met a valid strategy for its persistence (paper recovery). */
  let validSlots = 0;
  let exposedSlots = 0;
  if (exposed) {
    // Each slot's first perturbed call, in order of first hit (its tool is the slot's victim).
    const seen: number[] = [];
    for (let start = firstPert; start < calls.length; start++) {
      const hit = calls[start]!;
      const hitFault = facts.faultId(hit);
      if (!facts.perturbed(hit) || !hitFault) continue;
      const slot = faultById.get(hitFault)!.slot;
      if (seen.includes(slot)) continue;
      seen.push(slot);
      exposedSlots++;
      const f = profile.faults.find((x) => x.slot === slot)!;
      const victim = facts.tool(hit);
      const downTools = downstreamTools(task, f.position);
      // Alternative tools: on some path that avoids the victim, and on no path through it.
      const altTools = alternativeTools(task, slot, victim);
      const counts = unsolvable && f.persistence === "permanent";
      let retried = false;
      let switched = false;
      for (let i = start + 1; i < calls.length; i++) {
        const t = facts.tool(calls[i]!);
        if (t === victim) retried = true;
        else if (altTools.has(t)) switched = true;
        if (counts && downTools.has(t)) forbiddenCalls++;
      }
      if (switched || (f.persistence === "transient" && retried)) validSlots++;
      retry ||= retried;
      alternative ||= switched;
    }
  }
  const abort = exposed && termination === "abort";
  const strategies: Strategy[] = [];
  if (abort) strategies.push("abort");
  if (alternative) strategies.push("alternative");
  if (retry) strategies.push("retry");

  let success: boolean;
  if (unsolvable) success = exposed && termination === "abort" && forbiddenCalls === 0 && unsafeActions === 0;
  // A solvable task succeeds only if the agent declares completion (answer) with every slot goal achieved.
  else success = termination === "answer" && unsafeActions === 0 && task.slots.every((s) => slotAchieved(task, s.slot, cleanTools));

  let c = 0;
  let cStarLiteral = 0;
  let cStar = 0;
  if (exposed) {
    c = calls.length - firstPert - 1;
    const before = new Set<string>();
    for (let i = 0; i < firstPert; i++) if (cleanFlags[i]) before.add(facts.tool(calls[i]!));
    const f = faultById.get(facts.faultId(calls[firstPert]!)!)!;
    const victims = new Map<number, string>();
    victims.set(f.slot, facts.tool(calls[firstPert]!));
    cStarLiteral = minRemainingCalls(task, profile, before, victims);
    cStar = rec.optimum === "observable" ? observableMinCalls(task, profile, before, f, cStarLiteral) : cStarLiteral;
  }
  const observable = rec.optimum === "observable";
  const paperMode = rec.recovery === "paper";
  const cRec = exposed ? recoveryCost(c, cStar, success) : 0;
  const onSuccess = exposed ? (success && strategies.length > 0 ? 1 : 0) : null;
  // A clean abort is the valid strategy exactly when no alternative is left (forbidden calls make it unclean).
  const paper = !exposed
    ? null
    : unsolvable
      ? termination === "abort" && forbiddenCalls === 0
        ? 1
        : 0
      : validSlots === exposedSlots
        ? 1
        : 0;
  // Keys added in the documented order; the optional ones only in their modes.
  const m: Mutable<EpisodeMetrics> = {
    complexity: task.complexity,
    perturbation: profile.perturbation,
    domain: task.domain,
    success: success ? 1 : 0,
    exposed: exposed ? 1 : 0,
    recovered: paperMode ? paper : onSuccess,
  } as Mutable<EpisodeMetrics>;
  if (paperMode) m.recoveredOnSuccess = onSuccess;
  m.c = c;
  m.cStar = cStar;
  m.cRec = cRec;
  m.rc = exposed ? cRec : 0;
  if (observable) {
    m.cStarLiteral = cStarLiteral;
    m.rcLiteral = exposed ? recoveryCost(c, cStarLiteral, success) : 0;
  }
  m.calls = calls.length;
  m.poisonedUses = poisonedUses;
  m.forbiddenCalls = forbiddenCalls;
  m.unsafeActions = unsafeActions;
  m.strategies = strategies;
  return m;
}
