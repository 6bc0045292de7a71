/**
 * PlanBenchXL-v0: retrieval-mediated retail planning with noisy tools and path-preserving blockers.
 *
 * An engine family: `tool_call` runs through the engine's call pipeline (calls.ts: the tool library as engine tools
 * whose argument check and simulator are the official runtime's, the noisy and blocker siblings as decoy faults);
 * the retriever (`retrieve`), the official answer (`final_answer`; `answer` is accepted as it) and raw LLM replies
 * (`text`) are family actions. The runtime (world/runtime.ts) keeps the official state (error caps since the last
 * success, label errors, trusted / untrusted values, the trace the scorer reads), so scores stay bit-exact.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import {
  asJson,
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
  OptionsError,
  resolveOptionPath,
  type Rng,
  type StepContext,
  type StepReport,
  StateError,
  type TerminationReason,
  type ToolCallAction,
  ToolEnv,
} from "../../src/family.js";
import { calledName, decoyFaults, PlanBenchCalls, replyOf } from "./calls.js";
import { datatypeVocabulary, queryParameters, retrievalFeatures, retrieveCandidates, suspiciousOutput } from "./discrete.js";
import { FAMILY_EVENT_TYPES } from "./events.js";
import { loadRelease, type PlanBenchRelease, type QueryRecord } from "./dataset.js";
import { analyseEpisode, groundTruthDatatypes, scoreEpisode } from "./scorer.js";
import { analysisAnnotation, blockedAnnotation, callAnnotation, shownBlockers } from "./annotations.js";
import { remainingShortestPath, unblockedPaths, type PathSignature } from "./potential.js";
import type { EpisodeResult } from "./world/trace.js";
import { PlanBenchSession } from "./session.js";
import { checkPlanBenchState, PLANBENCH_FAMILY_STATE_SCHEMA, PLANBENCH_WORLD_SCHEMA } from "./stateSchema.js";
import { loadPreset, mergeSettings, type PlanBenchSettings } from "./settings.js";
import type { PlanBenchOptions } from "./options.js";
import {
  familyAction,
  FinalAnswerActionSchema,
  officialWireFormat,
  RetrieveActionSchema,
  TextActionSchema,
  type PlanBenchAction,
} from "./types.js";
import { builtinRelease } from "./generator/index.js";
import { createWorld } from "./world/index.js";
import { sampleSequence } from "./sampling.js";
import { pathAndSelectionCounts } from "./paperAnalyses.js";
import type { PlanBenchWorld } from "./world/runtime.js";

export { planBenchOptionsSchema, type PlanBenchOptions } from "./options.js";

/**
 * Pool index of a reset under `cycle`. A seeded reset's stream path is the seed itself, and an unseeded reset's is
 * `<lastSeed>/next:<k>`, so the index is (seed + k) mod n without any extra state: `eval --episodes n` (seeds
 * 0..n-1) plays every query once, unseeded resets continue the cycle, and getState / setState need nothing new.
 */
export function cycleIndex(rngPath: string, n: number): number | null {
  const m = /^(-?\d+)(?:\/next:(\d+))?$/.exec(rngPath);
  if (!m || n === 0) return null;
  const k = BigInt(m[1]!) + BigInt(m[2] ?? 0);
  return Number(((k % BigInt(n)) + BigInt(n)) % BigInt(n));
}

const releaseCache = new Map<string, PlanBenchRelease>();

/** Where the official data is when no `dataDir` is given. */
export function defaultDataDir(): string | null {
  const cands = [process.env["PLANBENCH_DATA_DIR"], path.resolve("../shared/planbench-xl"), path.resolve("../../shared/planbench-xl")];
  for (const c of cands) if (c && existsSync(path.join(c, "tasks.json"))) return path.resolve(c);
  return null;
}

function releaseFor(dir: string): PlanBenchRelease {
  let r = releaseCache.get(dir);
  if (!r) {
    r = loadRelease(dir);
    releaseCache.set(dir, r);
  }
  return r;
}

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
    if (options.world === "builtin" && options.dataDir !== undefined) {
      throw new OptionsError("world", `world "builtin" conflicts with dataDir "${options.dataDir}": pass one or the other`);
    }
    if (options.domain !== undefined && options.dataDir !== undefined) {
      throw new OptionsError(
        "domain",
        `domain "${options.domain}" selects the built-in world and conflicts with dataDir "${options.dataDir}": pass one or the other`,
      );
    }
    const builtin = options.world === "builtin" || options.domain !== undefined;
    const dir = builtin ? null : options.dataDir !== undefined ? resolveOptionPath("dataDir", options.dataDir) : defaultDataDir();
    let settings: PlanBenchSettings = mergeSettings(loadPreset(options.setting), options.settings);
    if (options.maxSteps !== undefined) settings = mergeSettings(settings, { runtime: { max_steps: options.maxSteps } });
    // No release given or found: run on the generated built-in world (same loader, same runtime).
    const release = dir ? releaseFor(path.resolve(dir)) : builtinRelease(options.worldSeed, options.domain ?? "retail");
    if (options.queryIds)
      for (const id of options.queryIds)
        if (!release.queries.some((q) => q.query_id === id)) throw new OptionsError("queryIds", `unknown query "${id}" in ${release.dir}`);
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

  /**
   * The episode pool: the release's queries in file order, sampled by `settings.query_sample` (the official
   * seeded CPython sample) and restricted to `queryIds` when given.
   */
  queryPool(): readonly QueryRecord[] {
    if (!this.pool) {
      const qs = this.world.settings.query_sample;
      const sampled = sampleSequence(this.release.queries, qs.size, qs.seed);
      const ids = this.options.queryIds;
      const wanted = ids ? new Set(ids) : null;
      this.pool = wanted ? sampled.filter((q) => wanted.has(q.query_id)) : sampled;
      if (this.pool.length === 0) throw new OptionsError("queryIds", "no query of queryIds is in settings.query_sample's sample");
    }
    return this.pool;
  }

  protected override createEpisode(rng: Rng, options: JsonObject): EpisodeSetup<null> {
    const pool = this.queryPool();
    let query: QueryRecord;
    if (typeof options["queryId"] === "string") {
      const q = this.release.queries.find((x) => x.query_id === options["queryId"]);
      if (!q) throw new OptionsError("options.queryId", `unknown query "${String(options["queryId"])}"`);
      query = q;
    } else {
      const index = this.options.cycle ? cycleIndex(rng.path, pool.length) : null;
      query = index === null ? rng.derive("task").pick(pool) : pool[index]!;
    }
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
    const e = out.entry;
    if (e.action === "others") events.push({ type: "planbench:label_error", attempt: ep.labelErrors });
    if (e.action === "retrieve_tools") {
      const listed = out.listed ?? [];
      if (listed.length > 0) this.episode!.reveal(listed.map((t) => t.name));
      events.push({ type: "planbench:retrieve", ok: e.retrieval_result !== undefined, listed: listed.length });
    }
    if (e.action === "call_tool") {
      const name = calledName(e.request);
      const tr = e.tool_result;
      if (tr?.output_provenance === "untrusted") {
        events.push({ type: "planbench:untrusted_output", tool: name, source: tr.untrusted_source_type ?? "noisy" });
      }
      if (tr?.output_provenance === "trusted" && !heldBefore.has(tr.output_datatype) && this.truth!.gt.has(tr.output_datatype)) {
        events.push({ type: "planbench:progress", datatype: tr.output_datatype });
      }
      if (e.internal_error_type === "untrusted_input_rejected") {
        events.push({ type: "planbench:untrusted_rejected", tool: name, datatypes: e.untrusted_input_datatypes ?? [] });
      }
    }
    if (e.action === "final_answer") {
      const correct = e.answer_correct === true && e.datatype_check_passed === true;
      events.push({ type: "planbench:final_answer", content: e.answer ?? "", correct });
      if (e.incorrect_final_answer_feedback_sent)
        events.push({ type: "planbench:feedback_sent", count: e.incorrect_final_answer_feedback_count ?? 0 });
    }
    const response = replyOf(out);
    if (!out.done) return { response };
    const r = ep.result!;
    // The step limit is a truncation in Gymnasium terms: let the base class report it as `max_steps`.
    if (r.failure_reason_detail === "exceeded_max_steps") return { response };
    return { response, terminal: r.failure_reason_detail ?? "success", success: r.status === "success" };
  }

  protected override stepReport(step: StepContext): StepReport {
    const rawTerms = this.rawTerms(step.events);
    return step.hidden ? { rawTerms, hidden: this.hiddenStep(step.events, step.ended) } : { rawTerms };
  }

  private rawTerms(events: readonly EpisodeEvent[]): Record<string, number> {
    const raw: Record<string, number> = {};
    for (const e of events) {
      if (e.type === "planbench:untrusted_output") raw["untrusted_output"] = (raw["untrusted_output"] ?? 0) + 1;
      if (e.type === "planbench:progress") raw["progress"] = (raw["progress"] ?? 0) + 1;
      if (e.type === "planbench:label_error") raw["label_error"] = (raw["label_error"] ?? 0) + 1;
    }
    return raw;
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

  /** The official result, or for an episode cut short by `abort` (no official result) the trace as a failed run. */
  private finalResult(): EpisodeResult {
    const s = this.session!;
    const ep = s.episode;
    return (
      ep.result ?? {
        query_id: s.query.query_id,
        stop_reason: "normal" as const,
        status: "failed" as const,
        final_answer: null,
        steps: ep.stepCount,
        trace: ep.trace,
        final_state: {
          current_datatypes: [],
          discovered_tool_names: [],
          retrieval_attempt_count: 0,
          retrieval_exec_count: 0,
          tool_call_attempt_count: 0,
          tool_call_exec_count: 0,
          incorrect_final_answer_feedback_count: 0,
          has_final_answer: false,
        },
      }
    );
  }

  protected override episodeMetrics(_success: boolean, reason: TerminationReason): JsonObject {
    const s = this.session!;
    const result = this.finalResult();
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

  /**
   * Per-step ground truth (issue 8): held datatypes, the blocked tools with their blocker types, the remaining
   * shortest path, blockers a retrieval showed, what a call was (kind, blocker type, progress or not); at the end
   * also the paper's analyses (failure category, blocker follow-up, termination style).
   */
  private hiddenStep(events: readonly EpisodeEvent[], ended: boolean): JsonObject | null {
    const s = this.session;
    if (!s) return null;
    const h = s.hidden();
    const phi = this.potential();
    const out: JsonObject = {
      heldDatatypes: h.heldDatatypes,
      lastMatched: asJson(h.lastMatched),
      blocked: blockedAnnotation(s.episode.plan),
      remainingCalls: phi === null ? null : -phi + 0,
    };
    const last = s.last;
    if (last && last.listed && events.some((e) => e.type === "planbench:retrieve")) out["shownBlockers"] = shownBlockers(last.listed);
    if (last && last.entry.action === "call_tool" && events.some((e) => e.type === "tool_called")) {
      out["call"] = callAnnotation(
        last.entry,
        this.release.toolByName,
        events.some((e) => e.type === "planbench:progress"),
      );
    }
    if (ended) {
      const result = this.finalResult();
      const a = analyseEpisode(result, s.query, this.truth!.gt, { toolByName: this.release.toolByName });
      const calls = result.trace.filter((e) => e.action === "call_tool").length;
      out["analysis"] = analysisAnnotation(a, calls, result.status === "success");
    }
    return out;
  }
}
