import type { JsonObject } from "../core/json.js";
import { cloneJson } from "../core/json.js";
import type { Rng, RngState } from "../core/rng.js";
import { sameItems } from "../core/objects.js";
import {
  type BudgetRules,
  callBudgetError,
  callBudgetExhausted,
  DEFAULT_BUDGET_RULES,
  type EpisodeBudgets,
  type ResolvedBudgets,
  resolveBudgets,
  retryBudgetOverflowed,
} from "./budgets.js";
import {
  type BudgetEnd,
  type CallRecord,
  type CallResult,
  type EpisodeData,
  errorResponse,
  NO_FAULTS,
  CallRecordData,
  schemaError,
} from "./callRecord.js";
import { emptyDictionary } from "./dictionary.js";
import type { CoreEvent, EpisodeEvent, ToolErrorSource } from "./events.js";
import { type CorruptionFn, type FaultSpec, type FaultState, initialFaultState } from "./faults.js";
import { FaultStage } from "./faultStage.js";
import { ValueProvenance } from "./ledger.js";
import { CallIndex } from "./callIndex.js";
import { DEFAULT_PATTERN_RULES, type PatternRules, type RecoveryPatterns, recoveryPatternsOf } from "./patterns.js";
import type { CallPipeline } from "./pipeline.js";
import { runStaged, type StagedEpisode } from "./staged.js";
import { CallResultOf, EpisodeDataOf, ToolCalled, youngArray, youngArrayOf } from "./plainRecords.js";
import type { ToolDefinition, ToolErrorPayload } from "./tool.js";

export type { BudgetEnd, CallRecord, CallResult, EpisodeData } from "./callRecord.js";
export type { CallPipeline, FamilyFaultStage, StageCall, StageOutcome } from "./pipeline.js";

export interface ToolEpisodeConfig<S> {
  tools: readonly ToolDefinition<S>[];
  visible: readonly string[];
  world: S;
  faults?: readonly FaultSpec[];
  corruptions?: Readonly<Record<string, CorruptionFn<S>>>;
  rng: Rng;
  /**
   * Emit `poisoned_value_reused` events from the engine's value provenance (default true). A family that reports
   * poisoned values from its own analysis instead (ToolMaze) turns it off rather than computing events to discard.
   * `"before_validation"`: also for calls the argument check refuses (PlanBench-XL's harness refuses untrusted
   * inputs there, so the reuse is never seen after it).
   */
  valueProvenance?: boolean | "before_validation";
  budgets?: EpisodeBudgets;
  /** How a benchmark's harness orders and words its call pipeline; default: the engine's own (see CallPipeline). */
  pipeline?: CallPipeline<S>;
}

const NO_POISON: ReturnType<ValueProvenance["poisonedArguments"]> = [];
type ToolCalledEvent = Extract<CoreEvent, { type: "tool_called" }>;

/**
 * Name -> tool of a tool list. A family that hands every episode the same large list (PlanBench-XL's ~1,700 tools)
 * gets the same read-only map back instead of a rebuild per reset. Small lists are indexed afresh: a WeakMap entry
 * per reset of a family that builds its list per episode cost more (insertion and GC of the entries) than the map.
 * A frozen list is one a family shares between episodes (ToolMaze's cached views), so it is cached whatever its size.
 */
const INDEX_CACHE_MIN = 64;
const toolIndexes = new WeakMap<readonly ToolDefinition<never>[], ReadonlyMap<string, ToolDefinition<never>>>();
/**
 * The last frozen visible list checked against a cached index: a family resetting with the same frozen lists
 * (every episode of a ToolMaze instance) has its visible names checked once, not on every reset.
 */
const checkedVisible = new WeakMap<ReadonlyMap<string, ToolDefinition<never>>, readonly string[]>();
/** A frozen visible list's tools in a tool index, frozen (see `visibleToolsView`); keyed by the list, checked by index. */
const sharedViews = new WeakMap<
  readonly string[],
  { index: ReadonlyMap<string, ToolDefinition<never>>; tools: readonly ToolDefinition<never>[] }
>();
const NO_DEFINITIONS: readonly ToolDefinition<never>[] = Object.freeze([]);
function toolIndex<S>(list: readonly ToolDefinition<S>[]): ReadonlyMap<string, ToolDefinition<S>> {
  const cacheable = list.length >= INDEX_CACHE_MIN || Object.isFrozen(list);
  const cached = cacheable ? (toolIndexes.get(list) as ReadonlyMap<string, ToolDefinition<S>> | undefined) : undefined;
  if (cached) return cached;
  const tools = new Map<string, ToolDefinition<S>>();
  for (const t of list) tools.set(t.name, t);
  if (cacheable) toolIndexes.set(list, tools);
  return tools;
}

/**
 * The shared call pipeline: unknown/invisible tool -> argument validation -> faults that pre-empt the simulator ->
 * simulator -> corrupting faults -> ledger -> events (retry, alternative switch, read-back, poisoned value).
 * Families call it from their env and add their own events on top.
 */
export class ToolEpisode<S> {
  readonly tools: ReadonlyMap<string, ToolDefinition<S>>;
  readonly faults: readonly FaultSpec[];
  private readonly rng: Rng;
  private readonly faultStage: FaultStage<S>;
  private readonly provenance: ValueProvenance | null;
  private readonly provenanceFirst: boolean;
  readonly budgets: ResolvedBudgets;
  private readonly budgetRules: BudgetRules;
  private readonly patternRules: PatternRules;
  private readonly pipeline: CallPipeline<S> | null;
  data: EpisodeData<S>;
  /** The config's visible list when the family hands a frozen one (shared by its episodes), else null. */
  private readonly initialVisible: readonly string[] | null;

  constructor(config: ToolEpisodeConfig<S>) {
    this.tools = toolIndex(config.tools);
    this.provenance = config.valueProvenance === false ? null : new ValueProvenance();
    this.provenanceFirst = config.valueProvenance === "before_validation";
    this.faults = config.faults ?? [];
    this.budgets = resolveBudgets(config.budgets);
    const p = config.pipeline;
    this.budgetRules = p?.budgetRules ?? DEFAULT_BUDGET_RULES;
    this.patternRules = p?.patternRules ?? DEFAULT_PATTERN_RULES;
    // The default pipeline keeps its allocation-free hot path; any option that changes a stage takes the staged one.
    this.pipeline = p && (p.order === "faults_first" || p.validate || p.familyFaults || p.respond || p.view) ? p : null;
    if (this.pipeline?.familyFaults && this.faults.length > 0) {
      throw new Error("an episode takes its faults either from fault specs or from a family fault stage, not both");
    }
    this.rng = config.rng;
    this.faultStage = new FaultStage(this.faults, config.corruptions ?? {}, config.rng);
    const visible = config.visible;
    // Shared views only for a shared tool index too (else one view per episode would replace the last in the cache).
    this.initialVisible = Object.isFrozen(visible) && toolIndexes.get(config.tools) === this.tools ? visible : null;
    if (checkedVisible.get(this.tools) !== visible) {
      for (const name of visible) if (!this.tools.has(name)) throw new Error(`visible tool "${name}" is not defined`);
      if (this.initialVisible !== null) checkedVisible.set(this.tools, visible);
    }
    // Keyed by fault ids (data, unbounded over a suite): a dictionary, see emptyDictionary.
    const faultStates: Record<string, FaultState> = this.faults.length > 0 ? emptyDictionary<FaultState>() : {};
    for (const f of this.faults) faultStates[f.id] = initialFaultState();
    this.data = new EpisodeDataOf(config.world, [...visible], youngArray(), faultStates, 0) as EpisodeData<S>;
  }

  /** States of the per-fault probability streams (the only engine streams that advance with use). */
  rngStates(): Record<string, RngState> {
    return this.faultStage.rngStates();
  }

  restoreRngStates(states: Record<string, RngState>): void {
    this.faultStage.restoreRngStates(states);
  }

  isVisible(name: string): boolean {
    return this.data.visible.includes(name);
  }

  visibleTools(): ToolDefinition<S>[] {
    return this.data.visible.map((n) => this.tools.get(n) as ToolDefinition<S>);
  }

  /** The names `viewTools` was made for (frozen: a family's shared list, or this episode's own copy). */
  private viewNames: readonly string[] | null = null;
  private viewTools: readonly ToolDefinition<S>[] = NO_DEFINITIONS;
  /**
   * `visibleTools()` for readers that do not keep or modify the result (the action space samples from it twice per
   * random action): the same array until the visible set changes. While the visible names are still those of a
   * family's frozen list (every episode of a ToolMaze instance starts with the same one), the view is one frozen
   * array shared by those episodes instead of a copy of the names and a tool list per episode.
   */
  visibleToolsView(): readonly ToolDefinition<S>[] {
    const visible = this.data.visible;
    const names = this.viewNames;
    if (names !== null && sameItems(names, visible)) return this.viewTools;
    const initial = this.initialVisible;
    if (initial !== null && sameItems(initial, visible)) {
      let shared = sharedViews.get(initial);
      if (shared === undefined || shared.index !== this.tools) {
        shared = { index: this.tools, tools: Object.freeze(this.visibleTools()) };
        sharedViews.set(initial, shared);
      }
      this.viewNames = initial;
      this.viewTools = shared.tools as readonly ToolDefinition<S>[];
    } else {
      this.viewNames = visible.slice();
      this.viewTools = this.visibleTools();
    }
    return this.viewTools;
  }

  /** Makes tools visible (staged disclosure, retrieval); returns the names that were newly revealed. */
  reveal(names: readonly string[]): string[] {
    const added: string[] = [];
    for (const n of names) {
      if (!this.tools.has(n)) throw new Error(`cannot reveal unknown tool "${n}"`);
      if (!this.data.visible.includes(n)) {
        this.data.visible.push(n);
        added.push(n);
      }
    }
    return added;
  }

  hide(names: readonly string[]): string[] {
    const removed = this.data.visible.filter((n) => names.includes(n));
    this.data.visible = this.data.visible.filter((n) => !names.includes(n));
    return removed;
  }

  private errorRecord(
    index: number,
    step: number,
    tool: string,
    args: JsonObject,
    error: ToolErrorPayload,
    source: ToolErrorSource,
  ): CallRecord {
    const respond = this.pipeline?.respond;
    const response = respond ? respond({ tool, args, callIndex: index }, { ok: false, error, source }) : errorResponse(error);
    return new CallRecordData(index, step, tool, args, false, response, source, NO_FAULTS, "clean", null);
  }

  private staged: StagedEpisode<S> | null = null;
  /** What the staged pipeline (staged.ts) sees of this episode; `data` is read live (setState replaces it). */
  private stagedView(): StagedEpisode<S> {
    if (this.staged === null) {
      const episode = this;
      this.staged = {
        get data() {
          return episode.data;
        },
        rng: this.rng,
        provenance: this.provenance,
        budgets: this.budgets,
        budgetRules: this.budgetRules,
        isVisible: (name) => episode.isVisible(name),
      };
    }
    return this.staged;
  }

  /**
   * Runs one tool call through the pipeline, budgets included. Never throws for agent mistakes: they become error
   * records (or, past a tool-call budget that refuses calls, no record at all).
   */
  call(tool: string, rawArgs: JsonObject, step: number): CallResult {
    const index = this.data.calls.length + 1;
    const overBudget = callBudgetExhausted(this.budgets, index - 1);
    if (overBudget && this.budgetRules.calls === "refuse") {
      const limit = this.budgets.toolCalls as number;
      const { code, message } = callBudgetError(limit);
      const response = { error: { code, message } };
      return { record: null, arguments: null, events: [], response, end: this.budgetEnd("budget_exceeded", limit) };
    }
    const args = cloneJson(rawArgs);
    // The call's own event comes first; its `ok` is filled in once the call is recorded (no unshift at the end).
    // Not literals: see plainRecords.ts.
    const called: ToolCalledEvent = new ToolCalled(tool, index, args, false);
    const events = youngArrayOf<EpisodeEvent>(called);
    const def = this.tools.get(tool);
    let record: CallRecord;
    let error: ToolErrorPayload | null = null;
    let end: BudgetEnd | null = null;
    if (overBudget) {
      error = this.budgetRules.exceeded ?? callBudgetError(this.budgets.toolCalls as number);
      record = this.errorRecord(index, step, tool, args, error, "budget");
      end = this.budgetEnd("budget_exceeded", this.budgets.toolCalls as number);
    } else if (this.pipeline !== null) {
      ({ record, error } = runStaged(this.stagedView(), this.pipeline, def, tool, args, index, step, events));
    } else if (!def) {
      error = { code: "unknown_tool", status: 404, message: `no tool named "${tool}"` };
      record = this.errorRecord(index, step, tool, args, error, "unknown_tool");
    } else if (!this.isVisible(tool)) {
      error = { code: "tool_not_available", status: 403, message: `tool "${tool}" is not available right now` };
      record = this.errorRecord(index, step, tool, args, error, "not_visible");
    } else {
      let poisoned = this.provenance && this.provenanceFirst ? this.provenance.poisonedArguments(this.data.calls, args) : NO_POISON;
      const refused = def.checkArguments ? def.checkArguments(args, this.data.world) : schemaError(def, args);
      if (refused) {
        error = refused;
        record = this.errorRecord(index, step, tool, args, error, "validation");
      } else {
        if (this.provenance && !this.provenanceFirst) poisoned = this.provenance.poisonedArguments(this.data.calls, args);
        record = this.faultStage.run(def, args, index, step, this.data, events);
        error = this.faultStage.error;
      }
      for (const p of poisoned) {
        events.push({
          type: "poisoned_value_reused",
          tool,
          callIndex: index,
          argument: p.argument,
          sourceCallIndex: p.sourceCallIndex,
          taint: p.taint,
        });
      }
    }
    this.detectPatterns(record, def, events);
    this.data.calls.push(record);
    this.callIndex.append(tool, def?.meta?.group);
    called.ok = record.ok;
    if (!record.ok && error) {
      events.push({
        type: "tool_error",
        tool,
        callIndex: index,
        code: error.code,
        source: record.errorSource ?? "simulator",
        message: error.message,
      });
    }
    if (end === null && this.budgets.retries !== null && retryBudgetOverflowed(this.budgets, this.data.retries)) {
      end = this.budgetEnd("retry_exceeded", this.budgets.retries);
    }
    const response = this.pipeline?.view ? this.pipeline.view(record.response) : record.response;
    return new CallResultOf(record, args, events, response, end);
  }

  private budgetEnd(reason: BudgetEnd["reason"], limit: number): BudgetEnd {
    return { reason, event: { type: "budget_exceeded", budget: reason === "budget_exceeded" ? "tool_calls" : "retries", limit } };
  }

  // Made on first use, not as an arrow class field: under tsx (keepNames) every field arrow costs a
  // defineProperty('name') per episode, which was a fifth of a canonical ToolMaze reset.
  private groupFn: ((tool: string) => string | undefined) | null = null;
  /** Scratch result of the pattern detection (read right away, never kept). */
  private readonly patterns: RecoveryPatterns = { retry: null, alternativeSwitch: null };
  private readonly callIndex = new CallIndex();

  /** Retry, alternative-switch and read-back events, from the call history alone. */
  private detectPatterns(record: CallRecord, def: ToolDefinition<S> | undefined, events: EpisodeEvent[]): void {
    const calls = this.data.calls;
    this.groupFn ??= (tool) => this.tools.get(tool)?.meta?.group;
    // recoveryPatternsInto's two searches, answered from the call index (see CallIndex).
    const callIndex = this.callIndex;
    callIndex.sync(calls, this.groupFn);
    const tool = record.tool;
    const group = def?.meta?.group;
    const rules = this.patternRules;
    const same = callIndex.lastOf(tool);
    const prevSame = same >= 0 ? calls[same] : undefined;
    let from: CallRecord | undefined;
    if (group !== undefined) {
      const last = calls.length - 1;
      if (rules.switchFrom === "previous_call") {
        if (last >= 0 && calls[last].tool !== tool && callIndex.groupAt(last) === group) from = calls[last];
      } else if (!prevSame) {
        const j = callIndex.lastInGroup(group, tool);
        if (j >= 0) from = calls[j];
      }
    }
    const { retry, alternativeSwitch } = recoveryPatternsOf(this.patterns, prevSame, from, tool, record.index, group, rules);
    if (retry) {
      // The retry budget is observable (and ends the episode): charge only a retry the agent can see, after an error
      // response. A retry after a silent fault is still an event (rewards, metrics) but costs nothing, or the
      // remaining budget would reveal the fault.
      if (this.budgetRules.retries === "retry_events" && !calls[retry.ofCallIndex - 1].ok) this.data.retries += 1;
      events.push(retry);
    }
    if (alternativeSwitch) events.push(alternativeSwitch);
    const verifies = def?.meta?.verifies;
    if (verifies && record.ok) {
      for (let i = calls.length - 1; i >= 0; i--) {
        const c = calls[i];
        if (c.ok && verifies.includes(c.tool)) {
          events.push({ type: "verification_call", tool: record.tool, callIndex: record.index, verifies: c.tool, ofCallIndex: c.index });
          break;
        }
      }
    }
  }
}
