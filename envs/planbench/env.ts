/**
 * PlanBenchXL-v0: retrieval-mediated retail planning with noisy tools and path-preserving blockers.
 *
 * An engine family: `tool_call` runs through the engine's call pipeline (calls.ts: the tool library as engine tools
 * whose argument check and simulator are the official runtime's, the noisy and blocker siblings as decoy faults);
 * the retriever (`retrieve`), the official answer (`final_answer`; `answer` is accepted as it) and raw LLM replies
 * (`text`) are family actions. The runtime (world/runtime.ts) keeps the official state (error caps since the last
 * success, label errors, trusted / untrusted values, the trace the scorer reads), so scores stay bit-exact.
 */
import {
  asJsonObject,
  type CheckedToolEnvState,
  type EnvSpec,
  type EpisodeEvent,
  type EpisodeSetup,
  type FamilyAction,
  type FamilyActionResult,
  type FaultSpec,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type Rng,
  type StepContext,
  type StepReport,
  StateError,
  type TerminationReason,
  type ToolCallAction,
  ToolEnv,
} from "../../src/family.js";
import { decoyFaults, PlanBenchCalls, replyOf } from "./calls.js";
import { datatypeVocabulary, queryParameters, retrievalFeatures, retrieveCandidates, suspiciousOutput } from "./discrete.js";
import { FAMILY_EVENT_TYPES } from "./events.js";
import type { PlanBenchRelease, QueryRecord } from "./releaseFormat.js";
import { groundTruthDatatypes, scoreEpisode } from "./scorer.js";
import { blockedAnnotation, stepAnnotation } from "./annotations.js";
import { remainingShortestPath, unblockedPaths, type PathSignature } from "./potential.js";
import { PlanBenchSession } from "./session.js";
import { checkPlanBenchState, PLANBENCH_FAMILY_STATE_SCHEMA, PLANBENCH_WORLD_SCHEMA } from "./stateSchema.js";
import { mergeSettings } from "./settings.js";
import type { PlanBenchOptions } from "./options.js";
import {
  familyAction,
  FinalAnswerActionSchema,
  officialWireFormat,
  RetrieveActionSchema,
  TextActionSchema,
  type PlanBenchAction,
} from "./types.js";
import { createWorld } from "./world/index.js";
import { pathAndSelectionCounts } from "./paperAnalyses.js";
import type { PlanBenchWorld } from "./world/runtime.js";
import { pickQuery, sampleQueryPool } from "./queryPool.js";
import { pushReplyEvents, rawTerms } from "./replyEvents.js";
import { resolveWorldSource } from "./worldSource.js";

export { planBenchOptionsSchema, type PlanBenchOptions } from "./options.js";

/** What one official reply did: the agent's reply object, and how the episode ends if it does. */
interface ReplyResult {
  response: JsonObject;
  terminal?: TerminationReason;
  success?: boolean;
}

/** Per-episode ground truth derived once at reset (pure functions of the query and the blocker plan). */
interface EpisodeTruth {
  gt: ReadonlySet<string>;
  /** Catalog paths avoiding the blocked tools; all paths as a fallback when blocking leaves none feasible. */
  paths: readonly PathSignature[];
  allPaths: readonly PathSignature[];
  /** Φ memo: the held set only grows, so its size identifies it within an episode. */
  phi: { size: number; value: number } | null;
}

export class PlanBenchEnv extends ToolEnv<null, PlanBenchOptions> {
  readonly release: PlanBenchRelease;
  /** The world new episodes run in; `limitEpisodeSteps` swaps it for one with a lower runtime step limit. */
  private runtimeWorld: PlanBenchWorld;
  session: PlanBenchSession | null = null;
  private truth: EpisodeTruth | null = null;
  private readonly calls: PlanBenchCalls;
  private readonly faults: readonly FaultSpec[];

  constructor(options: PlanBenchOptions, spec: EnvSpec) {
    const { release, settings } = resolveWorldSource(options);
    const kinds = {
      retrieve: {
        schema: RetrieveActionSchema,
        weight: 0.3,
        sample: (rng: Rng) => ({ type: "retrieve", meta_tool: "by_output_info", output_information: rng.pick(release.datatypes).name }),
        candidates: retrieveCandidates(datatypeVocabulary(release)),
        features: retrievalFeatures,
      },
      text: { schema: TextActionSchema },
      final_answer: { schema: FinalAnswerActionSchema },
    };
    super(
      {
        family: "planbench",
        maxEpisodeSteps: settings.runtime.max_steps,
        familyTerms: {
          untrusted_output: "calls whose output is untrusted (noisy or blocker tools)",
          progress: "trusted calls that produce a new ground-truth datatype",
          label_error: "replies without exactly one valid action tag",
        },
        familyEventTypes: FAMILY_EVENT_TYPES,
        familyInfoKeys: {},
        extraActionKinds: kinds,
        normalizeAction: (x) => officialWireFormat(x, options.textActions),
        // The official harness refuses an untrusted input in its argument check: provenance must see those calls.
        valueProvenance: "before_validation",
        // A tool call is an official reply: onFamilyAction runs it through the runtime and the engine's pipeline.
        familyToolCalls: true,
        suspiciousValue: suspiciousOutput,
        worldSchema: PLANBENCH_WORLD_SCHEMA,
        familyStateSchema: PLANBENCH_FAMILY_STATE_SCHEMA,
      },
      options,
      spec,
    );
    this.release = release;
    this.runtimeWorld = createWorld(release, settings);
    this.calls = new PlanBenchCalls(release);
    this.faults = decoyFaults(release, settings.blocker.enable_block);
    this.queryPool();
  }

  get world(): PlanBenchWorld {
    return this.runtimeWorld;
  }

  /**
   * The official runtime judges its own step limit (`runtime.max_steps`: `exceeded_max_steps`, whether a wrong
   * answer still gets feedback, the termination style the scorer reads), so an outer TimeLimit lowers that limit
   * too; the episode then ends exactly as under the option `maxSteps`.
   */
  override limitEpisodeSteps(maxSteps: number): boolean {
    super.limitEpisodeSteps(maxSteps);
    const w = this.runtimeWorld;
    if (maxSteps < w.settings.runtime.max_steps) {
      // Blocker plans depend on the blocker settings only, so the world's plan cache (planFor) stays valid.
      this.runtimeWorld = { ...w, settings: mergeSettings(w.settings, { runtime: { max_steps: maxSteps } }) };
    }
    return true;
  }

  private pool: readonly QueryRecord[] | null = null;

  /** The episode pool (see `sampleQueryPool`), sampled once. */
  queryPool(): readonly QueryRecord[] {
    if (!this.pool) this.pool = sampleQueryPool(this.release, this.world.settings, this.options.queryIds);
    return this.pool;
  }

  protected override createEpisode(rng: Rng, options: JsonObject): EpisodeSetup<null> {
    const query = pickQuery(this.release, this.queryPool(), rng, options, this.options.cycle);
    this.session = new PlanBenchSession(this.world, query, this.options.compat);
    const catalog = this.release.catalog.get(query.task_id) ?? [];
    this.truth = {
      gt: groundTruthDatatypes(catalog, { toolByName: this.release.toolByName }),
      paths: unblockedPaths(catalog, this.release.toolByName, new Set(this.session.episode.plan.blockedTools)),
      allPaths: unblockedPaths(catalog, this.release.toolByName, new Set()),
      phi: null,
    };
    return {
      taskId: query.query_id,
      prompt: query.query_text,
      parameters: queryParameters(query),
      tools: this.calls.tools,
      visible: [],
      world: null,
      faults: this.faults,
      hidden: {
        ...asJsonObject(this.session.hidden()),
        blocked: blockedAnnotation(this.session.episode.plan),
        remainingCalls: -(this.potential() ?? 0) + 0,
      },
    };
  }

  /**
   * `tool_call` (config `familyToolCalls`: one official reply, its call run through the engine's pipeline; a call
   * that ends the episode is never its success), `retrieve`, `final_answer` and `text` (whose tagged call, if any,
   * also runs through the pipeline).
   */
  protected override onFamilyAction(action: FamilyAction): FamilyActionResult {
    const events: EpisodeEvent[] = [];
    if (action.type === "tool_call") {
      // The action space parsed it with the tool_call schema.
      const call = action as FamilyAction & Pick<ToolCallAction, "name" | "arguments">;
      const r = this.reply({ type: "tool_call", name: call.name, arguments: call.arguments }, events);
      return { response: r.response, events, ...(r.terminal ? { terminal: r.terminal } : {}) };
    }
    const r = this.reply(familyAction(action), events);
    return { response: r.response, events, ...(r.terminal ? { terminal: r.terminal, success: r.success } : {}) };
  }

  /** One official reply: the runtime's step, with calls through the engine, plus the family's events. */
  private reply(action: PlanBenchAction, events: EpisodeEvent[]): ReplyResult {
    const s = this.session!;
    const ep = s.episode;
    const heldBefore = new Set(ep.currentDatatypes);
    const out = s.step(action, (c) => {
      const r = this.calls.call(this.episode!, ep, c, this.stepCount);
      for (const e of r.events) events.push(e);
      return r.outcome;
    });
    if (out.entry.action === "retrieve_tools" && out.listed && out.listed.length > 0) {
      this.episode!.reveal(out.listed.map((t) => t.name));
    }
    pushReplyEvents(out, ep, heldBefore, this.truth!.gt, events);
    const response = replyOf(out);
    if (!out.done) return { response };
    const r = ep.result!;
    // The step limit is a truncation in Gymnasium terms: let the base class report it as `max_steps`.
    if (r.failure_reason_detail === "exceeded_max_steps") return { response };
    return { response, terminal: r.failure_reason_detail ?? "success", success: r.status === "success" };
  }

  protected override stepReport(step: StepContext): StepReport {
    const terms = rawTerms(step.events);
    if (!step.hidden) return { rawTerms: terms };
    const s = this.session;
    const hidden = s ? stepAnnotation(s, step.events, step.ended, this.potential(), this.truth!.gt, this.release.toolByName) : null;
    return { rawTerms: terms, hidden };
  }

  /**
   * Φ = −(remaining shortest path): the fewest baseline calls still needed from the trusted datatypes held, over
   * catalog paths that avoid the blocked tools (see potential.ts for why the catalog suffices). 0 once the target
   * is held or when the task has no catalog path.
   */
  protected override potential(): number | null {
    const s = this.session;
    const t = this.truth;
    if (!s || !t) return null;
    const held = s.episode.currentDatatypes;
    if (t.phi && t.phi.size === held.size) return t.phi.value;
    const target = s.query.target_datatype;
    const r = remainingShortestPath(t.paths, held, target) ?? remainingShortestPath(t.allPaths, held, target);
    const value = r === null || r === 0 ? 0 : -r;
    t.phi = { size: held.size, value };
    return value;
  }

  protected override episodeMetrics(_success: boolean, reason: TerminationReason): JsonObject {
    const s = this.session!;
    const result = s.finalResult();
    const ctx = { toolByName: this.release.toolByName };
    const m = scoreEpisode(result, s.query, this.release.catalog.get(s.query.task_id) ?? [], ctx);
    const analyses = pathAndSelectionCounts(result, s.episode.task, ctx);
    return { ...m, ...analyses, terminationReason: String(reason), officialFailure: result.failure_reason_detail ?? null } as JsonObject;
  }

  /** The family runtime lives outside EpisodeData: snapshot it (plain JSON) for getState / setState / fork. */
  protected override familyState(): JsonValue {
    const s = this.session;
    return s ? { queryId: s.query.query_id, session: s.snapshot() } : null;
  }

  protected override checkFamilyState(state: CheckedToolEnvState): void {
    checkPlanBenchState(state, this.release, this.session!.query);
  }

  protected override restoreFamilyState(state: JsonValue): void {
    if (state === null) return;
    // Shape already checked against PLANBENCH_FAMILY_STATE_SCHEMA by setState; this narrows it for the compiler.
    if (!isJsonObject(state) || typeof state["queryId"] !== "string") {
      throw new StateError("state.family", "not a PlanBench-XL family state");
    }
    const queryId = state["queryId"];
    const s = this.session;
    if (!s || s.query.query_id !== queryId) {
      throw new StateError("state.family.queryId", `state is for query ${queryId}, the rebuilt episode is ${s?.query.query_id ?? "none"}`);
    }
    s.restore(state["session"] ?? null);
  }
}
