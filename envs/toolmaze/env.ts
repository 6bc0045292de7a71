/**
 * ToolMaze-v0: the tool-episode env for DAG tasks C1–C4 under perturbations NP, P1–P4. The engine runs calls,
 * faults, ledger and rewards; this class picks the instance, builds tools / faults / hidden ground truth,
 * judges answers and aborts with the scorer, and reports SEEDS §1 metrics at the end of the episode.
 */
import {
  type EnvSpec,
  type JsonObject,
  type JsonValue,
  type Rng,
  type HistoryEntry,
  type EpisodeEvent,
  type FamilyEventRegistry,
  type TerminationReason,
  type CallRecord as EngineCall,
  type CallReport,
  type EpisodeEnd,
  type EpisodeSetup,
  type StepContext,
  type StepReport,
  toJsonObject,
  ToolEnv,
} from "../../src/family.js";
import "./events.js";
import { buildProfile, type FaultProfile } from "./faults.js";
import { type CallRecord, type EpisodeMetrics, minRemainingCalls, scoreCalls, type ScoredCallFacts, type Termination } from "./scorer.js";
import { canonicalInstance, COMPLEXITIES, PERTURBATIONS, sampleTask, type Task } from "./tasks.js";
import { type ToolMazeVersion, type VersionProfile, versionProfile } from "./version.js";
import { DOMAINS } from "./world/catalog.js";
import { corpus } from "./world/corpus.js";
import { emptyWorldState, type WorldState } from "./world/state.js";
import {
  buildView,
  type CanonicalEpisode,
  canonicalCandidates,
  canonicalEpisodeTable,
  canonicalHidden,
  canonicalProfile,
  canonicalView,
  type ProfileFacts,
  profileFacts,
} from "./instanceCache.js";
import { foreignVocabulary, looksImplausible } from "./agent/plausibility.js";
import { catchUpLog, faultFacts, faultPaths, type Tracked, trackCalls } from "./callTracking.js";
import type { ToolMazeOptions } from "./options.js";
import { CORRUPTIONS, hiddenTruth, taskParameters, taskPrompt, ToolMazeSetup } from "./setup.js";

export { toolMazeOptionsSchema, type ToolMazeOptions } from "./options.js";
export { faultSpecs, toolDefinition } from "./wiring.js";

export const TOOLMAZE_MAX_STEPS = 25;

const NO_CALLS: readonly EngineCall[] = [];
type AlternativePath = { type: "toolmaze:alternative_path" } & FamilyEventRegistry["toolmaze:alternative_path"];
/** `eventsOfType(…, "toolmaze:alternative_path")` one event at a time (no array per history entry). */
const isAlternativePath = (e: EpisodeEvent): e is AlternativePath => e.type === "toolmaze:alternative_path";
/** The engine's call record as the scorer reads it: the same facts `catchUpLog` copies into the scorer-form log. */
const ENGINE_CALL_FACTS: ScoredCallFacts<EngineCall> = {
  tool: (r) => r.tool,
  perturbed: (r) => r.faults.length > 0,
  faultId: (r) => r.faults[0],
};
/** The report of a call without family events, shared (the engine only reads reports). */
const NO_REPORT: CallReport = Object.freeze({});
const NO_STEP_REPORT: StepReport = Object.freeze({});

export class ToolMazeEnv extends ToolEnv<WorldState, ToolMazeOptions> {
  private task!: Task;
  private profile!: FaultProfile;
  private facts!: ProfileFacts;
  private instanceIndex: number | null = null;
  private unsolvable = false;
  private score: EpisodeMetrics | null = null;
  private readonly vp: VersionProfile;

  /** `version` selects the world (see version.ts): ToolMaze-v0 and ToolMaze-v1 are this class with v0 / v1. */
  constructor(options: ToolMazeOptions, spec: EnvSpec, version: ToolMazeVersion = "v0") {
    super(
      {
        family: "toolmaze",
        maxEpisodeSteps: TOOLMAZE_MAX_STEPS,
        familyTerms: {
          alternative_path: "first call onto an alternative path (another route or substitute) after a slot's perturbation",
          excess_calls: "at the end: calls beyond the optimum (c − c* when exposed, calls − |s*| otherwise)",
        },
        familyEventTypes: ["toolmaze:alternative_path"],
        // Poisoned values come from the scorer's provenance (see onCall), not from the engine's.
        valueProvenance: false,
        // The heuristic agent's observable checks (units, ranges, time windows, leaked internals, foreign vocabulary).
        suspiciousValue: (field, value, type) => looksImplausible(field, value) || (type !== null && foreignVocabulary(type, value)),
      },
      options,
      spec,
    );
    this.vp = versionProfile(version);
  }

  /** The current episode's task and fault profile (for baselines, tests and tools). */
  current(): { task: Task; profile: FaultProfile; instanceIndex: number | null } {
    return { task: this.task, profile: this.profile, instanceIndex: this.instanceIndex };
  }

  private candidateList: readonly number[] | null = null;
  /** The canonical instances this env's filters allow (see `canonicalCandidates`). */
  private candidates(): readonly number[] {
    return (this.candidateList ??= canonicalCandidates(this.options, this.vp.version));
  }

  /**
   * The canonical instance a reset selects: the pinned one, else one of the filters' candidates. Seeded resets (root
   * stream path = the seed) map seed -> instance, so seeds seed+i (vector envs, rollouts) cover distinct instances;
   * unseeded resets draw one. Derived from the stream alone, so setState/fork rebuild the same episode.
   */
  private pickIndex(rng: Rng): number {
    const pinned = this.options.taskIndex;
    if (pinned !== undefined) return pinned;
    const candidates = this.candidates();
    const seed = /^-?\d+$/.test(rng.path) ? Number(rng.path) : null;
    const k =
      seed !== null ? ((seed % candidates.length) + candidates.length) % candidates.length : rng.derive("instance").int(candidates.length);
    return candidates[k]!;
  }

  private table: (CanonicalEpisode | undefined)[] | null = null;
  /**
   * The entry of a canonical instance (built on its first visit, see `CanonicalEpisode`). Its profile (stream
   * CANONICAL_SEED/<task id>/<P>), fault specs, Φ0, hidden truth and view are built once per instance. Distractors
   * and tool order come from the base task (stream: the index of its unperturbed instance), so an instance is the
   * same episode whichever seed selects it, and a task looks the same under every perturbation: only the fault
   * differs (which is what makes NP its exact no-fault counterfactual).
   */
  private canonicalEntry(index: number): CanonicalEpisode {
    const o = this.options;
    const table = (this.table ??= canonicalEpisodeTable(this.vp.version, o.distractors, o.hint));
    let entry = table[index];
    if (entry === undefined) {
      const { task, perturbation } = canonicalInstance(index, this.vp.version);
      const profile = canonicalProfile(task, perturbation, this.vp.version);
      const base = index - (index % PERTURBATIONS.length);
      // A visited sibling (same base task, same table) has the view, prompt and parameters this entry would build.
      let sibling: CanonicalEpisode | undefined;
      for (let j = base; j < base + PERTURBATIONS.length && sibling === undefined; j++) sibling = table[j];
      entry = table[index] = {
        index,
        task,
        perturbation,
        profile,
        facts: profileFacts(task, profile),
        view: sibling?.view ?? canonicalView(task, base, o.distractors, this.vp.version),
        // The id names the instance but not its perturbation mode (that is ground truth, in info.hidden).
        taskId: `toolmaze-${String(index).padStart(4, "0")}`,
        prompt: sibling?.prompt ?? taskPrompt(task, o.hint),
        parameters: sibling?.parameters ?? taskParameters(task),
        hidden: null,
      };
    }
    return entry;
  }

  protected createEpisode(rng: Rng, _options: JsonObject): EpisodeSetup<WorldState> {
    this.score = null;
    this.tracked = null;
    this.announced = null;
    if (this.options.suite !== "canonical") return this.sampledEpisode(rng);
    const entry = this.canonicalEntry(this.pickIndex(rng));
    this.task = entry.task;
    this.instanceIndex = entry.index;
    this.profile = entry.profile;
    this.facts = entry.facts;
    this.unsolvable = entry.facts.unsolvable;
    // The hidden truth is read only with option hiddenInfo (ToolEnv puts it in info.hidden): deep-frozen on both
    // suites, so callers see one contract (read-only) whether or not the object is shared with other episodes.
    const hidden = !this.options.hiddenInfo
      ? undefined
      : (entry.hidden ??= canonicalHidden(entry.profile, () =>
          hiddenTruth(this.task, this.profile, entry.perturbation, entry.index, this.unsolvable),
        ));
    const { taskId, prompt, view, facts, parameters } = entry;
    return new ToolMazeSetup(taskId, prompt, view.tools, view.visible, emptyWorldState(), facts.faults, CORRUPTIONS, parameters, hidden);
  }

  /** A fresh task from the reset stream, with the streams of its profile and view (never cached). */
  private sampledEpisode(rng: Rng): EpisodeSetup<WorldState> {
    const o = this.options;
    const r = rng.derive("task");
    const complexity = o.complexity ?? r.pick(COMPLEXITIES);
    const domain = o.domain ?? r.pick(DOMAINS);
    const perturbation = o.perturbation ?? r.pick(PERTURBATIONS);
    const task = sampleTask(r.derive("generate"), complexity, domain, `smp-${rng.path.replace(/[^0-9a-z]+/gi, "-")}`, this.vp);
    this.task = task;
    this.instanceIndex = null;
    this.profile = buildProfile(task, perturbation, rng.derive("faults"), this.vp);
    const facts = (this.facts = profileFacts(task, this.profile));
    this.unsolvable = facts.unsolvable;
    const view = buildView(task, rng, o.distractors, this.vp.version);
    const hidden = this.options.hiddenInfo ? hiddenTruth(task, this.profile, perturbation, null, this.unsolvable) : undefined;
    const prompt = taskPrompt(task, o.hint);
    return new ToolMazeSetup(
      task.id,
      prompt,
      view.tools,
      view.visible,
      emptyWorldState(),
      facts.faults,
      CORRUPTIONS,
      taskParameters(task),
      hidden,
    );
  }

  /** The engine's call log in the scorer's form. */
  callLog(): CallRecord[] {
    const t = this.trackCalls();
    catchUpLog(t, this.facts);
    return [...t.log];
  }

  private tracked: Tracked | null = null;
  /** See `trackCalls` (callTracking.ts). */
  private trackCalls(): Tracked {
    return (this.tracked = trackCalls(this.tracked, this.episode?.data.calls ?? NO_CALLS, this.task, this.facts));
  }

  /**
   * The episode's metrics, computed once (judge, the reward terms and the metrics all ask): scored on the engine's
   * own call records, so the scorer-form log is built only when `callLog()` is read, not at every episode's end.
   */
  private finalScore(termination: Termination): EpisodeMetrics {
    if (this.score !== null) return this.score;
    const { calls, analysis, firstHit } = this.trackCalls();
    // The first perturbed call is the earliest first hit of any fault (engine call indices are 1-based positions).
    let firstPerturbed = 0;
    for (const index of firstHit.values()) if (firstPerturbed === 0 || index < firstPerturbed) firstPerturbed = index;
    this.score = scoreCalls(
      { task: this.task, profile: this.profile, termination, recovery: this.vp.recovery, optimum: this.vp.recoveryOptimum },
      calls,
      ENGINE_CALL_FACTS,
      analysis,
      firstPerturbed - 1,
    );
    return this.score;
  }

  /** Answers and aborts are scored; a budget or the step limit is never a success. */
  protected override judge(end: EpisodeEnd): boolean | null {
    if (end.kind === "limit") return null;
    return this.finalScore(end.kind).success === 1;
  }

  private announced: { history: readonly HistoryEntry[]; seen: number; slots: Set<number> } | null = null;
  /**
   * Slots whose alternative path was already announced, read incrementally from the step history (keyed on the
   * history array, which reset and setState replace, so a new or restored episode starts over).
   */
  private announcedSlots(): Set<number> {
    const history = this.episodeHistory();
    let a = this.announced;
    if (!a || a.history !== history || a.seen > history.length) a = this.announced = { history, seen: 0, slots: new Set() };
    for (; a.seen < history.length; a.seen++) {
      for (const e of history[a.seen]!.events) if (isAlternativePath(e)) a.slots.add(e.slot);
    }
    return a.slots;
  }

  /**
   * Forbidden calls downstream of a permanent failure, alternative-path announcements, then poisoned values from
   * the scorer's provenance (`CallAnalysis`; the engine's own is off, see `valueProvenance` in the constructor):
   * task literals are clean, values compare by type, and a value a call computed from poison is poisoned too
   * (transitive). So the `poisoned_value_reused` events, the `poisoned_value` reward and the metrics'
   * `poisonedUses` / `unsafeActions` all come from one analysis.
   */
  protected override onCall(record: EngineCall): CallReport {
    // Most calls report nothing: no event array or report object is built for them.
    const t = this.trackCalls();
    let events = this.pathEvents(record, t);
    // trackCalls() has just caught up with the engine's calls: the last entry is this call's.
    const poisoned = t.analysis.poisonedArgs[t.analysed - 1];
    if (poisoned !== undefined) {
      // Indexed: clean calls share one frozen empty list, and iterating it allocated an iterator per call.
      for (let i = 0; i < poisoned.length; i++) {
        const { argument, sourceCallIndex } = poisoned[i]!;
        (events ??= []).push({
          type: "poisoned_value_reused",
          tool: record.tool,
          callIndex: record.index,
          argument,
          sourceCallIndex,
          taint: "corrupted",
        });
      }
    }
    return events === null ? NO_REPORT : { events };
  }

  /** Forbidden-call and alternative-path events of a call, or null when it has none. */
  private pathEvents(record: EngineCall, t: Tracked): EpisodeEvent[] | null {
    let out: EpisodeEvent[] | null = null;
    // A fault without a victim (no member of its group called yet) announces nothing.
    if (t.victims.size === 0) return out;
    // Slots whose alternative path was already announced (derived from the event history: no hidden mutable state),
    // plus the ones announced now (this step's events only join the history after the hook returns). Read only when
    // a call goes onto an alternative path.
    let announced: Set<number> | null = null;
    let announcedNow: number[] | null = null;
    for (const { fault: f, victim, forbidden, alternatives } of faultPaths(t, this.task, this.profile, this.unsolvable)) {
      if (record.faults.includes(f.id) && record.tool === victim && (t.firstHit.get(f.id) ?? -1) === record.index) continue;
      if (forbidden?.has(record.tool)) {
        (out ??= []).push({
          type: "forbidden_call",
          tool: record.tool,
          callIndex: record.index,
          reason: `downstream of permanently failing ${victim} with no alternative`,
          mutation: corpus().tool(record.tool).category === "action",
        });
      }
      if (alternatives.has(record.tool) && !(announced ??= this.announcedSlots()).has(f.slot) && !announcedNow?.includes(f.slot)) {
        (announcedNow ??= []).push(f.slot);
        (out ??= []).push({ type: "toolmaze:alternative_path", slot: f.slot, from: victim, to: record.tool, callIndex: record.index });
      }
    }
    return out;
  }

  protected override stepReport(step: StepContext): StepReport {
    const rawTerms = this.rawTerms(step);
    if (step.hidden) {
      const hidden = this.hiddenStep(step.events);
      return rawTerms === null ? { hidden } : { rawTerms, hidden };
    }
    // Most steps add no family term: they share one empty report instead of two fresh objects.
    return rawTerms === null ? NO_STEP_REPORT : { rawTerms };
  }

  /** The family's raw terms of a step, or null when it has none (the object is made only for a term to add). */
  private rawTerms({ events, ended, success, end }: StepContext): Record<string, number> | null {
    let raw: Record<string, number> | null = null;
    let alt = 0;
    for (const e of events) if (e.type === "toolmaze:alternative_path") alt++;
    if (alt > 0) (raw ??= {}).alternative_path = alt;
    if (ended) {
      const endedBy = end?.kind === "answer" || end?.kind === "abort" ? end.kind : null;
      if (success && endedBy === "abort") (raw ??= {}).wise_abort = 1;
      const s = this.finalScore(endedBy ?? "truncated");
      const excess = s.exposed ? Math.max(0, s.c - s.cStar) : Math.max(0, s.calls - this.task.sStar.length);
      if (excess > 0) (raw ??= {}).excess_calls = excess;
    }
    return raw;
  }

  /** Φ = −(minimum further calls to finish), from clean progress and the faults met so far. */
  protected override potential(): number | null {
    if (!this.episode) return null;
    const t = this.trackCalls();
    const { cleanTools } = t.analysis;
    if (t.phiClean !== cleanTools.size || t.phiVictims !== t.victims.size) {
      // 0 - n, not -n: Φ = -0 would break equality checks on finished episodes.
      t.phi = 0 - minRemainingCalls(this.task, this.profile, cleanTools, t.victims);
      t.phiClean = cleanTools.size;
      t.phiVictims = t.victims.size;
    }
    return t.phi;
  }

  private hiddenStep(events: readonly EpisodeEvent[]): JsonObject | null {
    const called = events.find((e) => e.type === "tool_called");
    if (!called) return null;
    const t = this.trackCalls();
    const cleanFlags = t.analysis.cleanFlags;
    // The latest call, read from the engine's record (what its scorer-form record would say).
    const last = t.calls[t.calls.length - 1]!;
    const { faultId, corruptedField } = faultFacts(this.facts, last);
    return {
      perturbed: last.faults.length > 0,
      faultId: faultId ?? null,
      corruptedField: corruptedField ?? null,
      clean: cleanFlags[cleanFlags.length - 1] ?? false,
    };
  }

  protected override episodeMetrics(_success: boolean, reason: TerminationReason, end: EpisodeEnd): JsonObject {
    const termination: Termination = end.kind !== "limit" ? end.kind : reason === "max_steps" ? "truncated" : "budget";
    const s = this.finalScore(termination);
    // Written into the fresh copy rather than spread into another object: the keys keep the same order.
    const metrics = toJsonObject(s, "metrics");
    metrics.strategies = s.strategies.join("+");
    metrics.recovered = s.recovered;
    metrics.sStarLength = this.task.sStar.length;
    metrics.instanceIndex = this.instanceIndex;
    metrics.taskId = this.task.id;
    return metrics;
  }
}

export type { JsonValue };
