import type { JsonObject, JsonValue } from "../core/json.js";
import { cloneJson } from "../core/json.js";
import { Rng, type RngState } from "../core/rng.js";
import { argumentIssues } from "../core/spaces/toolCall.js";
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
import { emptyDictionary } from "./dictionary.js";
import type { CoreEvent, EpisodeEvent, FaultPersistenceType, ToolErrorSource } from "./events.js";
import { type CorruptionFn, type FaultSpec, type FaultState, faultFires, initialFaultState } from "./faults.js";
import { type Taint, ValueProvenance } from "./ledger.js";
import { DEFAULT_PATTERN_RULES, type PatternRules, type RecoveryPatterns, recoveryPatternsInto } from "./patterns.js";
import type { CallPipeline, StageCall, StageOutcome } from "./pipeline.js";

export type { CallPipeline, FamilyFaultStage, StageCall, StageOutcome } from "./pipeline.js";
import type { ToolDefinition, ToolErrorPayload } from "./tool.js";

/** One tool call as recorded in the episode (plain data). */
export interface CallRecord {
  /** 1-based index among the episode's tool calls. */
  index: number;
  step: number;
  tool: string;
  arguments: JsonObject;
  ok: boolean;
  /** What the agent received: the (possibly corrupted) output, or the error payload. */
  response: JsonValue;
  errorSource: ToolErrorSource | null;
  /** Ids of faults that fired on this call. */
  faults: string[];
  taint: Taint;
  /** Strongest persistence among fired faults, for retry/switch bookkeeping. */
  faultPersistence: FaultPersistenceType | null;
  /** Only under the `retries: "errors"` budget rule: the response the retry-budget overflow replaced. */
  overflowed?: JsonValue;
}

/** Serialisable state of the tool-calling part of an episode. */
export interface EpisodeData<S> {
  world: S;
  visible: string[];
  calls: CallRecord[];
  faultStates: Record<string, FaultState>;
  retries: number;
}

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

/** A budget that ended the episode with this call: the reason and the `budget_exceeded` event to report. */
export interface BudgetEnd {
  reason: "budget_exceeded" | "retry_exceeded";
  event: Extract<CoreEvent, { type: "budget_exceeded" }>;
}

/**
 * The result of `ToolEpisode.call`: the record (null when the tool-call budget refused the call), the events it
 * produced, the response the agent is shown, and the budget that ended the episode, if one did (its event is
 * reported after the family's own events of the call).
 */
export interface CallResult {
  record: CallRecord | null;
  events: EpisodeEvent[];
  response: JsonValue;
  end: BudgetEnd | null;
}

/** An error payload as JSON (the same object: every field of ToolErrorPayload is JSON). */
function errorJson(error: ToolErrorPayload): JsonObject {
  return error as ToolErrorPayload & JsonObject;
}

const STRENGTH: Record<FaultPersistenceType, number> = { transient: 0, temporary: 1, permanent: 2 };
const NO_POISON: ReturnType<ValueProvenance["poisonedArguments"]> = [];

/**
 * The lazily derived stream of call `index` (`ctx.rng()`). A module-level factory rather than an inline named
 * closure: most tools never draw, and the closure stays a plain allocation on the hot path.
 */
function callRngOf(rng: Rng, index: number): () => Rng {
  return () => rng.derive(`call:${index}`);
}

/**
 * Name -> tool of a tool list. A family that hands every episode the same large list (PlanBench-XL's ~1,700 tools)
 * gets the same read-only map back instead of a rebuild per reset. Small lists are indexed afresh: a WeakMap entry
 * per reset of a family that builds its list per episode cost more (insertion and GC of the entries) than the map.
 */
const INDEX_CACHE_MIN = 64;
const toolIndexes = new WeakMap<readonly ToolDefinition<never>[], ReadonlyMap<string, ToolDefinition<never>>>();
function toolIndex<S>(list: readonly ToolDefinition<S>[]): ReadonlyMap<string, ToolDefinition<S>> {
  const cacheable = list.length >= INDEX_CACHE_MIN;
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
  private readonly corruptions: Readonly<Record<string, CorruptionFn<S>>>;
  private readonly rng: Rng;
  private faultRngs = new Map<string, Rng>();
  private readonly provenance: ValueProvenance | null;
  private readonly provenanceFirst: boolean;
  readonly budgets: ResolvedBudgets;
  private readonly budgetRules: BudgetRules;
  private readonly patternRules: PatternRules;
  private readonly pipeline: CallPipeline<S> | null;
  data: EpisodeData<S>;

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
    this.corruptions = config.corruptions ?? {};
    this.rng = config.rng;
    for (const name of config.visible) if (!this.tools.has(name)) throw new Error(`visible tool "${name}" is not defined`);
    // Keyed by fault ids (data, unbounded over a suite): a dictionary, see emptyDictionary.
    const faultStates: Record<string, FaultState> = this.faults.length > 0 ? emptyDictionary<FaultState>() : {};
    for (const f of this.faults) faultStates[f.id] = initialFaultState();
    this.data = { world: config.world, visible: [...config.visible], calls: [], faultStates, retries: 0 };
  }

  /** States of the per-fault probability streams (the only engine streams that advance with use). */
  rngStates(): Record<string, RngState> {
    const out: Record<string, RngState> = {};
    for (const [id, r] of [...this.faultRngs.entries()].sort(([a], [b]) => a.localeCompare(b))) out[id] = r.getState();
    return out;
  }

  restoreRngStates(states: Record<string, RngState>): void {
    this.faultRngs = new Map(Object.entries(states).map(([id, st]) => [id, Rng.fromState(st)]));
  }

  isVisible(name: string): boolean {
    return this.data.visible.includes(name);
  }

  visibleTools(): ToolDefinition<S>[] {
    return this.data.visible.map((n) => this.tools.get(n) as ToolDefinition<S>);
  }

  private visibleView: { names: string[]; tools: readonly ToolDefinition<S>[] } | null = null;
  /**
   * `visibleTools()` for readers that do not keep or modify the result (the action space samples from it twice per
   * random action): the same array until the visible set changes.
   */
  visibleToolsView(): readonly ToolDefinition<S>[] {
    const visible = this.data.visible;
    const v = this.visibleView;
    if (v !== null && v.names.length === visible.length) {
      let same = true;
      for (let i = 0; i < visible.length && same; i++) same = v.names[i] === visible[i];
      if (same) return v.tools;
    }
    this.visibleView = { names: visible.slice(), tools: this.visibleTools() };
    return this.visibleView.tools;
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

  private draws: Map<string, () => number> | null = null;
  /** The `prob` draw of fault `id` (one function per fault: the stream itself is derived on the first draw). */
  private drawOf(id: string): () => number {
    const draws = (this.draws ??= new Map());
    let draw = draws.get(id);
    if (!draw) draws.set(id, (draw = () => this.faultRng(id).random()));
    return draw;
  }

  private faultRng(id: string): Rng {
    let r = this.faultRngs.get(id);
    if (!r) {
      r = this.rng.derive(`fault:${id}`);
      this.faultRngs.set(id, r);
    }
    return r;
  }

  /** What the agent receives for an error: the tool's own body when it has one, else the uniform wrapper. */
  private static errorResponse(error: ToolErrorPayload): JsonValue {
    return error.body ?? { error: errorJson(error) };
  }

  private errorResponses: Map<ToolErrorPayload, JsonValue> | null = null;
  /** This episode's own copy of a shared fault's error response (see FaultEffect `perEpisodeResponse`). */
  private episodeErrorResponse(error: ToolErrorPayload): JsonValue {
    const responses = (this.errorResponses ??= new Map());
    let response = responses.get(error);
    if (response === undefined) {
      response = cloneJson(ToolEpisode.errorResponse(error));
      responses.set(error, response);
    }
    return response;
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
    const response = respond ? respond({ tool, args, callIndex: index }, { ok: false, error, source }) : ToolEpisode.errorResponse(error);
    return {
      index,
      step,
      tool,
      arguments: args,
      ok: false,
      response,
      errorSource: source,
      faults: [],
      taint: "clean",
      faultPersistence: null,
    };
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
      return { record: null, events: [], response: { error: { code, message } }, end: this.budgetEnd("budget_exceeded", limit) };
    }
    const args = cloneJson(rawArgs);
    const events: EpisodeEvent[] = [];
    const def = this.tools.get(tool);
    let record: CallRecord;
    let error: ToolErrorPayload | null = null;
    let end: BudgetEnd | null = null;
    if (overBudget) {
      error = this.budgetRules.exceeded ?? callBudgetError(this.budgets.toolCalls as number);
      record = this.errorRecord(index, step, tool, args, error, "budget");
      end = this.budgetEnd("budget_exceeded", this.budgets.toolCalls as number);
    } else if (this.pipeline !== null) {
      ({ record, error } = this.staged(this.pipeline, def, tool, args, index, step, events));
    } else if (!def) {
      error = { code: "unknown_tool", status: 404, message: `no tool named "${tool}"` };
      record = this.errorRecord(index, step, tool, args, error, "unknown_tool");
    } else if (!this.isVisible(tool)) {
      error = { code: "tool_not_available", status: 403, message: `tool "${tool}" is not available right now` };
      record = this.errorRecord(index, step, tool, args, error, "not_visible");
    } else {
      let poisoned = this.provenance && this.provenanceFirst ? this.provenance.poisonedArguments(this.data.calls, args) : NO_POISON;
      const refused = def.checkArguments ? def.checkArguments(args, this.data.world) : ToolEpisode.schemaError(def, args);
      if (refused) {
        error = refused;
        record = this.errorRecord(index, step, tool, args, error, "validation");
      } else {
        if (this.provenance && !this.provenanceFirst) poisoned = this.provenance.poisonedArguments(this.data.calls, args);
        ({ record, error } = this.runWithFaults(def, args, index, step, events));
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
    this.detectPatterns(record, events);
    this.data.calls.push(record);
    events.unshift({ type: "tool_called", tool, callIndex: index, arguments: args, ok: record.ok });
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
    return { record, events, response, end };
  }

  private budgetEnd(reason: BudgetEnd["reason"], limit: number): BudgetEnd {
    return { reason, event: { type: "budget_exceeded", budget: reason === "budget_exceeded" ? "tool_calls" : "retries", limit } };
  }

  private validation(pipeline: CallPipeline<S>, def: ToolDefinition<S> | undefined, tool: string, args: JsonObject): StageOutcome | null {
    const custom = pipeline.validate ? pipeline.validate(tool, def, args) : null;
    if (!def) {
      const error = custom ?? { code: "unknown_tool", status: 404, message: `no tool named "${tool}"` };
      return { ok: false, error, source: "unknown_tool" };
    }
    if (!this.isVisible(tool)) {
      const error = { code: "tool_not_available", status: 403, message: `tool "${tool}" is not available right now` };
      return { ok: false, error, source: "not_visible" };
    }
    const own = def.checkArguments;
    const refused = pipeline.validate ? custom : own ? own(args, this.data.world) : ToolEpisode.schemaError(def, args);
    return refused ? { ok: false, error: refused, source: "validation" } : null;
  }

  /**
   * The pipeline under a benchmark's options (see CallPipeline): validation and the family fault stage in the
   * configured order, the simulator, the stage's rewrite of the outcome, the retry budget's charge, the envelope.
   */
  private staged(
    pipeline: CallPipeline<S>,
    def: ToolDefinition<S> | undefined,
    tool: string,
    args: JsonObject,
    index: number,
    step: number,
    events: EpisodeEvent[],
  ): { record: CallRecord; error: ToolErrorPayload | null } {
    const faultsFirst = pipeline.order === "faults_first";
    let call: StageCall = { tool, args, callIndex: index };
    let outcome: StageOutcome | null = faultsFirst ? null : this.validation(pipeline, def, tool, args);
    const pre = outcome === null && pipeline.familyFaults ? pipeline.familyFaults.before(call) : null;
    if (pre) {
      call = { tool, args: pre.args, callIndex: index };
      if (pre.error) outcome = { ok: false, error: pre.error, source: "fault" };
    }
    if (outcome === null && faultsFirst) outcome = this.validation(pipeline, def, tool, call.args);
    let taint: Taint = "clean";
    if (outcome === null) {
      const ctx = { state: this.data.world, callIndex: index, step, rng: callRngOf(this.rng, index) };
      const out = (def as ToolDefinition<S>).run(call.args, ctx);
      if (out.ok && out.taint) taint = out.taint;
      outcome = out.ok ? { ok: true, output: out.output } : { ok: false, error: out.error, source: "simulator" };
    }
    let fired: readonly FaultSpec[] = [];
    if (pre) ({ outcome, fired } = pre.after(call, outcome));
    const respond = (o: StageOutcome): JsonValue =>
      pipeline.respond ? pipeline.respond(call, o) : o.ok ? o.output : ToolEpisode.errorResponse(o.error);
    let overflowed: JsonValue | undefined;
    if (!outcome.ok && this.budgetRules.retries === "errors") {
      this.data.retries += 1;
      const limit = this.budgets.retries;
      if (limit !== null && this.data.retries > limit) {
        overflowed = respond(outcome);
        const replace = this.budgetRules.retryExceeded;
        const capped = replace ? replace(limit, outcome.error) : { code: "retry_exceeded", message: `retry budget of ${limit} exceeded` };
        outcome = { ok: false, error: capped, source: outcome.source };
      }
    }
    const ids: string[] = [];
    let persistence: FaultPersistenceType | null = null;
    for (const f of fired) {
      if (ids.includes(f.id)) continue;
      ids.push(f.id);
      if (persistence === null || STRENGTH[f.persistence.type] > STRENGTH[persistence]) persistence = f.persistence.type;
      const { id: faultId, kind, visibility } = f;
      events.push({ type: "fault_injected", tool, callIndex: index, faultId, kind, visibility, persistence: f.persistence.type });
    }
    const reached = outcome.ok || outcome.source === "simulator" || outcome.source === "fault";
    if (reached && this.provenance) {
      for (const { argument, sourceCallIndex, taint: t } of this.provenance.poisonedArguments(this.data.calls, args)) {
        events.push({ type: "poisoned_value_reused", tool, callIndex: index, argument, sourceCallIndex, taint: t });
      }
    }
    const record: CallRecord = {
      index,
      step,
      tool,
      arguments: args,
      ok: outcome.ok,
      response: respond(outcome),
      errorSource: outcome.ok ? null : outcome.source,
      faults: ids,
      taint: outcome.ok ? taint : "clean",
      faultPersistence: persistence,
    };
    if (overflowed !== undefined) record.overflowed = overflowed;
    return { record, error: outcome.ok ? null : outcome.error };
  }

  /** The JSON-schema check of a call's arguments (tools without their own `checkArguments`). */
  private static schemaError(def: ToolDefinition<unknown>, args: JsonObject): ToolErrorPayload | null {
    const issues = argumentIssues(def.parameters, args);
    if (!issues) return null;
    const message = issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ");
    return { code: "invalid_arguments", status: 400, message };
  }

  /** Applies a family's named corruption transform to a call's output (null when the simulator was skipped). */
  private transform(
    def: ToolDefinition<S>,
    args: JsonObject,
    index: number,
    name: string,
    output: JsonValue | null,
    params: JsonObject | undefined,
  ): JsonValue {
    const fn = this.corruptions[name];
    if (!fn) throw new Error(`fault transform "${name}" is not registered`);
    return fn({ tool: def.name, args, output, params: params ?? {}, state: this.data.world, rng: this.rng.derive(`corrupt:${index}`) });
  }

  private runWithFaults(
    def: ToolDefinition<S>,
    args: JsonObject,
    index: number,
    step: number,
    events: EpisodeEvent[],
  ): { record: CallRecord; error: ToolErrorPayload | null } {
    // Hot path (every tool call): no per-call arrays or named closures unless a fault fires.
    let fired: FaultSpec[] | null = null;
    if (this.faults.length > 0) {
      const call = { tool: def.name, meta: def.meta, args, callIndex: index };
      for (const f of this.faults) {
        if (faultFires(f, this.data.faultStates[f.id], call, this.drawOf(f.id))) (fired ??= []).push(f);
      }
    }
    let ok: boolean;
    let response: JsonValue;
    let errorSource: ToolErrorSource | null = null;
    let taint: Taint = "clean";
    let error: ToolErrorPayload | null = null;
    const pre = fired === null ? undefined : fired.find((f) => f.effect.type !== "corrupt" && f.effect.type !== "decoy");
    if (pre) {
      const eff = pre.effect;
      if (eff.type === "error") {
        ok = false;
        error = eff.errorByTool?.[def.name] ?? eff.error;
        response = eff.perEpisodeResponse ? this.episodeErrorResponse(error) : ToolEpisode.errorResponse(error);
        errorSource = "fault";
      } else if (eff.type === "replace") {
        ok = true;
        response = eff.transform ? this.transform(def, args, index, eff.transform, null, eff.params) : cloneJson(eff.output ?? null);
        taint = "corrupted";
      } else throw new Error(`fault "${pre.id}": a "${eff.type}" effect is applied by its family, not by the default call pipeline`);
    } else {
      const out = def.run(args, { state: this.data.world, callIndex: index, step, rng: callRngOf(this.rng, index) });
      ok = out.ok;
      if (out.ok) {
        response = out.output;
        if (out.taint) taint = out.taint;
      } else {
        error = out.error;
        response = ToolEpisode.errorResponse(error);
        errorSource = "simulator";
      }
    }
    if (fired === null)
      return {
        record: { index, step, tool: def.name, arguments: args, ok, response, errorSource, faults: [], taint, faultPersistence: null },
        error,
      };
    const applied: FaultSpec[] = pre ? [pre] : [];
    if (!pre) {
      // A decoy answered by itself: whatever it said is the fault's doing, success or failure.
      for (const f of fired) {
        if (f.effect.type !== "decoy") continue;
        applied.push(f);
        taint = "untrusted";
        if (!ok) errorSource = "fault";
      }
    }
    if (ok) {
      for (const f of fired) {
        if (f.effect.type !== "corrupt") continue;
        response = this.transform(def, args, index, f.effect.transform, response, f.effect.params);
        taint = "corrupted";
        applied.push(f);
      }
    }
    for (const f of applied) {
      events.push({
        type: "fault_injected",
        tool: def.name,
        callIndex: index,
        faultId: f.id,
        kind: f.kind,
        visibility: f.visibility,
        persistence: f.persistence.type,
      });
    }
    let persistence: FaultPersistenceType | null = null;
    for (const f of applied)
      if (persistence === null || STRENGTH[f.persistence.type] > STRENGTH[persistence]) persistence = f.persistence.type;
    const record = {
      index,
      step,
      tool: def.name,
      arguments: args,
      ok,
      response,
      errorSource,
      faults: applied.map((f) => f.id),
      taint,
      faultPersistence: persistence,
    };
    return { record, error };
  }

  // Made on first use, not as an arrow class field: under tsx (keepNames) every field arrow costs a
  // defineProperty('name') per episode, which was a fifth of a canonical ToolMaze reset.
  private groupFn: ((tool: string) => string | undefined) | null = null;
  /** Scratch result of the pattern detection (read right away, never kept). */
  private readonly patterns: RecoveryPatterns = { retry: null, alternativeSwitch: null };

  /** Retry, alternative-switch and read-back events, from the call history alone. */
  private detectPatterns(record: CallRecord, events: EpisodeEvent[]): void {
    const calls = this.data.calls;
    this.groupFn ??= (tool) => this.tools.get(tool)?.meta?.group;
    const { retry, alternativeSwitch } = recoveryPatternsInto(
      this.patterns,
      calls,
      record.tool,
      record.index,
      this.groupFn,
      this.patternRules,
    );
    if (retry) {
      if (this.budgetRules.retries === "retry_events") this.data.retries += 1;
      events.push(retry);
    }
    if (alternativeSwitch) events.push(alternativeSwitch);
    const def = this.tools.get(record.tool);
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
