/**
 * ToolMaze-v0: the tool-episode env for DAG tasks C1–C4 under perturbations NP, P1–P4. The engine runs calls,
 * faults, ledger and rewards; this class picks the instance, builds tools / faults / hidden ground truth,
 * judges answers and aborts with the scorer, and reports SEEDS §1 metrics at the end of the episode.
 */
import { z } from "zod";
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
  type CorruptionFn,
  type EpisodeEnd,
  type EpisodeSetup,
  type StepContext,
  type StepReport,
  type TaskParameter,
  toJsonObject,
  ToolEnv,
  toolEnvOptionsSchema,
} from "../../src/family.js";
import "./events.js";
import { buildProfile, type FaultProfile } from "./faults.js";
import {
  alternativeTools,
  CallAnalysis,
  type CallRecord,
  downstreamTools,
  type EpisodeMetrics,
  minRemainingCalls,
  scoreCalls,
  type ScoredCallFacts,
  type Termination,
} from "./scorer.js";
import { CANONICAL_INSTANCES, canonicalInstance, COMPLEXITIES, PERTURBATIONS, type Perturbation, sampleTask, type Task } from "./tasks.js";
import { requestParameters } from "./requests.js";
import { type ToolMazeVersion, type VersionProfile, versionProfile } from "./version.js";
import { DOMAINS } from "./world/catalog.js";
import { corpus } from "./world/corpus.js";
import { emptyWorldState, type WorldState } from "./world/state.js";
import { type Scalar, WORLD_NOW } from "./world/types.js";
import {
  buildView,
  type CanonicalEpisode,
  canonicalCandidates,
  canonicalEpisodeTable,
  canonicalHidden,
  canonicalProfile,
  canonicalView,
  deepFreezeJson,
  type ProfileFacts,
  profileFacts,
} from "./instanceCache.js";
import { HIDDEN_SOLUTIONS, orderingCounts, silentResponse } from "./wiring.js";
import { Memo } from "./task/memo.js";
import { foreignVocabulary, looksImplausible } from "./agent/plausibility.js";

export { faultSpecs, toolDefinition } from "./wiring.js";

export const TOOLMAZE_MAX_STEPS = 25;

export const toolMazeOptionsSchema = toolEnvOptionsSchema
  .extend({
    /** canonical: the fixed 2,000-instance suite; sampled: a fresh task from the reset seed. */
    suite: z.enum(["canonical", "sampled"]).default("canonical"),
    /** Pins one canonical instance (base task * 5 + perturbation index). */
    taskIndex: z
      .number()
      .int()
      .min(0)
      .max(CANONICAL_INSTANCES - 1)
      .optional(),
    complexity: z.enum(COMPLEXITIES).optional(),
    perturbation: z.enum(PERTURBATIONS).optional(),
    domain: z.enum(DOMAINS).optional(),
    /** Same-domain tools shown besides the task's own (never members of the task's alternative groups). */
    distractors: z.number().int().min(0).max(20).default(3),
    /** Failure-aware prompt variant (warns that tools may fail and lists recovery strategies). */
    hint: z.boolean().default(false),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.taskIndex !== undefined && o.suite === "sampled") {
      ctx.addIssue({ code: "custom", path: ["taskIndex"], message: 'taskIndex only applies to suite "canonical"' });
    }
    if (o.taskIndex !== undefined && (o.complexity || o.perturbation || o.domain)) {
      ctx.addIssue({
        code: "custom",
        path: ["taskIndex"],
        message: "taskIndex pins one instance; drop the complexity/perturbation/domain filters",
      });
    }
  });
export type ToolMazeOptions = z.infer<typeof toolMazeOptionsSchema>;

const HEADER = `Current date and time: ${WORLD_NOW} (UTC).\n`;
const HINT =
  "\n\nNote: tools may fail. Errors can be explicit (HTTP errors, timeouts, rate limits) or silent (plausible-looking " +
  "but impossible values, e.g. temperatures below absolute zero, negative counts, timestamps in the past, debug text). " +
  "Recovery strategies: retry a call that failed transiently; switch to an equivalent tool or another way of getting " +
  "the same information when a tool keeps failing; if no alternative exists, stop (abort) instead of acting on bad data.";

/** What `ToolMazeEnv.track` keeps per episode (see there). */
interface Tracked {
  readonly calls: readonly EngineCall[];
  /** How many of `calls` the analysis, victims and first hits have seen. */
  analysed: number;
  /** The scorer-form log: built when read (scoring, `callLog`), not per call; it may lag `analysed`. */
  readonly log: CallRecord[];
  readonly analysis: CallAnalysis;
  readonly victims: Map<number, string>;
  readonly firstHit: Map<string, number>;
  /**
   * Φ for the clean tools and victims counted in `phiAt` (both sets only grow, so their sizes identify them):
   * Φ depends on nothing else, and most calls change neither.
   */
  phi: number;
  phiAt: { clean: number; victims: number };
  /** `pathEvents`' view of the faults that have a victim, as of `victims.size === pathsAt` (see `faultPaths`). */
  paths: readonly FaultPath[];
  pathsAt: number;
}

/** A fault with a victim, with the tool sets `pathEvents` tests every call against (cached per task). */
interface FaultPath {
  readonly fault: FaultProfile["faults"][number];
  readonly victim: string;
  /** Tools downstream of the fault's position when a call to them is forbidden (unsolvable, permanent), else null. */
  readonly forbidden: ReadonlySet<string> | null;
  readonly alternatives: ReadonlySet<string>;
}
const NO_PATHS: readonly FaultPath[] = [];
const NO_CALLS: readonly EngineCall[] = [];
type AlternativePath = { type: "toolmaze:alternative_path" } & FamilyEventRegistry["toolmaze:alternative_path"];
/** `eventsOfType(…, "toolmaze:alternative_path")` one event at a time (no array per history entry). */
const isAlternativePath = (e: EpisodeEvent): e is AlternativePath => e.type === "toolmaze:alternative_path";
/** The engine's call record as the scorer reads it: the same facts `track` copies into the scorer-form log. */
const ENGINE_CALL_FACTS: ScoredCallFacts<EngineCall> = {
  tool: (r) => r.tool,
  perturbed: (r) => r.faults.length > 0,
  faultId: (r) => r.faults[0],
};
/** The report of a call without family events, shared (the engine only reads reports). */
const NO_REPORT: CallReport = Object.freeze({});
const NO_STEP_REPORT: StepReport = Object.freeze({});

const parameterCache = new WeakMap<Task, TaskParameter[]>();
/**
 * The literals the task text quotes, as typed data (each position's literal bindings, typed as its tools document
 * the parameter), each request as data (requests.ts), plus the answer the scorer accepts (it judges the calls made,
 * not the answer's wording).
 */
function taskParameters(task: Task): TaskParameter[] {
  let out = parameterCache.get(task);
  if (out) return out;
  out = [];
  const seen = new Set<string>();
  for (const p of task.positions) {
    const types = corpus().tool(p.members[0]!).paramTypes;
    for (const [name, b] of Object.entries(p.bindings)) {
      if (b.kind !== "literal") continue;
      const key = `${types[name]}\u0000${String(b.value)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ name, type: types[name], value: b.value });
    }
  }
  out.push(...requestParameters(task));
  out.push({ name: "content", target: "answer", value: "All requested steps are complete." });
  if (!task.id.startsWith("smp-")) parameterCache.set(task, out);
  return out;
}
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The parts of the hidden truth that depend on the task alone, deep-frozen. */
interface TaskTruth {
  readonly sStar: JsonValue;
  readonly solutions: JsonValue;
  readonly orderings: JsonValue;
  readonly slots: JsonValue;
  readonly positions: JsonValue;
}
const taskTruths = new Memo<Task, TaskTruth>("taskTruth");
/**
 * Built once per task and shared by the hidden truth of each of its instances (the five perturbations of a canonical
 * base task): the hidden truth is frozen, so sharing its parts is safe, and building them was most of a first visit.
 */
function taskTruth(t: Task): TaskTruth {
  let tt = taskTruths.get(t);
  if (tt) return tt;
  tt = {
    sStar: deepFreezeJson([...t.sStar]),
    solutions: deepFreezeJson(t.solutions.slice(0, HIDDEN_SOLUTIONS).map((s) => [...s])),
    orderings: deepFreezeJson(orderingCounts(t)),
    slots: deepFreezeJson(t.slots.map((s) => ({ slot: s.slot, goal: s.goal, pattern: s.pattern }))),
    positions: deepFreezeJson(
      t.positions.map((p): JsonObject => {
        // Built per sampled reset: a loop rather than Object.fromEntries over mapped entries (same keys, same order).
        const bindings: JsonObject = {};
        for (const k in p.bindings) {
          const b = p.bindings[k]!;
          bindings[k] = b.kind === "literal" ? { literal: b.value } : { type: b.type, from: [...b.from] };
        }
        return {
          index: p.index,
          group: p.cap,
          category: p.category,
          slot: p.slot,
          members: [...p.members],
          route: p.route ? `${p.route.id}#${p.route.branch}` : null,
          bindings,
        };
      }),
    ),
  };
  taskTruths.set(t, tt);
  return tt;
}
const CORRUPTIONS: Readonly<Record<string, CorruptionFn<WorldState>>> = Object.freeze({ toolmaze_silent: silentResponse });

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
      entry = table[index] = {
        index,
        task,
        perturbation,
        profile,
        facts: profileFacts(task, profile),
        view: canonicalView(task, index - (index % PERTURBATIONS.length), o.distractors, this.vp.version),
        // The id names the instance but not its perturbation mode (that is ground truth, in info.hidden).
        taskId: `toolmaze-${String(index).padStart(4, "0")}`,
        prompt: HEADER + task.text + (o.hint ? HINT : ""),
        parameters: taskParameters(task),
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
    return {
      taskId: entry.taskId,
      prompt: entry.prompt,
      tools: entry.view.tools,
      visible: entry.view.visible,
      world: emptyWorldState(),
      faults: entry.facts.faults,
      corruptions: CORRUPTIONS,
      parameters: entry.parameters,
      // Read only with option hiddenInfo (ToolEnv puts it in info.hidden): deep-frozen on both suites, so callers
      // see one contract (read-only) whether or not the object is shared with other episodes.
      hidden: !this.options.hiddenInfo
        ? undefined
        : (entry.hidden ??= canonicalHidden(entry.profile, () => this.hiddenTruth(entry.perturbation, entry.index))),
    };
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
    return {
      taskId: task.id,
      prompt: HEADER + task.text + (o.hint ? HINT : ""),
      tools: view.tools,
      visible: view.visible,
      world: emptyWorldState(),
      faults: facts.faults,
      corruptions: CORRUPTIONS,
      parameters: taskParameters(task),
      hidden: this.options.hiddenInfo ? deepFreezeJson(this.hiddenTruth(perturbation, null)) : undefined,
    };
  }

  private hiddenTruth(perturbation: Perturbation, index: number | null): JsonObject {
    const t = this.task;
    const tt = taskTruth(t);
    return {
      instanceIndex: index,
      complexity: t.complexity,
      perturbation,
      domain: t.domain,
      unsolvable: this.unsolvable,
      sStar: tt.sStar,
      solutions: tt.solutions,
      // Legal call orders of each listed solution (the list gives one canonical order per tool set).
      orderings: tt.orderings,
      slots: tt.slots,
      solutionCount: t.solutions.length,
      positions: tt.positions,
      faults: this.profile.faults.map((f) => ({
        id: f.id,
        slot: f.slot,
        group: f.group,
        position: f.position,
        members: [...f.members],
        visibility: f.visibility,
        persistence: f.persistence,
        payload: (f.explicit ? { status: f.explicit.status, message: f.explicit.message } : { ...f.corruption! }) as JsonObject,
      })),
    };
  }

  /** The engine's call log in the scorer's form. */
  callLog(): CallRecord[] {
    return [...this.track().log];
  }

  /** `trackCalls`, with the scorer-form log caught up too (its records are made here, once each). */
  private track(): Tracked {
    const t = this.trackCalls();
    for (let i = t.log.length; i < t.calls.length; i++) {
      const r = t.calls[i]!;
      const { faultId, corruptedField } = this.faultFacts(r);
      // Optional keys are added in this order (callers of callLog() see the records).
      const rec: Mutable<CallRecord> = { tool: r.tool, args: r.arguments, ok: r.ok, perturbed: r.faults.length > 0 };
      if (r.ok) rec.output = r.response as Record<string, Scalar>;
      if (faultId !== undefined) rec.faultId = faultId;
      if (corruptedField !== undefined) rec.corruptedField = corruptedField;
      t.log.push(rec);
    }
    return t;
  }

  /** The fault that fired first on a call and the output field it corrupted (undefined when none), in a scratch object. */
  private faultFacts(r: EngineCall): { faultId: string | undefined; corruptedField: string | undefined } {
    const facts = this.factsScratch;
    const faultId = r.faults[0];
    const f = faultId !== undefined ? this.facts.faultById.get(faultId) : undefined;
    facts.faultId = faultId;
    facts.corruptedField = f?.corruption && r.ok ? f.corruption.field : undefined;
    return facts;
  }
  private readonly factsScratch: { faultId: string | undefined; corruptedField: string | undefined } = {
    faultId: undefined,
    corruptedField: undefined,
  };
  /** The call the analysis reads (`add` keeps values, never the record): one object refilled per call. */
  private readonly analysedCall: Mutable<CallRecord> = {
    tool: "",
    args: {},
    ok: false,
    perturbed: false,
    output: undefined,
    faultId: undefined,
    corruptedField: undefined,
  };

  private tracked: Tracked | null = null;
  /**
   * Clean/poison analysis, victims and first hits, extended by the calls made since the last look: several hooks
   * read them on every step, and recomputing over the whole log made steps cost O(calls). Keyed on the engine's
   * call array, so a restored or new episode (a different array) starts over.
   */
  private trackCalls(): Tracked {
    const calls = this.episode?.data.calls ?? NO_CALLS;
    let t = this.tracked;
    if (!t || t.calls !== calls || t.analysed > calls.length) {
      t = {
        calls,
        analysed: 0,
        log: [],
        analysis: new CallAnalysis(this.task),
        victims: new Map(),
        firstHit: new Map(),
        phi: this.facts.phi0,
        phiAt: { clean: 0, victims: 0 },
        paths: NO_PATHS,
        pathsAt: 0,
      };
      this.tracked = t;
    }
    for (let i = t.analysed; i < calls.length; i++) {
      const r = calls[i]!;
      const { faultId, corruptedField } = this.faultFacts(r);
      const a = this.analysedCall;
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
        const hit = this.facts.faultById.get(id);
        if (hit && !t.victims.has(hit.slot)) t.victims.set(hit.slot, r.tool);
        if (!t.firstHit.has(id)) t.firstHit.set(id, r.index);
      }
    }
    return t;
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
    for (const { fault: f, victim, forbidden, alternatives } of this.faultPaths(t)) {
      if (record.faults.includes(f.id) && record.tool === victim && (t.firstHit.get(f.id) ?? -1) === record.index) continue;
      if (forbidden !== null && forbidden.has(record.tool)) {
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

  /**
   * The profile's faults that have a victim, in profile order, with their tool sets: rebuilt only when a fault meets
   * its first victim (victims are set once per slot and never change), not looked up per fault on every call.
   */
  private faultPaths(t: Tracked): readonly FaultPath[] {
    if (t.pathsAt === t.victims.size) return t.paths;
    const paths: FaultPath[] = [];
    for (const fault of this.profile.faults) {
      const victim = t.victims.get(fault.slot);
      if (victim === undefined) continue;
      const forbidden = this.unsolvable && fault.persistence === "permanent" ? downstreamTools(this.task, fault.position) : null;
      paths.push({ fault, victim, forbidden, alternatives: alternativeTools(this.task, fault.slot, victim) });
    }
    t.paths = paths;
    t.pathsAt = t.victims.size;
    return paths;
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
    if (t.phiAt.clean !== cleanTools.size || t.phiAt.victims !== t.victims.size) {
      // 0 - n, not -n: Φ = -0 would break equality checks on finished episodes.
      t.phi = 0 - minRemainingCalls(this.task, this.profile, cleanTools, t.victims);
      t.phiAt = { clean: cleanTools.size, victims: t.victims.size };
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
    const { faultId, corruptedField } = this.faultFacts(last);
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
