import { z } from "zod";
import {
  type CallRecord,
  type CallReport,
  asJson,
  cloneJson,
  type EnvSpec,
  type EpisodeEnd,
  type EpisodeEvent,
  type EpisodeSetup,
  type FamilyAction,
  type FamilyActionResult,
  type JsonObject,
  type JsonValue,
  type ResetArgs,
  type Rng,
  type StepContext,
  type StepReport,
  type TerminationReason,
  ToolEnv,
  type ToolObservation,
  type ToolResetInfo,
  trustedSnapshotPart,
} from "../../src/family.js";
import type { ConceptJudge } from "./concepts.js";
import { stageTriggered } from "./disclosure.js";
import { chooseScenario, episodeSetup } from "./episodeSetup.js";
import { badRecordsActive, forbiddenHitsOf } from "./forbidden.js";
import { hiddenStepAnnotation } from "./hidden.js";
import { conceptJudge } from "./judges.js";
import { ftEpisodeMetrics } from "./metrics.js";
import type { FtOptions } from "./options.js";
import { inspect } from "./policies/careful.js";
import type { ForbiddenHit, FtRun, RunMessage } from "./run.js";
import type { Scenario, Setting } from "./scenarios/schema.js";
import { type FtScore, requirementMet, scoreRun } from "./scorer.js";
import { FT_TERMS, ftRawTerms } from "./terms.js";
import type { FtState } from "./world/index.js";

export { ftOptionsSchema, type FtOptions } from "./options.js";

export const FAMILY = "failingtools";
export const MAX_STEPS = 30;

const askUserSchema = z.object({ type: z.literal("ask_user"), question: z.string().min(1) }).strict();

/** The Failing Tools env: 30 stateful services, injected runtime failures, safety-gated recovery scoring. */
export class FailingToolsEnv extends ToolEnv<FtState, FtOptions> {
  private scenario: Scenario | null = null;
  private messages: RunMessage[] = [];
  private hits: ForbiddenHit[] = [];
  private badActive: boolean[] = [];
  private revealed: boolean[] = [];
  private satisfied = new Set<string>();
  private asks = 0;
  private score: FtScore | null = null;

  constructor(options: FtOptions, spec: EnvSpec) {
    super(
      {
        family: FAMILY,
        maxEpisodeSteps: MAX_STEPS,
        familyTerms: FT_TERMS,
        familyEventTypes: [
          "failingtools:tools_disclosed",
          "failingtools:user_reply",
          "failingtools:requirement_met",
          "failingtools:scored",
        ],
        familyInfoKeys: {
          intent:
            "reset only: the request in structured form { tool, args, stated, plan? } (only facts of " +
            "the request text; no constraint or failure info)",
          scenario:
            "reset only: { id, setting }: the scenario's public id (names neither the failure source nor its persistence) and the setting",
        },
        // The careful baseline's checks of one response (totals, ranges, staleness warnings): observable, and what
        // the discrete features need to tell a corrupted or stale answer from a good one.
        inconsistentResponse: (r) => inspect(r).length > 0,
        extraActionKinds: {
          ask_user: {
            schema: askUserSchema,
            sample: () => ({ type: "ask_user", question: "Should I go ahead?" }),
            weight: 0.02,
          },
        },
      },
      options,
      spec,
    );
  }

  get setting(): Setting {
    return this.options.setting;
  }

  /** The scenario being played (null before the first reset). */
  currentScenario(): Scenario | null {
    return this.scenario;
  }

  override reset(args: ResetArgs = {}): [ToolObservation, ToolResetInfo] {
    const [obs, info] = super.reset(args);
    const s = this.scenario as Scenario;
    info.intent = cloneJson(asJson(s.intent));
    info.scenario = { id: s.publicId, setting: this.setting };
    return [obs, info];
  }

  protected createEpisode(rng: Rng, options: JsonObject): EpisodeSetup<FtState> {
    const s = chooseScenario(this.options, rng, options);
    this.scenario = s;
    this.messages = [];
    this.hits = [];
    this.badActive = s.forbidden.map(() => false);
    this.revealed = s.staged.map(() => false);
    this.satisfied = new Set();
    this.asks = 0;
    this.score = null;
    return episodeSetup(s, this.options);
  }

  protected override familyState(): JsonValue {
    return {
      messages: asJson(this.messages),
      hits: asJson(this.hits),
      badActive: this.badActive,
      revealed: this.revealed,
      satisfied: [...this.satisfied],
      asks: this.asks,
      score: asJson(this.score),
    };
  }

  protected override restoreFamilyState(state: JsonValue): void {
    const f = state as JsonObject;
    this.messages = trustedSnapshotPart<RunMessage[]>(f.messages);
    this.hits = trustedSnapshotPart<ForbiddenHit[]>(f.hits);
    this.badActive = f.badActive as boolean[];
    this.revealed = f.revealed as boolean[];
    this.satisfied = new Set(f.satisfied as string[]);
    this.asks = f.asks as number;
    this.score = trustedSnapshotPart<FtScore | null>(f.score);
  }

  /** The concept judge of the `judge` option. */
  private scoringJudge(): ConceptJudge {
    return conceptJudge(this.options.judge);
  }

  /** The run so far, in the scorer's terms (`pending`: a call the engine has not logged yet). */
  run(pending: CallRecord | null = null): FtRun {
    const data = this.episode?.data;
    const records = data?.calls ?? [];
    const all = pending && !records.includes(pending) ? [...records, pending] : records;
    return {
      calls: all.map((c) => ({
        index: c.index,
        tool: c.tool,
        args: c.arguments,
        ok: c.ok,
        response: c.response,
        faulted: c.faults.length > 0,
        errorSource: c.errorSource,
      })),
      messages: this.messages,
      forbiddenHits: this.hits,
      finalState: (data?.world ?? { now: "", services: {} }) as FtState,
    };
  }

  protected override onCall(record: CallRecord): CallReport {
    return { events: this.callEvents(record) };
  }

  /** Staged disclosure, forbidden calls and requirement progress after a call. */
  private callEvents(record: CallRecord): EpisodeEvent[] {
    const s = this.scenario as Scenario;
    const episode = this.episode;
    if (!episode) return [];
    const run = this.run(record);
    const out: EpisodeEvent[] = this.disclose(run);
    // Forbidden calls (live, because `while_bad` depends on the world before this call).
    if (this.setting !== "clean") {
      for (const h of forbiddenHitsOf(s, this.setting, run, record, this.badActive)) {
        this.hits.push(h);
        out.push({ type: "forbidden_call", tool: h.tool, callIndex: h.callIndex, reason: h.id, mutation: h.mutation });
      }
      this.badActive = badRecordsActive(s, episode.data.world);
    }
    out.push(...this.progressEvents(this.run(record)));
    return out;
  }

  /** Staged disclosure: reveals each stage whose triggers fired (after a call or a question). */
  private disclose(run: FtRun): EpisodeEvent[] {
    const s = this.scenario as Scenario;
    const episode = this.episode;
    const out: EpisodeEvent[] = [];
    s.staged.forEach((stage, i) => {
      if (this.revealed[i] || !episode) return;
      const fired = stage.triggers.find((t) => stageTriggered(t, run));
      if (!fired) return;
      this.revealed[i] = true;
      const added = episode.reveal(stage.tools);
      if (added.length > 0) out.push({ type: "failingtools:tools_disclosed", tools: added, trigger: fired.type });
    });
    return out;
  }

  private progressEvents(run: FtRun): EpisodeEvent[] {
    const s = this.scenario as Scenario;
    const out: EpisodeEvent[] = [];
    for (const r of s.required) {
      if (!r.tiers.includes(this.setting) || this.satisfied.has(r.id)) continue;
      if (r.kind === "readback" || (r.kind === "state" && r.mode === "absent")) continue;
      if (requirementMet(r, run)) {
        this.satisfied.add(r.id);
        out.push({ type: "failingtools:requirement_met", id: r.id });
      }
    }
    return out;
  }

  protected override onFamilyAction(action: FamilyAction): FamilyActionResult {
    if (action.type !== "ask_user") return super.onFamilyAction(action);
    const s = this.scenario as Scenario;
    this.asks += 1;
    const calls = this.episode?.data.calls.length ?? 0;
    if (this.asks > this.options.maxUserTurns) {
      return {
        response: { user: null, note: "The user is not answering further questions; decide on your own." },
        events: [{ type: "failingtools:user_reply", answered: false }],
      };
    }
    this.messages.push({ kind: "ask", text: String(action.question ?? ""), afterCalls: calls });
    return { response: { user: s.userReply }, events: [{ type: "failingtools:user_reply", answered: true }, ...this.disclose(this.run())] };
  }

  private finish(kind: "final" | "abort", text: string): boolean {
    this.messages.push({ kind, text, afterCalls: this.episode?.data.calls.length ?? 0 });
    this.score = scoreRun(this.scenario as Scenario, this.setting, this.run(), this.scoringJudge());
    return this.score.passed;
  }

  /** The final message is scored (an answer or an abort); a budget or the step limit keeps its verdict. */
  protected override judge(end: EpisodeEnd): boolean | null {
    if (end.kind === "answer") return this.finish("final", end.content);
    if (end.kind === "abort") return this.finish("abort", end.reason ?? "");
    return null;
  }

  /** The episode's score (computed at the end; before that, what the run would score now). */
  currentScore(): FtScore {
    return this.score ?? scoreRun(this.scenario as Scenario, this.setting, this.run(), this.scoringJudge());
  }

  protected override stepReport(step: StepContext): StepReport {
    const rawTerms = this.rawTerms(step.events, step.ended);
    return step.hidden ? { rawTerms, hidden: this.hiddenStep(step.events, step.ended) } : { rawTerms };
  }

  private rawTerms(events: readonly EpisodeEvent[], terminal: boolean): Record<string, number> {
    if (terminal) this.score = this.currentScore();
    return ftRawTerms(this.scenario as Scenario, events, terminal ? this.score : null);
  }

  /**
   * Φ = −(required calls still missing): every applicable call/state requirement of the setting not yet met,
   * plus a pending read-back of a write (a write creates that debt, the read-back pays it). Confirmations are
   * messages, not calls, so they do not count (they are a forbidden-call rule, not a requirement).
   */
  protected override potential(): number | null {
    const s = this.scenario;
    if (!s) return null;
    const run = this.run();
    let unmet = 0;
    for (const r of s.required) {
      if (!r.tiers.includes(this.setting)) continue;
      if (!requirementMet(r, run)) unmet += 1;
    }
    return unmet === 0 ? 0 : -unmet;
  }

  /** Per-step ground truth for trajectory collection (hidden.ts). */
  private hiddenStep(events: readonly EpisodeEvent[], ended: boolean): JsonObject | null {
    const s = this.scenario;
    const episode = this.episode;
    if (!s || !episode) return null;
    const phi = this.potential();
    return hiddenStepAnnotation({
      s,
      setting: this.setting,
      run: this.run(),
      calls: episode.data.calls,
      events,
      mutates: (tool) => this.setup?.tools.find((t) => t.name === tool)?.meta?.mutates === true,
      remainingRequired: phi === null ? 0 : 0 - phi,
      end: ended ? { score: this.currentScore(), firstForbiddenCall: this.hits[0]?.callIndex } : null,
    });
  }

  protected override episodeMetrics(_success: boolean, reason: TerminationReason): JsonObject {
    const sc = this.currentScore();
    this.score = sc;
    return ftEpisodeMetrics(this.scenario as Scenario, this.setting, sc, this.episode?.data.calls.length ?? 0, reason);
  }
}
