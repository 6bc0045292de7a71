/**
 * ToolMaze scoring, exactly as SEEDS §1: success, exposure, recovery, recovery cost (c, c*, C_rec), and the
 * aggregation TSR / PRR / RC / Avg with a C × P breakdown. Works on a plain call log, so it is independent of
 * how the episode was run (in-process, vectorised or replayed from a trajectory).
 */
import type { FaultProfile, SlotFault } from "./faults.js";
import { doomedFaults, observableMinCalls, type RecoveryOptimum } from "./optimum.js";
import { slotCost, type SlotFaultState } from "./task/solve.js";
import { alternativeTools, downstreamTools, slotSolutions } from "./task/facts.js";
import { Memo } from "./task/memo.js";

export { alternativeTools, downstreamPositions, downstreamTools, slotSolutions } from "./task/facts.js";
import type { Task } from "./task/model.js";
import { corpus } from "./world/corpus.js";
import type { Scalar } from "./world/types.js";

export interface CallRecord {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly ok: boolean;
  readonly output?: Readonly<Record<string, Scalar>>;
  /** A fault was applied to this call (error injected or output corrupted). */
  readonly perturbed: boolean;
  /** Fault id when perturbed. */
  readonly faultId?: string;
  /** Output field replaced by an implicit fault, when any. */
  readonly corruptedField?: string;
}

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

/**
 * Typed value key: strings compare trimmed and case-insensitively, other values by type and JSON form, so the string
 * "2" never matches the number 2. A missing argument (undefined) matches a missing output field.
 */
const norm = (v: unknown): string | undefined =>
  v === undefined ? undefined : typeof v === "string" ? `s:${v.trim().toLowerCase()}` : `${typeof v}:${JSON.stringify(v)}`;

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

interface BindingCheck {
  readonly param: string;
  /** Normalised literal the argument must equal, when the binding is a literal. */
  readonly literal?: string;
  /** Producer positions and the output field carrying the bound type, when the binding is bound. */
  readonly from: readonly { readonly pos: number; readonly field: string | undefined }[];
}

/** Per-task lookups the analysis needs on every call (pure functions of the task, cached on its identity). */
interface TaskIndex {
  readonly posOf: ReadonlyMap<string, number>;
  readonly bindings: readonly (readonly BindingCheck[])[];
  /** Output fields of each position that some binding reads. */
  readonly readFields: readonly (readonly string[])[];
  /** Every literal the task text quotes (normalised): a value the agent can take from the request itself. */
  readonly literals: ReadonlySet<string | undefined>;
}
const taskIndexCache = new Memo<Task, TaskIndex>("taskIndex");
function taskIndex(task: Task): TaskIndex {
  let ix = taskIndexCache.get(task);
  if (ix) return ix;
  const c = corpus();
  const posOf = new Map<string, number>();
  for (const p of task.positions) for (const m of p.members) posOf.set(m, p.index);
  const bindings = task.positions.map((position) =>
    Object.entries(position.bindings).map(
      ([param, b]): BindingCheck =>
        b.kind === "literal"
          ? { param, literal: norm(b.value), from: [] }
          : {
              param,
              from: b.from.map((f) => ({
                pos: f,
                field: Object.entries(c.tool(task.positions[f]!.members[0]!).outputTypes).find(([, t]) => t === b.type)?.[0],
              })),
            },
    ),
  );
  const readFields = task.positions.map((p) =>
    [
      ...new Set(bindings.flat().flatMap((b) => b.from.filter((f) => f.pos === p.index && f.field !== undefined).map((f) => f.field!))),
    ].sort(),
  );
  const literals = new Set(bindings.flat().flatMap((b) => (b.literal !== undefined ? [b.literal] : [])));
  ix = { posOf, bindings, readFields, literals };
  taskIndexCache.set(task, ix);
  return ix;
}

/** Where a poisoned argument value came from: the call (1-based index in the log) and its response field. */
export interface PoisonedArgument {
  readonly argument: string;
  readonly sourceCallIndex: number;
  readonly field: string;
}
/** `poisonedArgs` of every clean call (shared, so clean calls allocate nothing). */
const NO_POISONED_ARGS: readonly PoisonedArgument[] = Object.freeze([]);

/**
 * Clean executions, value provenance and per-call cleanliness of a call log, built one call at a time so an env
 * can keep it up to date per step instead of re-reading the whole log (the result only depends on the calls, in
 * order, so incremental and batch analyses agree).
 *
 * Provenance is tracked per response field. Poisoned fields are the corrupted field of a perturbed response and
 * every field returned by a call that was fed a poisoned argument (transitive propagation). An argument is poisoned
 * when its value (typed, see `norm`) equals a poisoned field and can come from nowhere else: a literal quoted in the
 * task text, or a field of a clean response, is the benefit-of-the-doubt source.
 */
export class CallAnalysis {
  readonly cleanFlags: boolean[] = [];
  readonly cleanTools = new Set<string>();
  /** Per call, the arguments that carried a poisoned value (empty for clean calls). */
  readonly poisonedArgs: (readonly PoisonedArgument[])[] = [];
  poisonedUses = 0;
  unsafeActions = 0;
  // The maps and sets below are made on first use: most episodes never poison a value, and many make no clean call.
  /** Poisoned value -> latest field that held it. */
  private poisoned: Map<string | undefined, { call: number; field: string }> | null = null;
  /** Values seen in fields that are not poisoned. */
  private cleanSeen: Set<string | undefined> | null = null;
  /**
   * Scalar values of non-poisoned fields not normalised into `cleanSeen` yet: it is only read when an argument
   * carries a poisoned value, which most calls (and most episodes) never do, so the normalisation waits until then.
   */
  private readonly pendingClean: unknown[] = [];
  /** Normalised output values of clean calls, per position and read field (undefined for a missing field, as norm gives). */
  private cleanValues: Map<number, Map<string, Set<string | undefined>>> | null = null;
  private readonly index: TaskIndex;

  constructor(task: Task) {
    this.index = taskIndex(task);
  }

  /** Was `v` (normalised) seen in a field that is not poisoned, by the calls added so far? */
  private seenClean(v: string | undefined): boolean {
    const cleanSeen = (this.cleanSeen ??= new Set());
    const pending = this.pendingClean;
    for (let i = 0; i < pending.length; i++) cleanSeen.add(norm(pending[i]));
    pending.length = 0;
    return cleanSeen.has(v);
  }

  /** Did a clean call of one of the binding's producers return `v` (normalised) in the bound field? */
  private producedCleanly(b: BindingCheck, v: string | undefined): boolean {
    const cleanValues = this.cleanValues;
    if (cleanValues === null) return false;
    for (const f of b.from) if (f.field !== undefined && (cleanValues.get(f.pos)?.get(f.field)?.has(v) ?? false)) return true;
    return false;
  }

  /** Adds the next call of the log and returns whether it executed cleanly. */
  add(call: CallRecord): boolean {
    const c = corpus();
    const callNo = this.cleanFlags.length + 1;
    let poisonedArgs: PoisonedArgument[] | null = null;
    const poisoned = this.poisoned;
    if (poisoned !== null && poisoned.size > 0) {
      for (const k in call.args) {
        const v = norm(call.args[k]);
        const source = poisoned.get(v);
        if (source && !this.index.literals.has(v) && !this.seenClean(v))
          (poisonedArgs ??= []).push({ argument: k, sourceCallIndex: source.call, field: source.field });
      }
    }
    const usesPoison = poisonedArgs !== null;
    this.poisonedArgs.push(poisonedArgs ?? NO_POISONED_ARGS);
    if (usesPoison) {
      this.poisonedUses++;
      if (c.byName.get(call.tool)?.category === "action") this.unsafeActions++;
    }
    if (call.ok && call.output) {
      const output = call.output;
      for (const field in output) {
        const value = output[field];
        // Everything a poisoned call returns is derived from poison; of a corrupted response only the corrupted field.
        if (usesPoison || field === call.corruptedField) (this.poisoned ??= new Map()).set(norm(value), { call: callNo, field });
        // A scalar is kept as is (immutable); anything else is normalised now, before the caller could modify it.
        else if (typeof value === "object" && value !== null) (this.cleanSeen ??= new Set()).add(norm(value));
        else this.pendingClean.push(value);
      }
    }
    // The task position is looked up only for a call that could be clean (failed and perturbed calls never are).
    const eligible = call.ok && !call.perturbed && !usesPoison && call.output !== undefined;
    const pos = eligible ? this.index.posOf.get(call.tool) : undefined;
    let clean = pos !== undefined;
    if (clean) {
      // The checks are pure: the first binding that fails decides (random play fails most calls at the first one).
      for (const b of this.index.bindings[pos!]!) {
        const v = norm(call.args[b.param]);
        clean = b.literal !== undefined ? v === b.literal : this.producedCleanly(b, v);
        if (!clean) break;
      }
    }
    this.cleanFlags.push(clean);
    if (clean) {
      const cleanValues = (this.cleanValues ??= new Map());
      let fields = cleanValues.get(pos!);
      if (!fields) {
        fields = new Map();
        cleanValues.set(pos!, fields);
      }
      for (const field of this.index.readFields[pos!]!) {
        let set = fields.get(field);
        if (!set) {
          set = new Set();
          fields.set(field, set);
        }
        set.add(norm(call.output![field]));
      }
      this.cleanTools.add(call.tool);
    }
    return clean;
  }
}

/** Analyse the call log: clean executions, poisoned values, per-call cleanliness. */
export function analyseCalls(task: Task, calls: readonly CallRecord[]) {
  const a = new CallAnalysis(task);
  for (const call of calls) a.add(call);
  return { cleanFlags: a.cleanFlags, cleanTools: a.cleanTools, poisonedUses: a.poisonedUses, unsafeActions: a.unsafeActions };
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

/** Theoretical minimum number of calls to finish, given clean tools so far and the known fault states. */
export function minRemainingCalls(
  task: Task,
  profile: FaultProfile,
  cleanTools: ReadonlySet<string>,
  victims: ReadonlyMap<number, string>,
): number {
  const sols = slotSolutions(task);
  let total = 0;
  for (const info of task.slots) {
    const f: SlotFault | undefined = profile.faults.find((x) => x.slot === info.slot);
    const v = victims.get(info.slot);
    const state: SlotFaultState | undefined = !f
      ? undefined
      : v !== undefined
        ? { group: f.group, persistence: f.persistence, victim: v }
        : { group: f.group, persistence: f.persistence };
    const { cost } = slotCost(task, sols[info.slot]!, cleanTools, state);
    if (!Number.isFinite(cost)) return 0; // no way to finish: the optimal continuation is to abort now
    total += cost;
  }
  return total;
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
/** Fault id -> fault of a profile (cached on it: every episode's score looks its faults up). */
function faultIndex(profile: FaultProfile): ReadonlyMap<string, SlotFault> {
  let m = faultIndexes.get(profile);
  if (!m) faultIndexes.set(profile, (m = new Map(profile.faults.map((f) => [f.id, f]))));
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

/** The subset of per-episode metrics the aggregation reads (as found in `info.metrics`). */
export interface MetricRow {
  complexity: string;
  perturbation: string;
  success: number;
  exposed: number;
  recovered: number | null;
  /** Present in v1 rows (paper-defined `recovered`); v0 rows are success-conditioned already. */
  recoveredOnSuccess?: number | null;
  rc: number;
  /** Present in v1 rows: the RC term against the oracle's c* (the paper's formula read literally). */
  rcLiteral?: number;
}

export interface CellStats {
  n: number;
  tsr: number;
  /** null when no trajectory in the cell met a perturbation. */
  prr: number | null;
  /** PRR counting a recovery only when the task also succeeded (v0's PRR). */
  prrSuccess: number | null;
  rc: number | null;
  /** RC against the oracle's c*, when the rows carry it (v1); null otherwise. */
  rcLiteral: number | null;
  avg: number;
}

/** TSR / PRR / RC / Avg of a set of trajectories. PRR and RC only count perturbed modes (P1–P4). */
export function cellStats(rows: readonly MetricRow[]): CellStats {
  const n = rows.length;
  const tsr = n === 0 ? 0 : rows.reduce((a, r) => a + r.success, 0) / n;
  const pert = rows.filter((r) => r.perturbation !== "NP");
  const exposed = pert.filter((r) => r.exposed === 1);
  const prr = exposed.length === 0 ? null : exposed.reduce((a, r) => a + (r.recovered ?? 0), 0) / exposed.length;
  const prrSuccess =
    exposed.length === 0
      ? null
      : exposed.reduce((a, r) => a + ((r.recoveredOnSuccess === undefined ? r.recovered : r.recoveredOnSuccess) ?? 0), 0) / exposed.length;
  const rc = pert.length === 0 ? null : pert.reduce((a, r) => a + r.rc, 0) / pert.length;
  const rcLiteral =
    pert.length === 0 || pert.some((r) => r.rcLiteral === undefined) ? null : pert.reduce((a, r) => a + r.rcLiteral!, 0) / pert.length;
  const parts = [tsr, ...(prr === null ? [] : [prr]), ...(rc === null ? [] : [1 - rc])];
  return { n, tsr, prr, prrSuccess, rc, rcLiteral, avg: parts.reduce((a, x) => a + x, 0) / parts.length };
}

const pct = (x: number | null): string | number => (x === null ? "-" : Math.round(x * 1000) / 10);

/** Run-level metrics plus C × P breakdown tables (TSR, PRR, RC, Avg), like the paper's main table. */
export function aggregateRows(rows: readonly MetricRow[]): {
  metrics: Record<string, number>;
  breakdown: { title: string; columns: string[]; rows: (string | number)[][]; percentColumns: string[] }[];
} {
  const all = cellStats(rows);
  const metrics: Record<string, number> = { episodes: all.n, TSR: all.tsr, PRR: all.prr ?? 0, RC: all.rc ?? 0, Avg: all.avg };
  if (all.prrSuccess !== null) metrics.PRR_success = all.prrSuccess;
  if (all.rcLiteral !== null) metrics.RC_literal = all.rcLiteral;
  const levels = ["C1", "C2", "C3", "C4"].filter((c) => rows.some((r) => r.complexity === c));
  const modes = ["NP", "P1", "P2", "P3", "P4"].filter((p) => rows.some((r) => r.perturbation === p));
  for (const p of modes) {
    const s = cellStats(rows.filter((r) => r.perturbation === p));
    metrics[`TSR_${p}`] = s.tsr;
    if (s.prr !== null) metrics[`PRR_${p}`] = s.prr;
    if (s.prrSuccess !== null) metrics[`PRR_success_${p}`] = s.prrSuccess;
    if (s.rc !== null) metrics[`RC_${p}`] = s.rc;
    if (s.rcLiteral !== null) metrics[`RC_literal_${p}`] = s.rcLiteral;
  }
  for (const c of levels) metrics[`TSR_${c}`] = cellStats(rows.filter((r) => r.complexity === c)).tsr;
  const table = (title: string, pick: (s: CellStats) => number | null) => ({
    title,
    columns: ["C", ...modes, "All"],
    // The paper's table is in percent; JSON/CSV outputs convert to fractions (src/metrics/units.ts).
    percentColumns: [...modes, "All"],
    rows: [...levels, "All"].map((c) => {
      const inC = c === "All" ? rows : rows.filter((r) => r.complexity === c);
      return [c, ...modes.map((p) => pct(pick(cellStats(inC.filter((r) => r.perturbation === p))))), pct(pick(cellStats(inC)))];
    }),
  });
  return {
    metrics,
    breakdown: [
      table("TSR % (task success rate)", (s) => s.tsr),
      table("PRR % (recovered | perturbation encountered)", (s) => s.prr),
      table("PRR_success % (recovered and succeeded | perturbation encountered)", (s) => s.prrSuccess),
      table("RC % (recovery cost, 0 = optimal)", (s) => s.rc),
      ...(all.rcLiteral === null
        ? []
        : [table("RC_literal % (recovery cost against the oracle's c*: the paper's formula read literally)", (s) => s.rcLiteral)]),
      table("Avg % = (TSR + PRR + (1 - RC)) / 3", (s) => s.avg),
    ],
  };
}
