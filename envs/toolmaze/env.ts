/**
 * ToolMaze-v0: the tool-episode env for DAG tasks C1–C4 under perturbations NP, P1–P4. The engine runs calls,
 * faults, ledger and rewards; this class picks the instance, builds tools / faults / hidden ground truth,
 * judges answers and aborts with the scorer, and reports SEEDS §1 metrics at the end of the episode.
 */
import { z } from "zod";
import type { EnvSpec } from "../../src/core/env.js";
import type { JsonObject, JsonValue } from "../../src/core/json.js";
import { Rng } from "../../src/core/rng.js";
import type { ToolCallAction } from "../../src/engine/actions.js";
import type { HistoryEntry } from "../../src/engine/render.js";
import type { EpisodeEvent, TerminationReason } from "../../src/engine/events.js";
import type { CorruptionFn } from "../../src/engine/faults.js";
import type { CallRecord as EngineCall } from "../../src/engine/episode.js";
import { type EpisodeSetup, ToolEnv, toolEnvOptionsSchema } from "../../src/engine/toolEnv.js";
import { buildProfile, type FaultProfile } from "./faults.js";
import {
  CallAnalysis, type CallRecord, downstreamPositions, type EpisodeMetrics, isUnsolvable, minRemainingCalls,
  scoreEpisode, slotSolutions, type Termination,
} from "./scorer.js";
import {
  CANONICAL_INSTANCES, CANONICAL_SEED, canonicalInstance, COMPLEXITIES, generateTask, PERTURBATIONS, type Perturbation,
  stratifiedInstanceIndex, type Task,
} from "./tasks.js";
import { DOMAINS } from "./world/catalog.js";
import { corpus } from "./world/corpus.js";
import { emptyWorldState, type WorldState } from "./world/state.js";
import { type Scalar, WORLD_NOW } from "./world/types.js";
import { distractorPool, faultSpecs, HIDDEN_SOLUTIONS, orderingCounts, silentResponse, toolDefinition } from "./wiring.js";

export { faultSpecs, toolDefinition } from "./wiring.js";

export const TOOLMAZE_MAX_STEPS = 25;

export const toolMazeOptionsSchema = toolEnvOptionsSchema
  .extend({
    /** canonical: the fixed 2,000-instance suite; sampled: a fresh task from the reset seed. */
    suite: z.enum(["canonical", "sampled"]).default("canonical"),
    /** Pins one canonical instance (base task * 5 + perturbation index). */
    taskIndex: z.number().int().min(0).max(CANONICAL_INSTANCES - 1).optional(),
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
      ctx.addIssue({ code: "custom", path: ["taskIndex"], message: "taskIndex only applies to suite \"canonical\"" });
    }
    if (o.taskIndex !== undefined && (o.complexity || o.perturbation || o.domain)) {
      ctx.addIssue({ code: "custom", path: ["taskIndex"], message: "taskIndex pins one instance; drop the complexity/perturbation/domain filters" });
    }
  });
export type ToolMazeOptions = z.infer<typeof toolMazeOptionsSchema>;

const HEADER = `Current date and time: ${WORLD_NOW} (UTC).\n`;
const HINT = "\n\nNote: tools may fail. Errors can be explicit (HTTP errors, timeouts, rate limits) or silent (plausible-looking "
  + "but impossible values, e.g. temperatures below absolute zero, negative counts, timestamps in the past, debug text). "
  + "Recovery strategies: retry a call that failed transiently; switch to an equivalent tool or another way of getting "
  + "the same information when a tool keeps failing; if no alternative exists, stop (abort) instead of acting on bad data.";

/** What `ToolMazeEnv.track` keeps per episode (see there). */
interface Tracked {
  readonly calls: readonly EngineCall[];
  readonly faultById: ReadonlyMap<string, FaultProfile["faults"][number]>;
  readonly log: CallRecord[];
  readonly analysis: CallAnalysis;
  readonly victims: Map<number, string>;
  readonly firstHit: Map<string, number>;
}
const NO_CALLS: readonly EngineCall[] = [];

const downstreamCache = new WeakMap<Task, Map<number, ReadonlySet<string>>>();
/** Tools of the positions downstream of `position` (a pure function of the task, cached on its identity). */
function downstreamTools(task: Task, position: number): ReadonlySet<string> {
  let byPos = downstreamCache.get(task);
  if (!byPos) downstreamCache.set(task, (byPos = new Map()));
  let tools = byPos.get(position);
  if (!tools) {
    tools = new Set([...downstreamPositions(task, position)].flatMap((p) => task.positions[p]!.members));
    byPos.set(position, tools);
  }
  return tools;
}

export class ToolMazeEnv extends ToolEnv<WorldState, ToolMazeOptions> {
  private task!: Task;
  private profile!: FaultProfile;
  private instanceIndex: number | null = null;
  private endedBy: Termination | null = null;
  private unsolvable = false;
  private score: EpisodeMetrics | null = null;

  constructor(options: ToolMazeOptions, spec: EnvSpec) {
    super({
      family: "toolmaze",
      maxEpisodeSteps: TOOLMAZE_MAX_STEPS,
      familyTerms: {
        alternative_path: "first call onto an alternative path (another route or substitute) after a slot's perturbation",
        excess_calls: "at the end: calls beyond the optimum (c − c* when exposed, calls − |s*| otherwise)",
      },
      familyEventTypes: ["toolmaze:alternative_path"],
    }, options, spec);
  }

  /** The current episode's task and fault profile (for baselines, tests and tools). */
  current(): { task: Task; profile: FaultProfile; instanceIndex: number | null } {
    return { task: this.task, profile: this.profile, instanceIndex: this.instanceIndex };
  }

  private candidateCache: number[] | null = null;
  /**
   * Canonical instance indices matching the option filters, in the stratified order (levels and perturbations
   * interleaved, see `stratifiedInstanceIndex`), so any run of consecutive seeds is stratified; options are fixed per
   * env, so computed once.
   */
  private candidates(): number[] {
    if (!this.candidateCache) {
      const o = this.options;
      this.candidateCache = [];
      for (let rank = 0; rank < CANONICAL_INSTANCES; rank++) {
        const i = stratifiedInstanceIndex(rank);
        const inst = canonicalInstance(i);
        if (o.complexity && inst.task.complexity !== o.complexity) continue;
        if (o.perturbation && inst.perturbation !== o.perturbation) continue;
        if (o.domain && inst.task.domain !== o.domain) continue;
        this.candidateCache.push(i);
      }
    }
    return this.candidateCache;
  }

  private pickInstance(rng: Rng): { task: Task; perturbation: Perturbation; index: number | null; faultRng: Rng; viewRng: Rng } {
    const o = this.options;
    if (o.suite === "canonical") {
      let index = o.taskIndex;
      if (index === undefined) {
        const candidates = this.candidates();
        // Seeded resets (root stream path = the seed) map seed -> instance, so seeds seed+i (vector envs,
        // rollouts) cover distinct instances; unseeded resets draw one. Derived from the stream alone, so
        // setState/fork rebuild the same episode.
        const seed = /^-?\d+$/.test(rng.path) ? Number(rng.path) : null;
        const k = seed !== null ? ((seed % candidates.length) + candidates.length) % candidates.length
          : rng.derive("instance").int(candidates.length);
        index = candidates[k]!;
      }
      const inst = canonicalInstance(index);
      // Distractors and tool order of a canonical instance come from its index (the stream of the seed that played it
      // before seeds were stratified), so an instance is the same episode whichever seed selects it.
      return { task: inst.task, perturbation: inst.perturbation, index, faultRng: new Rng(`${CANONICAL_SEED}/${inst.task.id}/${inst.perturbation}`), viewRng: new Rng(index) };
    }
    const r = rng.derive("task");
    const complexity = o.complexity ?? r.pick(COMPLEXITIES);
    const domain = o.domain ?? r.pick(DOMAINS);
    const perturbation = o.perturbation ?? r.pick(PERTURBATIONS);
    const task = generateTask(r.derive("generate"), complexity, domain, `smp-${rng.path.replace(/[^0-9a-z]+/gi, "-")}`);
    return { task, perturbation, index: null, faultRng: rng.derive("faults"), viewRng: rng };
  }

  protected createEpisode(rng: Rng, _options: JsonObject): EpisodeSetup<WorldState> {
    const { task, perturbation, index, faultRng, viewRng } = this.pickInstance(rng);
    this.task = task;
    this.instanceIndex = index;
    this.profile = buildProfile(task, perturbation, faultRng);
    this.endedBy = null;
    this.score = null;
    this.tracked = null;
    this.announced = null;
    this.unsolvable = isUnsolvable(task, this.profile);
    const c = corpus();
    const own = task.positions.flatMap((p) => p.members);
    const pool = distractorPool(task);
    const distractors = viewRng.derive("distractors").shuffle(pool).slice(0, this.options.distractors);
    const visible = viewRng.derive("visible").shuffle([...own, ...distractors]);
    return {
      // The id names the instance but not its perturbation mode (that is ground truth, in info.hidden).
      taskId: index !== null ? `toolmaze-${String(index).padStart(4, "0")}` : task.id,
      prompt: HEADER + task.text + (this.options.hint ? HINT : ""),
      tools: visible.map((n) => toolDefinition(c.tool(n))),
      visible,
      world: emptyWorldState(),
      faults: faultSpecs(this.profile),
      hidden: this.hiddenTruth(perturbation, index),
    };
  }

  private hiddenTruth(perturbation: Perturbation, index: number | null): JsonObject {
    const t = this.task;
    return {
      instanceIndex: index,
      complexity: t.complexity,
      perturbation,
      domain: t.domain,
      unsolvable: isUnsolvable(t, this.profile),
      sStar: [...t.sStar],
      solutions: t.solutions.slice(0, HIDDEN_SOLUTIONS).map((s) => [...s]),
      // Legal call orders of each listed solution (the list gives one canonical order per tool set).
      orderings: orderingCounts(t),
      slots: t.slots.map((s) => ({ slot: s.slot, goal: s.goal, pattern: s.pattern })),
      solutionCount: t.solutions.length,
      positions: t.positions.map((p): JsonObject => ({
        index: p.index, group: p.cap, category: p.category, slot: p.slot, members: [...p.members],
        route: p.route ? `${p.route.id}#${p.route.branch}` : null,
        bindings: Object.fromEntries(Object.entries(p.bindings).map(([k, b]): [string, JsonObject] => [k, b.kind === "literal"
          ? { literal: b.value } : { type: b.type, from: [...b.from] }])),
      })),
      faults: this.profile.faults.map((f) => ({
        id: f.id, slot: f.slot, group: f.group, position: f.position, members: [...f.members], visibility: f.visibility,
        persistence: f.persistence,
        payload: (f.explicit ? { status: f.explicit.status, message: f.explicit.message } : { ...f.corruption! }) as JsonObject,
      })),
    };
  }

  protected override corruptions(): Record<string, CorruptionFn<WorldState>> {
    return { toolmaze_silent: silentResponse };
  }

  /** The engine's call log in the scorer's form. */
  callLog(): CallRecord[] {
    return [...this.track().log];
  }

  private tracked: Tracked | null = null;
  /**
   * Scorer-form log, clean/poison analysis, victims and first hits, extended by the calls made since the last
   * look: several hooks read them on every step, and recomputing over the whole log made steps cost O(calls).
   * Keyed on the engine's call array, so a restored or new episode (a different array) starts over.
   */
  private track(): Tracked {
    const calls = this.episode?.data.calls ?? NO_CALLS;
    let t = this.tracked;
    if (!t || t.calls !== calls || t.log.length > calls.length) {
      t = { calls, faultById: new Map(this.profile.faults.map((f) => [f.id, f])), log: [], analysis: new CallAnalysis(this.task), victims: new Map(), firstHit: new Map() };
      this.tracked = t;
    }
    for (let i = t.log.length; i < calls.length; i++) {
      const r = calls[i]!;
      const faultId = r.faults[0];
      const f = faultId !== undefined ? t.faultById.get(faultId) : undefined;
      const rec: CallRecord = {
        tool: r.tool, args: r.arguments, ok: r.ok, perturbed: r.faults.length > 0,
        ...(r.ok ? { output: r.response as Record<string, Scalar> } : {}),
        ...(faultId !== undefined ? { faultId } : {}),
        ...(f?.corruption && r.ok ? { corruptedField: f.corruption.field } : {}),
      };
      t.log.push(rec);
      t.analysis.add(rec);
      for (const id of r.faults) {
        const hit = t.faultById.get(id);
        if (hit && !t.victims.has(hit.slot)) t.victims.set(hit.slot, r.tool);
        if (!t.firstHit.has(id)) t.firstHit.set(id, r.index);
      }
    }
    return t;
  }

  private finalScore(termination: Termination): EpisodeMetrics {
    this.score ??= scoreEpisode({ task: this.task, profile: this.profile, calls: this.track().log, termination });
    return this.score;
  }

  protected override judgeAnswer(_content: string): boolean {
    this.endedBy = "answer";
    return this.finalScore("answer").success === 1;
  }

  protected override judgeAbort(_reason: string | null): boolean {
    this.endedBy = "abort";
    return this.finalScore("abort").success === 1;
  }

  private victims(): ReadonlyMap<number, string> {
    return this.track().victims;
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
      for (const e of history[a.seen]!.events) if (e.type === "toolmaze:alternative_path") a.slots.add((e as unknown as { slot: number }).slot);
    }
    return a.slots;
  }

  protected override afterCall(record: EngineCall, _events: EpisodeEvent[]): EpisodeEvent[] {
    const out: EpisodeEvent[] = [];
    const victims = this.victims();
    const unsolvable = this.unsolvable;
    // Slots whose alternative path was already announced (derived from the event history: no hidden mutable state);
    // a copy, because this step's announcements only join the history after the hook returns.
    const announced = new Set(this.announcedSlots());
    for (const f of this.profile.faults) {
      const victim = victims.get(f.slot);
      if (victim === undefined || record.faults.includes(f.id) && record.tool === victim && this.firstHit(f.id) === record.index) continue;
      if (unsolvable && f.persistence === "permanent" && downstreamTools(this.task, f.position).has(record.tool)) {
        out.push({ type: "forbidden_call", tool: record.tool, callIndex: record.index, reason: `downstream of permanently failing ${victim} with no alternative`, mutation: corpus().tool(record.tool).category === "action" });
      }
      if (!announced.has(f.slot)) {
        const sols = slotSolutions(this.task)[f.slot]!;
        const withVictim = new Set(sols.filter((p) => p.includes(victim)).flat());
        const alt = sols.some((p) => !p.includes(victim) && p.includes(record.tool)) && !withVictim.has(record.tool);
        if (alt) {
          announced.add(f.slot);
          out.push({ type: "toolmaze:alternative_path", slot: f.slot, from: victim, to: record.tool, callIndex: record.index });
        }
      }
    }
    return out;
  }

  /**
   * The engine flags an argument whose value appeared only in corrupted responses; ToolMaze replaces those events by
   * the scorer's provenance (`CallAnalysis`): task literals are clean, values compare by type, and a value a call
   * computed from poison is poisoned too (transitive). So the `poisoned_value_reused` events, the `poisoned_value`
   * reward and the metrics' `poisonedUses` / `unsafeActions` all come from one analysis.
   */
  protected override handleToolCall(call: ToolCallAction, events: EpisodeEvent[]): ReturnType<ToolEnv<WorldState>["handleToolCall"]> {
    const before = this.episode?.data.calls.length ?? 0;
    const from = events.length;
    const result = super.handleToolCall(call, events);
    const calls = this.episode?.data.calls ?? NO_CALLS;
    if (calls.length === before) return result;
    for (let i = events.length - 1; i >= from; i--) if (events[i]!.type === "poisoned_value_reused") events.splice(i, 1);
    const { analysis } = this.track();
    const record = calls[calls.length - 1]!;
    for (const p of analysis.poisonedArgs[calls.length - 1] ?? []) {
      events.push({ type: "poisoned_value_reused", tool: record.tool, callIndex: record.index, argument: p.argument, sourceCallIndex: p.sourceCallIndex, taint: "corrupted" });
    }
    return result;
  }

  private firstHit(faultId: string): number {
    return this.track().firstHit.get(faultId) ?? -1;
  }

  protected override familyRawTerms(events: readonly EpisodeEvent[], terminal: boolean, success: boolean): Record<string, number> {
    const raw: Record<string, number> = {};
    const alt = events.filter((e) => e.type === "toolmaze:alternative_path").length;
    if (alt > 0) raw.alternative_path = alt;
    if (terminal) {
      if (success && this.endedBy === "abort") raw.wise_abort = 1;
      const s = this.finalScore(this.endedBy ?? "truncated");
      const excess = s.exposed ? Math.max(0, s.c - s.cStar) : Math.max(0, s.calls - this.task.sStar.length);
      if (excess > 0) raw.excess_calls = excess;
    }
    return raw;
  }

  /** Φ = −(minimum further calls to finish), from clean progress and the faults met so far. */
  protected override potential(): number | null {
    if (!this.episode) return null;
    const { cleanTools } = this.track().analysis;
    // 0 - n, not -n: Φ = -0 would break equality checks on finished episodes.
    return 0 - minRemainingCalls(this.task, this.profile, cleanTools, this.victims());
  }

  protected override hiddenStepInfo(events: readonly EpisodeEvent[]): JsonObject | null {
    const called = events.find((e) => e.type === "tool_called");
    if (!called) return null;
    const { log, analysis: { cleanFlags } } = this.track();
    const last = log[log.length - 1]!;
    return {
      perturbed: last.perturbed,
      faultId: last.faultId ?? null,
      corruptedField: last.corruptedField ?? null,
      clean: cleanFlags[cleanFlags.length - 1] ?? false,
    };
  }

  protected override episodeMetrics(_success: boolean, reason: TerminationReason): JsonObject {
    const termination: Termination = this.endedBy ?? (reason === "max_steps" ? "truncated" : "budget");
    const s = this.finalScore(termination);
    return {
      ...(s as unknown as JsonObject),
      strategies: s.strategies.join("+"),
      recovered: s.recovered,
      sStarLength: this.task.sStar.length,
      instanceIndex: this.instanceIndex,
      taskId: this.task.id,
    } as JsonObject;
  }
}

export type { JsonValue };
