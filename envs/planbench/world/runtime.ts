/**
 * One PlanBench-XL episode, step by step, with the official runtime's semantics: label-error rules, step and error
 * caps, callable-set accumulation and the trusted / untrusted value stores. Each reply kind has its own module
 * (retrieveTools.ts, callTool.ts, finalAnswer.ts); the trace shapes they write, which the scorer consumes exactly as
 * the official evaluator does, are in trace.ts.
 */
import { pystr } from "../compat/pyvalue.js";
import type { PlanBenchRelease, QueryRecord, TaskRecord, ToolRecord } from "../releaseFormat.js";
import type { BlockerPlan } from "../faults.js";
import type { PlanBenchSettings } from "../settings.js";
import type { SiblingIndex } from "./augment.js";
import { type CallRunner, checkCall, executeCall, type OpenCall, openCall, refuseCall } from "./callTool.js";
import type { CaseIndex, ExecutionResult } from "./executor.js";
import { finalAnswer } from "./finalAnswer.js";
import * as msg from "./messages.js";
import { extractAction, isCallPayload, parseCallPayload, parseRetrievePayload, pyStrip, type JsonObj } from "./parsing.js";
import { retrieveTools } from "./retrieveTools.js";
import type { HashingRetriever } from "./retriever.js";
import { type EpisodeResult, type FailureReason, sortedStrings, type TraceEntry } from "./trace.js";

/** Everything shared by the episodes of one world (release + indexes + settings). */
export interface PlanBenchWorld {
  release: PlanBenchRelease;
  retriever: HashingRetriever;
  siblings: SiblingIndex;
  cases: CaseIndex;
  settings: PlanBenchSettings;
  planFor(taskId: string): BlockerPlan;
}

/** One reply of the agent: raw tagged text, or an already-structured action. */
export type PlanBenchReply =
  | { kind: "text"; text: string }
  | { kind: "retrieve"; request: JsonObj }
  | { kind: "call"; payload: JsonObj }
  | { kind: "answer"; content: string };

export interface StepOutcome {
  entry: TraceEntry;
  /** Text sent back to the agent (already without the "Environment feedback:" prefix); null when the episode ended. */
  feedback: string | null;
  done: boolean;
  /** Tools listed by this retrieval, in shown order. */
  listed?: ToolRecord[];
  /** Output of an executed call. */
  execution?: ExecutionResult;
}

/** How the runtime treats the one input on which the official code crashes (see callTool.ts). */
export type CompatMode = "fixed" | "official";

/** One query's episode: its counters, value stores and trace; the reply modules update them. */
export class PlanBenchEpisode {
  stepCount = 0;
  labelErrors = 0;
  retrievalErrors = 0;
  callErrors = 0;
  retrievalAttempts = 0;
  retrievalExecs = 0;
  callAttempts = 0;
  callExecs = 0;
  feedbackCount = 0;
  readonly currentDatatypes: Set<string>;
  readonly trusted = new Map<string, Set<string>>();
  readonly untrusted = new Map<string, Set<string>>();
  readonly untrustedSources = new Map<string, Map<string, Set<string>>>();
  available: string[] = [];
  readonly discovered = new Set<string>();
  /** Per-query tool ids (T1, T2, … in first-shown order), used with `capabilities.tool_id_calling`. */
  readonly toolNameToId = new Map<string, string>();
  readonly toolIdToName = new Map<string, string>();
  readonly trace: TraceEntry[] = [];
  result: EpisodeResult | null = null;
  readonly plan: BlockerPlan;
  readonly task: TaskRecord;

  constructor(
    readonly world: PlanBenchWorld,
    readonly query: QueryRecord,
    readonly compat: CompatMode = "fixed",
  ) {
    this.task = world.release.taskById.get(query.task_id)!;
    this.plan = world.planFor(query.task_id);
    this.currentDatatypes = new Set(query.input_datatypes);
    for (const [dt, v] of Object.entries(query.input_values ?? {})) this.addTo(this.trusted, dt, pystr(v));
  }

  get done(): boolean {
    return this.result !== null;
  }

  /** Adds a value to a trusted or untrusted store (datatype → rendered values). */
  addTo(store: Map<string, Set<string>>, dt: string, v: string): void {
    let s = store.get(dt);
    if (!s) store.set(dt, (s = new Set()));
    s.add(v);
  }

  /** Ends the episode with its official result record. */
  finish(finalAnswer: string | null, reason: FailureReason | null): EpisodeResult {
    const r: EpisodeResult = {
      query_id: this.query.query_id,
      stop_reason: reason === "unevaluated_runtime_error" ? "runtime_error" : "normal",
      status: reason === null ? "success" : "failed",
      final_answer: finalAnswer,
      steps: this.stepCount,
      trace: this.trace,
      final_state: {
        current_datatypes: sortedStrings(this.currentDatatypes),
        discovered_tool_names: sortedStrings(this.discovered),
        retrieval_attempt_count: this.retrievalAttempts,
        retrieval_exec_count: this.retrievalExecs,
        tool_call_attempt_count: this.callAttempts,
        tool_call_exec_count: this.callExecs,
        incorrect_final_answer_feedback_count: this.feedbackCount,
        has_final_answer: finalAnswer !== null,
      },
    };
    if (reason !== null) r.failure_reason_detail = reason;
    this.result = r;
    return r;
  }

  /**
   * Apply one reply. Throws only if the episode is already over (a caller bug, not agent input). `runCall` runs a
   * call reply's phases (default: `runCall` of this runtime, in a row).
   */
  step(reply: PlanBenchReply, runCall: CallRunner = (c) => this.runCall(c)): StepOutcome {
    if (this.result) throw new Error("PlanBenchEpisode.step: the episode is over; reset first");
    const rt = this.world.settings.runtime;
    this.stepCount++;
    const stepId = this.stepCount;
    let out: StepOutcome;
    if (reply.kind === "text") {
      const act = extractAction(reply.text);
      if (!act) {
        this.labelErrors++;
        const entry: TraceEntry = { step_id: stepId, action: "others", raw_output: reply.text };
        this.trace.push(entry);
        const feedback = msg.labelError(this.labelErrors, rt.max_label_errors);
        if (this.labelErrors >= rt.max_label_errors) {
          this.finish(null, "exceeded_max_label_errors");
          return { entry, feedback, done: true };
        }
        return this.budgetCheck({ entry, feedback, done: false });
      }
      this.labelErrors = 0;
      if (act.tag === "retrieve_tools") out = retrieveTools(this, stepId, reply.text, parseRetrievePayload(act.content));
      else if (act.tag === "tool_call") out = runCall(openCall(this, stepId, reply.text, parseCallPayload(act.content)));
      else out = finalAnswer(this, stepId, act.content);
    } else {
      this.labelErrors = 0;
      const raw = JSON.stringify(reply);
      if (reply.kind === "retrieve") {
        const mt = reply.request["meta_tool"];
        out = retrieveTools(this, stepId, raw, typeof mt === "string" && pyStrip(mt) ? reply.request : null);
      } else if (reply.kind === "call") out = runCall(openCall(this, stepId, raw, isCallPayload(reply.payload) ? reply.payload : null));
      else out = finalAnswer(this, stepId, pyStrip(reply.content));
    }
    return out.done ? out : this.budgetCheck(out);
  }

  private budgetCheck(o: StepOutcome): StepOutcome {
    if (!this.result && this.stepCount >= this.world.settings.runtime.max_steps) {
      this.finish(null, "exceeded_max_steps");
      return { ...o, done: true };
    }
    return o;
  }

  /** The list of the last retrieval before the final shuffle (for checks against the reference). */
  lastPreShuffle: ToolRecord[] = [];

  /** Counts toward the retrieval error cap (the caller has pushed the entry). */
  retrievalCap(entry: TraceEntry, feedback: string): StepOutcome {
    if (this.retrievalErrors >= this.world.settings.runtime.max_retrieval_errors) {
      this.finish(null, "exceeded_max_retrieval_errors");
      return { entry, feedback, done: true };
    }
    return { entry, feedback, done: false };
  }

  /** Pushes a failed call's entry and applies the call error cap. */
  callCap(entry: TraceEntry, feedback: string): StepOutcome {
    this.trace.push(entry);
    if (this.callErrors >= this.world.settings.runtime.max_call_errors) {
      this.finish(null, "exceeded_max_tool_call_errors");
      return { entry, feedback, done: true };
    }
    return { entry, feedback, done: false };
  }

  /** The official rules in their order: retrieved tool, argument keys, inputs, then the lookup. */
  runCall(c: OpenCall): StepOutcome {
    return this.checkCall(c) ?? this.executeCall(c);
  }

  /** A call that names no listed tool: the invalid-JSON or not-retrieved error. */
  refuseCall(c: OpenCall): StepOutcome {
    return refuseCall(this, c);
  }

  /** The argument rules of a retrieved tool: exact parameter keys, no untrusted or missing input (null: all hold). */
  checkCall(c: OpenCall): StepOutcome | null {
    return checkCall(this, c);
  }

  /** Runs a call that passed `checkCall`: the lookup (or a decoy's constant), the value stores and the trace. */
  executeCall(c: OpenCall): StepOutcome {
    return executeCall(this, c);
  }
}
