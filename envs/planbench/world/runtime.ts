/**
 * One PlanBench-XL episode, step by step, with the official runtime's semantics: label-error
 * rules, retrieval → blocker replacement → noisy augmentation → seeded shuffle, callable-set
 * accumulation, trusted / untrusted value stores, error caps, final-answer judging and the
 * enforced-exploration feedback. It also writes the official trace shapes, which the scorer
 * consumes exactly as the official evaluator does.
 *
 * Ambiguous lookups (an argument equal to "None" matching several chain-less cases): the official executor raises,
 * the query's thread dies and the evaluator never counts the query. Under `compat: "fixed"` (default) this is an
 * in-episode call error (`internal_error_type: "ambiguous_lookup"`, counted as an invalid call); under
 * `compat: "official"` the episode ends there, unevaluated (`stop_reason: "runtime_error"`), and the scorer leaves
 * it out of every aggregate as the evaluator does.
 */
import { normAns, pystr, type PyValue } from "../compat/pyvalue.js";
import type { PlanBenchRelease, QueryRecord, TaskRecord, ToolRecord } from "../dataset.js";
import type { BlockerPlan } from "../faults.js";
import type { PlanBenchSettings } from "../settings.js";
import { augmentNoisy, replaceBlocked, shuffleTools, type SiblingIndex } from "./augment.js";
import type { CaseIndex, ExecutionResult } from "./executor.js";
import * as msg from "./messages.js";
import {
  extractAction,
  isCallPayload,
  parseCallPayload,
  parseRetrievePayload,
  pyStrip,
  validateRetrieveRequest,
  type JsonObj,
} from "./parsing.js";
import type { HashingRetriever, RetrievalRequest } from "./retriever.js";

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

export interface TraceTool {
  /** Only with `capabilities.tool_id_calling` (first key, as in the official trace). */
  tool_id?: string;
  name: string;
  description: string;
  input_datatypes: string[];
  output_datatype: string;
  tool_type: ToolRecord["tool_type"];
}

/** Official trace entry (one per reply). */
export interface TraceEntry {
  step_id: number;
  action: "others" | "retrieve_tools" | "call_tool" | "final_answer";
  parse_ok?: boolean;
  raw_output?: string;
  request?: unknown;
  matched_information?: { output_information?: string | null; input_information?: string[] };
  model_retriever_note?: string | null;
  retrieval_result?: { tool_count: number; tools: TraceTool[] };
  internal_error_type?: "untrusted_input_rejected" | "missing_required_input" | "ambiguous_lookup";
  untrusted_input_datatypes?: string[];
  missing_input_datatypes?: string[];
  tool_result?: {
    success: boolean;
    output_datatype: string;
    output_value: PyValue;
    tool_type: string;
    output_provenance: string;
    untrusted_source_type: string | null;
  };
  answer?: string;
  answer_correct?: boolean;
  target_datatype_reached?: boolean;
  matched_untrusted_source_types?: string[];
  datatype_check_passed?: boolean;
  incorrect_final_answer_feedback_sent?: boolean;
  incorrect_final_answer_feedback_count?: number;
  /** Ours, not official: the error kind of a failed retrieval / call, for events. */
  error_kind?: string;
}

export type FailureReason =
  | "unevaluated_runtime_error"
  | "exceeded_max_label_errors"
  | "exceeded_max_retrieval_errors"
  | "exceeded_max_tool_call_errors"
  | "exceeded_max_steps"
  | "target_datatype_not_reached"
  | "final_answer_wrong";

/** The official result record of a finished query. */
export interface EpisodeResult {
  query_id: string;
  /** `runtime_error`: the official runtime would have crashed here (compat "official"); the query is unevaluated. */
  stop_reason: "normal" | "runtime_error";
  status: "success" | "failed";
  final_answer: string | null;
  steps: number;
  trace: TraceEntry[];
  final_state: {
    current_datatypes: string[];
    discovered_tool_names: string[];
    retrieval_attempt_count: number;
    retrieval_exec_count: number;
    tool_call_attempt_count: number;
    tool_call_exec_count: number;
    incorrect_final_answer_feedback_count: number;
    has_final_answer: boolean;
  };
  failure_reason_detail?: FailureReason;
}

/**
 * A call reply between its phases. The standalone runtime runs them in a row (`step` without a runner); the env runs
 * them inside the engine's call pipeline (visibility, `checkCall` as the argument check, `executeCall` as the
 * simulator), so both paths share one implementation of the official rules.
 */
export interface OpenCall {
  readonly stepId: number;
  readonly raw: string;
  /** null: the content is not a call object (the official "invalid JSON" branch). */
  readonly payload: JsonObj | null;
  /** The resolved tool name: a string `name`, else `tool_name`, a known `tool_id` overriding both (null: none). */
  readonly name: string | null;
  /** The arguments as the agent wrote them (Python values for text replies). */
  readonly args: JsonObj;
  /** The request as the official trace records it. */
  readonly request: JsonObj;
}

/** Runs an open call to its outcome (see `OpenCall`). */
export type CallRunner = (call: OpenCall) => StepOutcome;

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

function sortedStrings(xs: Iterable<string>): string[] {
  return [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** How the runtime treats the one input on which the official code crashes (see the module comment). */
export type CompatMode = "fixed" | "official";

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

  private addTo(store: Map<string, Set<string>>, dt: string, v: string): void {
    let s = store.get(dt);
    if (!s) store.set(dt, (s = new Set()));
    s.add(v);
  }

  private finish(finalAnswer: string | null, reason: FailureReason | null): EpisodeResult {
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
      if (act.tag === "retrieve_tools") out = this.retrieve(stepId, reply.text, parseRetrievePayload(act.content));
      else if (act.tag === "tool_call") out = runCall(this.openCall(stepId, reply.text, parseCallPayload(act.content)));
      else out = this.answer(stepId, act.content);
    } else {
      this.labelErrors = 0;
      const raw = JSON.stringify(reply);
      if (reply.kind === "retrieve") {
        const mt = reply.request["meta_tool"];
        out = this.retrieve(stepId, raw, typeof mt === "string" && pyStrip(mt) ? reply.request : null);
      } else if (reply.kind === "call") out = runCall(this.openCall(stepId, raw, isCallPayload(reply.payload) ? reply.payload : null));
      else out = this.answer(stepId, pyStrip(reply.content));
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

  private retrieve(stepId: number, raw: string, payload: JsonObj | null): StepOutcome {
    const rt = this.world.settings.runtime;
    this.retrievalAttempts++;
    if (!payload) {
      this.retrievalErrors++;
      const entry: TraceEntry = { step_id: stepId, action: "retrieve_tools", parse_ok: false, raw_output: raw, error_kind: "invalid_json" };
      this.trace.push(entry);
      const feedback = msg.retrieveJsonError(this.retrievalErrors, rt.max_retrieval_errors);
      return this.retrievalCap(entry, feedback);
    }
    const req = validateRetrieveRequest(payload, this.world.release.domain);
    if (!req) {
      this.retrievalErrors++;
      const entry: TraceEntry = {
        step_id: stepId,
        action: "retrieve_tools",
        parse_ok: true,
        request: payload,
        error_kind: "invalid_request",
      };
      this.trace.push(entry);
      return this.retrievalCap(entry, msg.retrieveInterfaceError());
    }
    this.retrievalExecs++;
    this.retrievalErrors = 0;
    const listed = this.listTools(req);
    const ids = this.world.settings.capabilities.tool_id_calling ? this.attachToolIds(listed) : null;
    this.available = listed.map((t) => t.name);
    for (const n of this.available) this.discovered.add(n);
    const res = this.lastRetrieval!;
    const matched: TraceEntry["matched_information"] = {};
    if (req.meta_tool !== "by_inputs") matched.output_information = res.matchedOutput;
    if (req.meta_tool !== "by_output_info") matched.input_information = res.matchedInputs;
    const entry: TraceEntry = {
      step_id: stepId,
      action: "retrieve_tools",
      parse_ok: true,
      request: req,
      matched_information: matched,
      model_retriever_note: res.note,
      retrieval_result: {
        tool_count: listed.length,
        tools: listed.map((t, i) => ({
          ...(ids ? { tool_id: ids[i]! } : {}),
          name: t.name,
          description: t.description,
          input_datatypes: t.input_datatypes,
          output_datatype: t.output_datatype,
          tool_type: t.tool_type,
        })),
      },
    };
    this.trace.push(entry);
    const feedback = msg.retrieveResult(
      {
        feedback_type: "retrieve_tools_result",
        request: req,
        retriever_note: res.note,
        retrieval_result: {
          tool_count: listed.length,
          tools: listed.map((t, i) => ({
            ...(ids ? { tool_id: ids[i]! } : {}),
            type: t.type,
            name: t.name,
            description: t.description,
            strict: t.strict ?? true,
            parameters: t.parameters,
          })),
        },
      },
      ids !== null,
    );
    return { entry, feedback, done: false, listed };
  }

  /** Ids of a shown list: a tool keeps the id it got when first shown in this query; new tools get the next T<n>. */
  private attachToolIds(listed: readonly ToolRecord[]): string[] {
    return listed.map((t) => {
      let id = this.toolNameToId.get(t.name);
      if (id === undefined) {
        id = `T${this.toolNameToId.size + 1}`;
        this.toolNameToId.set(t.name, id);
        this.toolIdToName.set(id, t.name);
      }
      return id;
    });
  }

  private lastRetrieval: ReturnType<HashingRetriever["retrieve"]> | null = null;
  /** The list of the last retrieval before the final shuffle (for checks against the reference). */
  lastPreShuffle: ToolRecord[] = [];

  /** The visible list for a normalised request (pure given the request: seeded by hashes only). */
  listTools(req: RetrievalRequest): ToolRecord[] {
    const w = this.world;
    const res = w.retriever.retrieve(req);
    this.lastRetrieval = res;
    let primaries = res.tools;
    if (w.settings.blocker.enable_block) primaries = replaceBlocked(primaries, this.plan.replacements, w.siblings);
    const mixed = augmentNoisy(primaries, w.siblings, req.domain, {
      mode: w.settings.noise.mode,
      maxTotalTools: w.settings.noise.max_total_tools,
    });
    this.lastPreShuffle = mixed;
    return shuffleTools(w.settings.blocker.seed, this.query.task_id, this.query.query_id, req, mixed);
  }

  private retrievalCap(entry: TraceEntry, feedback: string): StepOutcome {
    if (this.retrievalErrors >= this.world.settings.runtime.max_retrieval_errors) {
      this.finish(null, "exceeded_max_retrieval_errors");
      return { entry, feedback, done: true };
    }
    return { entry, feedback, done: false };
  }

  private callCap(entry: TraceEntry, feedback: string): StepOutcome {
    this.trace.push(entry);
    if (this.callErrors >= this.world.settings.runtime.max_call_errors) {
      this.finish(null, "exceeded_max_tool_call_errors");
      return { entry, feedback, done: true };
    }
    return { entry, feedback, done: false };
  }

  /** Opens a call reply: counts the attempt and resolves the tool name (no rule is applied yet). */
  private openCall(stepId: number, raw: string, payload: JsonObj | null): OpenCall {
    this.callAttempts++;
    if (!payload) return { stepId, raw, payload: null, name: null, args: {}, request: {} };
    // Official resolution: a string `name`, else whatever `tool_name` holds; a known `tool_id` overrides both.
    let resolved: PyValue = typeof payload["name"] === "string" ? payload["name"] : (payload["tool_name"] ?? null);
    const toolId = payload["tool_id"];
    if (typeof toolId === "string") resolved = this.toolIdToName.get(toolId) ?? resolved;
    const name = typeof resolved === "string" ? resolved : null;
    const request: JsonObj = { ...payload };
    delete request["tool_name"];
    if (resolved !== null) {
      request["name"] = resolved;
      const id = name !== null ? this.toolNameToId.get(name) : undefined;
      if (id !== undefined) request["tool_id"] = id;
    }
    return { stepId, raw, payload, name, args: payload["arguments"] as JsonObj, request };
  }

  /** The official rules in their order: retrieved tool, argument keys, inputs, then the lookup. */
  runCall(c: OpenCall): StepOutcome {
    return this.checkCall(c) ?? this.executeCall(c);
  }

  /** The tool an open call names, when it was listed in this query (null: the call is refused by `refuseCall`). */
  retrievedTool(c: OpenCall): ToolRecord | null {
    if (c.payload === null || c.name === null || !this.discovered.has(c.name)) return null;
    return this.world.release.toolByName.get(c.name) ?? null;
  }

  /** A call that names no listed tool: the invalid-JSON or not-retrieved error. */
  refuseCall(c: OpenCall): StepOutcome {
    this.callErrors++;
    if (c.payload === null) {
      const entry: TraceEntry = { step_id: c.stepId, action: "call_tool", parse_ok: false, raw_output: c.raw, error_kind: "invalid_json" };
      return this.callCap(entry, msg.callJsonError(this.callErrors, this.world.settings.runtime.max_call_errors));
    }
    return this.callCap(
      { step_id: c.stepId, action: "call_tool", parse_ok: true, request: c.request, error_kind: "not_retrieved" },
      msg.toolNotRetrieved(),
    );
  }

  /** The argument rules of a retrieved tool: exact parameter keys, no untrusted or missing input (null: all hold). */
  checkCall(c: OpenCall): StepOutcome | null {
    const tool = this.retrievedTool(c);
    if (tool === null) return this.refuseCall(c);
    const surface = tool.surface_argument_to_datatype;
    const expected = Object.keys(surface).length > 0 ? Object.keys(surface) : Object.keys(tool.parameters.properties);
    const provided = Object.keys(c.args);
    const want = new Set(expected);
    if (provided.length !== want.size || provided.some((k) => !want.has(k))) {
      this.callErrors++;
      return this.callCap(
        { step_id: c.stepId, action: "call_tool", parse_ok: true, request: c.request, error_kind: "wrong_arguments" },
        msg.wrongInputs(tool.name, provided),
      );
    }
    const canonical = this.canonicalArgs(tool, c.args);
    const untrustedInputs = tool.input_datatypes.filter((d) => {
      const v = pystr(canonical[d] ?? null);
      return (this.untrusted.get(d)?.has(v) ?? false) && !(this.trusted.get(d)?.has(v) ?? false);
    });
    const missing = tool.input_datatypes.filter((d) => !this.currentDatatypes.has(d));
    if (untrustedInputs.length === 0 && missing.length === 0) return null;
    this.callErrors++;
    const type = untrustedInputs.length > 0 ? "untrusted_input_rejected" : "missing_required_input";
    return this.callCap(
      {
        step_id: c.stepId,
        action: "call_tool",
        parse_ok: true,
        request: c.request,
        internal_error_type: type,
        untrusted_input_datatypes: untrustedInputs,
        missing_input_datatypes: missing,
        error_kind: type,
      },
      msg.missingInputs(),
    );
  }

  private canonicalArgs(tool: ToolRecord, args: JsonObj): Record<string, PyValue> {
    const canonical: Record<string, PyValue> = {};
    for (const [k, v] of Object.entries(args)) canonical[tool.surface_argument_to_datatype[k] ?? k] = v;
    return canonical;
  }

  /** Runs a call that passed `checkCall`: the lookup (or a decoy's constant), the value stores and the trace. */
  executeCall(c: OpenCall): StepOutcome {
    const tool = this.retrievedTool(c);
    if (tool === null) return this.refuseCall(c);
    const name = tool.name;
    const ex = this.world.cases.execute(tool, this.canonicalArgs(tool, c.args));
    const request = c.request;
    if (ex.ambiguous) {
      const entry: TraceEntry = {
        step_id: c.stepId,
        action: "call_tool",
        parse_ok: true,
        request,
        internal_error_type: "ambiguous_lookup",
        error_kind: "ambiguous_lookup",
      };
      if (this.compat === "official") {
        this.trace.push(entry);
        this.finish(null, "unevaluated_runtime_error");
        return { entry, feedback: null, done: true };
      }
      this.callErrors++;
      return this.callCap(entry, msg.ambiguousLookup(name));
    }
    this.callExecs++;
    this.callErrors = 0;
    this.record(ex);
    const entry: TraceEntry = {
      step_id: c.stepId,
      action: "call_tool",
      parse_ok: true,
      request,
      tool_result: {
        success: ex.success,
        output_datatype: ex.outputDatatype,
        output_value: ex.outputValue,
        tool_type: ex.toolType,
        output_provenance: ex.provenance,
        untrusted_source_type: ex.untrustedSource,
      },
    };
    this.trace.push(entry);
    let feedback: string;
    if (ex.toolType === "baseline" && ex.outputValue === null) {
      const text = msg.noResultText(c.args);
      feedback = msg.noResult(c.args, {
        feedback_type: "tool_call_error",
        request,
        error: text,
        tool_result: { success: false, output_value: null },
      });
    } else {
      feedback = msg.callResult({
        feedback_type: "tool_call_result",
        request,
        tool_result: { success: ex.success, output_value: ex.outputValue },
      });
    }
    return { entry, feedback, done: false, execution: ex };
  }

  private record(ex: ExecutionResult): void {
    if (ex.outputValue === null) return;
    const dt = ex.outputDatatype;
    const v = pystr(ex.outputValue);
    if (ex.provenance === "trusted") {
      this.currentDatatypes.add(dt);
      this.addTo(this.trusted, dt, v);
      return;
    }
    if (ex.provenance !== "untrusted") return;
    this.addTo(this.untrusted, dt, v);
    const n = normAns(ex.outputValue);
    if (ex.untrustedSource !== null && n) {
      let m = this.untrustedSources.get(dt);
      if (!m) this.untrustedSources.set(dt, (m = new Map()));
      let s = m.get(n);
      if (!s) m.set(n, (s = new Set()));
      s.add(ex.untrustedSource);
    }
  }

  /** The official judge: normalised containment AND target reached by a trusted call AND no untrusted match. */
  judge(answer: string): { answerCorrect: boolean; reached: boolean; matchedUntrusted: string[]; datatypeCheck: boolean } {
    const gold = normAns(this.query.correct_answer);
    const given = normAns(answer);
    const answerCorrect = gold !== "" && given.includes(gold);
    const reached = this.currentDatatypes.has(this.query.target_datatype);
    const matched = new Set<string>();
    if (given) {
      for (const [v, srcs] of this.untrustedSources.get(this.query.target_datatype) ?? []) {
        if (v && given.includes(v)) for (const s of srcs) matched.add(s);
      }
    }
    const matchedUntrusted = sortedStrings(matched);
    return { answerCorrect, reached, matchedUntrusted, datatypeCheck: reached && matchedUntrusted.length === 0 };
  }

  private answer(stepId: number, content: string): StepOutcome {
    const rt = this.world.settings.runtime;
    const j = this.judge(content);
    const entry: TraceEntry = {
      step_id: stepId,
      action: "final_answer",
      parse_ok: true,
      answer: content,
      answer_correct: j.answerCorrect,
      target_datatype_reached: j.reached,
      matched_untrusted_source_types: j.matchedUntrusted,
      datatype_check_passed: j.datatypeCheck,
    };
    const ok = j.datatypeCheck && j.answerCorrect;
    if (
      rt.enable_incorrect_final_answer_feedback &&
      !ok &&
      this.feedbackCount < rt.incorrect_final_answer_feedback_budget &&
      this.stepCount < rt.max_steps
    ) {
      this.feedbackCount++;
      entry.incorrect_final_answer_feedback_sent = true;
      entry.incorrect_final_answer_feedback_count = this.feedbackCount;
      this.trace.push(entry);
      return { entry, feedback: msg.incorrectAnswerFeedback(), done: false };
    }
    this.trace.push(entry);
    this.finish(content, ok ? null : !j.datatypeCheck ? "target_datatype_not_reached" : "final_answer_wrong");
    return { entry, feedback: null, done: true };
  }
}
