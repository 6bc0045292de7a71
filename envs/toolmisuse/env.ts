/**
 * ToolMisuseBench-v0: the official harness on the shared ToolEnv. Every call goes through the engine's pipeline
 * configured as the official harness (world/episode.ts: budgets first, faults before validation, the official
 * validator, every error charged to the retry budget, the transcript entry as the response); the session adds
 * the family's events, annotations and metric bookkeeping, and judges the final state however the episode ended.
 */
import { z } from "zod";
import {
  type EnvSpec,
  ActionError,
  OptionsError,
  ResetNeededError,
  StateError,
  readOptionFile,
  resolveOptionPath,
  asJson,
  asJsonObject,
  type JsonObject,
  type JsonValue,
  type Rng,
  type EpisodeEvent,
  type CallRecord,
  type CallReport,
  type CheckedToolEnvState,
  type EpisodeSetup,
  type StepContext,
  type StepReport,
  ToolEnv,
  toolEnvOptionsSchema,
} from "../../src/family.js";
import { loadTaskRecords, SPLITS, type Split, type TaskRecord } from "./dataset.js";
import { faultStreams } from "./streams.js";
import { FAMILY_EVENT_TYPES } from "./events.js";
import { FAMILY_TERMS, familyRawTerms, ToolMisuseSession } from "./session.js";
import { parseGoldSummary } from "./goldAgents.js";
import { DEFAULT_SEED, generateTask, SPLIT_SIZES, SUITE_PROFILES } from "./tasks.js";
import { generatePaperTask } from "./paper.js";
import { checkToolMisuseState, TOOLMISUSE_FAMILY_STATE_SCHEMA, TOOLMISUSE_WORLD_SCHEMA } from "./stateSchema.js";
import { officialObservation, type OfficialHarness } from "./world/episode.js";
import { goldParameters } from "./parameters.js";
import type { JsonObj, OfficialAction, OfficialObservation } from "./world/types.js";
import { isObj } from "./world/types.js";

export const toolMisuseOptionsSchema = toolEnvOptionsSchema
  .extend({
    /** Path to official data (folder per split, or flat files filtered by `split`); default: our generated suite. */
    dataset: z.string().min(1).optional(),
    split: z.enum(SPLITS).default("test_public"),
    /** A fixed task; without it the reset seed picks task `seed mod N`. */
    taskIndex: z.number().int().min(0).optional(),
    /** "official" reproduces the score-relevant quirks of the upstream harness; "fixed" corrects them. */
    compat: z.enum(["fixed", "official"]).default("fixed"),
    /** Show injection metadata (`faults`, `original_error_code`) to the agent, as upstream leaks it. */
    exposeFaultMetadata: z.boolean().default(false),
    /** Seed of the built-in generated suite. */
    generatorSeed: z.number().int().default(DEFAULT_SEED),
    /** "none": the same task with an empty fault plan (the same-seed, no-fault counterfactual); default: its plan. */
    faults: z.enum(["plan", "none"]).optional(),
    /**
     * Built-in suite: "solvable" (default, gold-validated) or "paper" (the v0.1 reconstruction that reproduces the
     * paper's baseline table; half its tasks are unsolvable by design). Ignored with `dataset`.
     */
    profile: z.enum(SUITE_PROFILES).optional(),
  })
  .strict();
export type ToolMisuseOptions = z.infer<typeof toolMisuseOptionsSchema>;

/** The world handed to the engine: the episode's live domain state. */
export type ToolMisuseWorld = JsonObj;

const datasetCache = new Map<string, TaskRecord[]>();

/** Official records of a dataset split, loaded once per process. */
function datasetTasks(dataset: string, split: Split): TaskRecord[] {
  // Before the cache: a path the policy refuses must be refused even if another caller loaded it earlier.
  const file = resolveOptionPath("dataset", dataset);
  const key = `${file}\u0000${split}`;
  let hit = datasetCache.get(key);
  if (!hit) {
    try {
      hit = loadTaskRecords(file, split, (f) => readOptionFile("dataset", f));
    } catch (e) {
      // An OptionsError (a file the server must read first, or one it refuses) already names the option.
      if (e instanceof OptionsError) throw e;
      throw new OptionsError("dataset", (e as Error).message);
    }
    if (hit.length === 0) throw new OptionsError("split", `dataset '${dataset}' has no tasks for split '${split}'`);
    datasetCache.set(key, hit);
  }
  return hit;
}

/** Accepts the official `{tool_name, args}` action as well as the core action union. */
export function normalizeAction(a: unknown): unknown {
  if (!isObj(a as JsonObj) || !("tool_name" in (a as object)) || "type" in (a as object)) return a;
  const o = a as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => k !== "tool_name" && k !== "args");
  if (extra.length) throw new ActionError(`action.${extra[0]}`, `official action has unknown key '${extra[0]}' (allowed: tool_name, args)`);
  if (typeof o.tool_name !== "string") throw new ActionError("action.tool_name", "tool_name must be a string");
  if (o.args !== undefined && !isObj(o.args as JsonObj)) throw new ActionError("action.args", "args must be an object");
  return { type: "tool_call", name: o.tool_name, arguments: o.args ?? {} };
}

export class ToolMisuseEnv extends ToolEnv<ToolMisuseWorld, ToolMisuseOptions> {
  private session: ToolMisuseSession | null = null;
  private harness: OfficialHarness | null = null;
  private task: TaskRecord | null = null;
  /** Criteria per required gold step (generated suite); null for official records. */
  private phiSteps: number[][] | null = null;

  constructor(options: ToolMisuseOptions, spec: EnvSpec) {
    super(
      {
        family: "toolmisuse",
        maxEpisodeSteps: 50,
        familyTerms: FAMILY_TERMS,
        familyEventTypes: FAMILY_EVENT_TYPES,
        familyInfoKeys: {},
        normalizeAction,
        worldSchema: TOOLMISUSE_WORLD_SCHEMA,
        familyStateSchema: TOOLMISUSE_FAMILY_STATE_SCHEMA,
      },
      options,
      spec,
    );
    if (options.taskIndex !== undefined && options.taskIndex >= this.taskCount()) {
      throw new OptionsError(
        "taskIndex",
        `taskIndex ${options.taskIndex} is out of range: split '${options.split}' has ${this.taskCount()} tasks`,
      );
    }
    if (options.dataset) datasetTasks(options.dataset, options.split); // fail fast on a bad dataset
  }

  /** Number of tasks in the configured split. */
  taskCount(): number {
    return this.options.dataset ? datasetTasks(this.options.dataset, this.options.split).length : SPLIT_SIZES[this.options.split];
  }

  /** The task record of the current episode. */
  currentTask(): TaskRecord | null {
    return this.task;
  }

  /** The official observation (instruction, tool_schemas, transcript, remaining_budget, last_error). */
  officialObservation(): OfficialObservation {
    if (!this.session || !this.episode || !this.task || !this.harness) {
      throw new ResetNeededError("officialObservation() called before reset()");
    }
    const { calls, retries } = this.episode.data;
    return officialObservation(this.task, this.harness.toolset, calls, retries, this.options.exposeFaultMetadata);
  }

  private pickTask(
    rng: Rng,
    options: JsonObject,
  ): { task: TaskRecord; index: number; gold: OfficialAction[] | null; label: JsonObject; phiSteps: number[][] | null } {
    let index: number | undefined = this.options.taskIndex;
    if (options.taskIndex !== undefined) {
      const t = options.taskIndex;
      if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t >= this.taskCount()) {
        throw new OptionsError(
          "options.taskIndex",
          `reset option taskIndex must be an integer in [0, ${this.taskCount() - 1}], got ${JSON.stringify(t)}`,
        );
      }
      index = t;
    }
    const n = this.taskCount();
    if (index === undefined) {
      index = /^-?\d+$/.test(rng.path) ? ((Number(rng.path) % n) + n) % n : rng.derive("task").int(n);
    }
    if (this.options.dataset) {
      const task = datasetTasks(this.options.dataset, this.options.split)[index]!;
      return { task, index, gold: parseGoldSummary(task.gold_summary), label: {}, phiSteps: null };
    }
    const paper = this.options.profile === "paper";
    const { split, generatorSeed } = this.options;
    const g = paper ? generatePaperTask(split, index, generatorSeed) : generateTask(split, index, generatorSeed);
    const label: JsonObject = { template: g.template, faultClass: g.faultClass, persistent: g.persistent, blind: g.blind };
    label.budgetProfile = g.profile;
    if (paper) label.solvable = g.solvable ?? true;
    return { task: g.record, index, gold: g.gold, label, phiSteps: g.phiSteps };
  }

  protected createEpisode(rng: Rng, options: JsonObject): EpisodeSetup<ToolMisuseWorld> {
    const picked = this.pickTask(rng, options);
    const { index, gold, label, phiSteps } = picked;
    // A copy: task records are cached per process and shared between envs.
    const task = this.options.faults === "none" ? { ...picked.task, fault_plan: [] } : picked.task;
    this.phiSteps = phiSteps;
    const compat = this.options.compat;
    // Default mode: fault streams are core Rng streams; official mode: CPython's stream, same seed.
    const makeRng = faultStreams(compat);
    let session: ToolMisuseSession;
    let harness: OfficialHarness;
    try {
      session = new ToolMisuseSession(task, compat, makeRng, this.options.exposeFaultMetadata, phiSteps);
      harness = session.harness();
    } catch (e) {
      throw new OptionsError("domain", (e as Error).message);
    }
    this.session = session;
    this.harness = harness;
    this.task = task;
    const { tools, names, budgets, pipeline } = harness;
    return {
      taskId: task.task_id,
      prompt: task.instruction,
      tools,
      visible: names,
      world: structuredClone(task.initial_state),
      budgets,
      pipeline,
      parameters: goldParameters(task.instruction, gold, names),
      // A deep copy: the task objects are cached per process and must not be mutable through info.
      hidden: structuredClone({
        taskIndex: index,
        split: task.split,
        domain: task.domain,
        difficulty: task.difficulty,
        faultPlan: asJson(task.fault_plan),
        successCriteria: asJson(task.success_criteria),
        budget: asJsonObject(task.budget),
        gold: gold === null ? null : asJson(gold),
        ...label,
      }),
    };
  }

  /**
   * Φ = −(required gold calls still to make): a required step of the validated gold plan counts
   * until every criterion it is responsible for holds (alternatives and optional steps are free).
   * Official records carry no step attribution, so there each unmet criterion counts as one call.
   * Φ depends only on the world state and transcript, so F = γΦ(s′) − Φ(s) leaves optimal
   * policies unchanged (Ng, Harada & Russell, 1999).
   */
  protected override potential(): number | null {
    if (!this.session || !this.task || !this.episode) return null;
    const met = this.session.criteriaMet(this.episode.data.world, this.episode.data.calls);
    // `0 - n`, not `-n`: Φ = +0 when done (no -0 in info.phi).
    if (this.phiSteps) return 0 - this.phiSteps.filter((crit) => crit.some((i) => !met[i])).length;
    return 0 - met.filter((m) => !m).length;
  }

  /** The session (fault streams, metric bookkeeping, annotations); world and calls are the engine's episode data. */
  protected override familyState(): JsonValue {
    if (!this.session) return null;
    return asJson({ session: this.session.snapshot() });
  }

  protected override checkFamilyState(state: CheckedToolEnvState): void {
    checkToolMisuseState(state, this.session!.snapshot(), this.task!.fault_plan);
  }

  protected override restoreFamilyState(state: JsonValue): void {
    // Already checked against the schema by setState; parsing again narrows it without a cast.
    const s = TOOLMISUSE_FAMILY_STATE_SCHEMA.parse(state);
    if (!s || !this.session) throw new StateError("state.family", "ToolMisuseBench state has no session snapshot");
    try {
      const { world, calls } = this.episode!.data;
      this.session.restore(s.session, world, calls);
    } catch (e) {
      throw new StateError("state.family.session", (e as Error).message);
    }
  }

  /** The family's events of a recorded call (drift, policy violation, argument repair, recovery). */
  protected override onCall(record: CallRecord, events: readonly EpisodeEvent[]): CallReport {
    const { world, calls } = this.episode!.data;
    return { events: (this.session as ToolMisuseSession).onCall(record, events, world, calls) };
  }

  /** Success is judged once, from the final state and transcript, however the episode ended (as upstream). */
  protected override judge(): boolean {
    const { world, calls } = this.episode!.data;
    return (this.session as ToolMisuseSession).judge(world, calls).success;
  }

  protected override stepReport(step: StepContext): StepReport {
    const rawTerms = familyRawTerms(step.events);
    if (!step.hidden) return { rawTerms };
    const session = this.session as ToolMisuseSession;
    const call = step.events.some((e) => e.type === "tool_called") ? session.lastAnnotation() : null;
    const hidden = call === null ? null : { call: asJson(call) };
    if (!step.ended) return { rawTerms, hidden };
    const { world, calls } = this.episode!.data;
    const report = session.judge(world, calls);
    return { rawTerms, hidden: { ...(hidden ?? {}), checks: asJson(report.checks), analysis: asJson(session.analysis(report.success)) } };
  }

  protected override episodeMetrics(success: boolean): JsonObject {
    const m = (this.session as ToolMisuseSession).metrics(this.episode!.data.calls, success);
    return asJsonObject({ ...m, fault_types: m.fault_types.join(",") });
  }
}
