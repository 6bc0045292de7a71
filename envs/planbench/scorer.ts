/**
 * Metrics of the official evaluator (`evaluate.py`, reference §8) from the official trace shapes,
 * plus the paper's analyses (progress calls, failure taxonomy, blocker follow-up, termination
 * style) from the trace and hidden ground truth.
 *
 * Why from traces: the evaluator's numbers depend on details of the trace (parse failures count
 * as searches / calls; "no result" lookups are not invalid; S/C and rates are ratios of sums), so
 * we score the very same records.
 */
import { normAns, pystr } from "./compat/pyvalue.js";
import type { PathSet, QueryRecord, ToolRecord } from "./releaseFormat.js";
import type { EpisodeResult, TraceEntry } from "./world/trace.js";

/** What the scorer needs to know about the world (tool signatures and the noisy tool names). */
export interface ScoringContext {
  toolByName: ReadonlyMap<
    string,
    Pick<ToolRecord, "input_datatypes" | "output_datatype" | "tool_type"> & Partial<Pick<ToolRecord, "noise_type" | "baseline_tool_name">>
  >;
}

export type FailureCategory = "none" | "format_error" | "no_traction" | "irrecoverable_drift" | "weak_recovery";
export type TerminationStyle = "success" | "surrender" | "wrong_tool_value" | "search_exhaustion" | "format_error";

/**
 * Per-episode metrics (numbers only, so the generic aggregator can average them). An extra `evaluated: 0` marks a
 * query the official runtime would have crashed on (compat "official"); it is absent otherwise.
 */
export interface PlanBenchEpisodeMetrics {
  [key: string]: number | null;
  success: number;
  datatypeCheckPassed: number;
  turns: number;
  searchTurns: number;
  callTurns: number;
  invalidCalls: number;
  untrustedRejections: number;
  noisyCalls: number;
  blockerCalls: number;
  exploredDatatypes: number;
  executedDatatypes: number;
  egtPrecision: number | null;
  egtRecall: number;
  progressCalls: number;
  nonProgressCalls: number;
  /** Failure taxonomy as one-hot numbers (means become shares). */
  fail_no_traction: number;
  fail_irrecoverable_drift: number;
  fail_weak_recovery: number;
  fail_format_error: number;
  blocker_unused: number;
  blocker_search_reused: number;
  blocker_value_reused: number;
  term_surrender: number;
  term_wrong_tool_value: number;
  term_search_exhaustion: number;
  term_format_error: number;
}

/** GT of the EGT metric: every input and output datatype of every catalog path's tools. */
export function groundTruthDatatypes(catalog: readonly PathSet[], ctx: ScoringContext): Set<string> {
  const gt = new Set<string>();
  for (const p of catalog) {
    for (const n of p.tool_set) {
      const t = ctx.toolByName.get(n);
      if (!t) continue;
      for (const d of t.input_datatypes) gt.add(d);
      gt.add(t.output_datatype);
    }
  }
  return gt;
}

function isTrusted(e: TraceEntry): boolean {
  const r = e.tool_result;
  if (!r) return false;
  if (r.output_provenance === undefined || r.output_provenance === null) return r.output_value !== null;
  return r.output_provenance === "trusted";
}

/** Official explored-datatype closure: retrieval-visible tools whose inputs are all held. */
export function exploredDatatypes(trace: readonly TraceEntry[], inputs: readonly string[]): Set<string> {
  const E = new Set(inputs);
  const seen: Array<{ inputs: string[]; output: string }> = [];
  const seenNames = new Set<string>();
  const close = (): void => {
    let changed = true;
    while (changed) {
      changed = false;
      for (const t of seen) {
        if (!E.has(t.output) && t.inputs.every((d) => E.has(d))) {
          E.add(t.output);
          changed = true;
        }
      }
    }
  };
  for (const e of trace) {
    if (e.action === "retrieve_tools" && e.retrieval_result) {
      for (const t of e.retrieval_result.tools) {
        if (seenNames.has(t.name)) continue;
        seenNames.add(t.name);
        seen.push({ inputs: t.input_datatypes, output: t.output_datatype });
      }
      close();
    } else if (e.action === "call_tool" && isTrusted(e)) {
      E.add(e.tool_result!.output_datatype);
      close();
    }
  }
  for (const d of inputs) E.delete(d);
  return E;
}

function judge(gold: unknown, answer: string | null): boolean {
  const g = normAns(gold);
  return g !== "" && normAns(answer).includes(g);
}

/** Score one finished episode. `hiddenBlocked` = the plan's blocked baselines (for the analyses). */
export function scoreEpisode(
  result: EpisodeResult,
  query: QueryRecord,
  catalog: readonly PathSet[],
  ctx: ScoringContext,
): PlanBenchEpisodeMetrics {
  const trace = result.trace;
  const finals = trace.filter((e) => e.action === "final_answer");
  const last = finals[finals.length - 1];
  const check = last?.datatype_check_passed === true;
  const correct = check && judge(query.correct_answer, result.final_answer);
  let search = 0;
  let calls = 0;
  let invalid = 0;
  let untrusted = 0;
  let noisy = 0;
  let blockerCalls = 0;
  const X = new Set<string>();
  for (const e of trace) {
    if (e.action === "retrieve_tools") search++;
    if (e.action !== "call_tool") continue;
    calls++;
    const name = (e.request as { name?: unknown } | undefined)?.name;
    const tool = typeof name === "string" ? ctx.toolByName.get(name) : undefined;
    if (e.parse_ok === false) invalid++;
    else if (!e.tool_result && e.internal_error_type !== "untrusted_input_rejected") invalid++;
    if (e.internal_error_type === "untrusted_input_rejected") untrusted++;
    if (tool?.tool_type === "noisy_misleading" || e.tool_result?.tool_type.startsWith("noisy")) noisy++;
    if (e.tool_result?.tool_type.startsWith("blocker")) blockerCalls++;
    if (isTrusted(e)) X.add(e.tool_result!.output_datatype);
  }
  const GT = groundTruthDatatypes(catalog, ctx);
  const inter = [...X].filter((d) => GT.has(d)).length;
  const explored = exploredDatatypes(trace, query.input_datatypes);
  const a = analyseEpisode(result, query, GT, ctx);
  // Set only for a query the official runtime would have crashed on (compat "official"): the evaluator never sees it.
  const unevaluated: Record<string, number> = result.stop_reason === "runtime_error" ? { evaluated: 0 } : {};
  return {
    ...unevaluated,
    success: correct ? 1 : 0,
    datatypeCheckPassed: check ? 1 : 0,
    turns: result.steps,
    searchTurns: search,
    callTurns: calls,
    invalidCalls: invalid,
    untrustedRejections: untrusted,
    noisyCalls: noisy,
    blockerCalls,
    exploredDatatypes: explored.size,
    executedDatatypes: X.size,
    egtPrecision: X.size === 0 ? null : inter / X.size,
    egtRecall: GT.size === 0 ? 0 : inter / GT.size,
    progressCalls: a.progress,
    nonProgressCalls: calls - a.progress,
    fail_no_traction: a.failure === "no_traction" ? 1 : 0,
    fail_irrecoverable_drift: a.failure === "irrecoverable_drift" ? 1 : 0,
    fail_weak_recovery: a.failure === "weak_recovery" ? 1 : 0,
    fail_format_error: a.failure === "format_error" ? 1 : 0,
    blocker_unused: a.blockerFollowUp.unused,
    blocker_search_reused: a.blockerFollowUp.searchReused,
    blocker_value_reused: a.blockerFollowUp.valueReused,
    term_surrender: a.termination === "surrender" ? 1 : 0,
    term_wrong_tool_value: a.termination === "wrong_tool_value" ? 1 : 0,
    term_search_exhaustion: a.termination === "search_exhaustion" ? 1 : 0,
    term_format_error: a.termination === "format_error" ? 1 : 0,
  };
}

export type BlockerFollowUp = "unused" | "search_reused" | "value_reused";

/** One invoked blocker output and what the agent did with it afterwards. */
export interface BlockerUse {
  /** `step_id` of the blocker call. */
  step: number;
  tool: string;
  /** The baseline tool it stands in for. */
  replaces: string | null;
  blockerType: string | null;
  outputDatatype: string;
  followUp: BlockerFollowUp;
}

/** The paper's per-episode analyses (see `analyseEpisode`). */
export interface EpisodeAnalysis {
  progress: number;
  failure: FailureCategory;
  termination: TerminationStyle;
  blockerFollowUp: { unused: number; searchReused: number; valueReused: number };
  blockerUses: BlockerUse[];
}

/**
 * The paper's qualitative analyses, made operational (our definitions, documented in docs):
 * - progress call: a trusted call whose output is a new ground-truth datatype;
 * - failure category of a failed episode: format_error (ended by the label cap, or by a
 *   retrieval / call cap whose last error was a parse failure); no_traction (no progress call);
 *   weak_recovery (a failure signal — an error, an untrusted rejection, a noisy or blocker call —
 *   was followed by at least one progress call, yet the target was not reached);
 *   irrecoverable_drift (progress happened, but no progress call followed the first failure signal);
 * - blocker follow-up per blocker call: value_reused (its value is later passed as an argument),
 *   search_reused (its value or datatype words later appear in a retrieval phrase), else unused;
 * - termination style of a failed episode: format_error, search_exhaustion (step budget or error
 *   caps), wrong_tool_value (the answer contains a value some tool returned), else surrender.
 */
export function analyseEpisode(result: EpisodeResult, query: QueryRecord, GT: ReadonlySet<string>, ctx?: ScoringContext): EpisodeAnalysis {
  const held = new Set(query.input_datatypes);
  let progress = 0;
  let firstSignal = -1;
  let progressAfterSignal = 0;
  const toolValues: string[] = [];
  const blockerOutputs: Array<{ at: number; value: string; datatype: string; step: number; tool: string }> = [];
  result.trace.forEach((e, i) => {
    const failed =
      (e.action === "call_tool" && !e.tool_result) || (e.action === "retrieve_tools" && !e.retrieval_result) || e.action === "others";
    const tr = e.tool_result;
    const signal = failed || (tr !== undefined && tr.output_provenance === "untrusted");
    if (tr && tr.output_value !== null) toolValues.push(normAns(tr.output_value));
    if (tr?.tool_type.startsWith("blocker")) {
      const name = (e.request as { name?: unknown } | undefined)?.name;
      blockerOutputs.push({
        at: i,
        value: pystr(tr.output_value),
        datatype: tr.output_datatype,
        step: e.step_id,
        tool: typeof name === "string" ? name : "",
      });
    }
    if (tr && tr.output_provenance === "trusted" && !held.has(tr.output_datatype)) {
      held.add(tr.output_datatype);
      if (GT.has(tr.output_datatype)) {
        progress++;
        if (firstSignal >= 0) progressAfterSignal++;
      }
    }
    if (signal && firstSignal < 0) firstSignal = i;
  });
  const reason = result.failure_reason_detail;
  let failure: FailureCategory = "none";
  let termination: TerminationStyle = "success";
  if (result.status !== "success") {
    const lastErr = [...result.trace].reverse().find((e) => e.action !== "final_answer");
    const formatEnd =
      reason === "exceeded_max_label_errors" ||
      ((reason === "exceeded_max_retrieval_errors" || reason === "exceeded_max_tool_call_errors") && lastErr?.parse_ok === false);
    if (formatEnd) failure = "format_error";
    else if (progress === 0) failure = "no_traction";
    else if (firstSignal >= 0 && progressAfterSignal > 0) failure = "weak_recovery";
    else failure = "irrecoverable_drift";
    if (formatEnd) termination = "format_error";
    else if (reason === "exceeded_max_steps" || reason === "exceeded_max_retrieval_errors" || reason === "exceeded_max_tool_call_errors")
      termination = "search_exhaustion";
    else {
      const ans = normAns(result.final_answer);
      termination = ans !== "" && toolValues.some((v) => v !== "" && ans.includes(v)) ? "wrong_tool_value" : "surrender";
    }
  }
  const follow = { unused: 0, searchReused: 0, valueReused: 0 };
  const uses: BlockerUse[] = [];
  const label: Record<keyof typeof follow, BlockerFollowUp> = {
    unused: "unused",
    searchReused: "search_reused",
    valueReused: "value_reused",
  };
  for (const b of blockerOutputs) {
    let kind: "unused" | "searchReused" | "valueReused" = "unused";
    const words = b.datatype
      .toLowerCase()
      .split("_")
      .filter((w) => w.length > 2);
    for (const e of result.trace.slice(b.at + 1)) {
      if (e.action === "call_tool" && e.request && typeof e.request === "object") {
        const args = (e.request as { arguments?: Record<string, unknown> }).arguments ?? {};
        if (Object.values(args).some((v) => pystr(v) === b.value)) {
          kind = "valueReused";
          break;
        }
      }
      if (e.action === "retrieve_tools" && e.parse_ok && e.request && typeof e.request === "object") {
        const r = e.request as { output_information?: unknown; input_information?: unknown };
        const phrases = [r.output_information, ...(Array.isArray(r.input_information) ? r.input_information : [])]
          .filter((p): p is string => typeof p === "string")
          .map((p) => p.toLowerCase());
        const hitValue = phrases.some((p) => b.value !== "" && p.includes(b.value.toLowerCase()));
        const hitWords = words.length > 0 && phrases.some((p) => words.every((w) => p.includes(w)));
        if (hitValue || hitWords) kind = "searchReused";
      }
    }
    follow[kind]++;
    const t = ctx?.toolByName.get(b.tool);
    uses.push({
      step: b.step,
      tool: b.tool,
      replaces: t?.baseline_tool_name ?? null,
      blockerType: t?.noise_type ?? null,
      outputDatatype: b.datatype,
      followUp: label[kind],
    });
  }
  return { progress, failure, termination, blockerFollowUp: follow, blockerUses: uses };
}

/** Report of a set of episodes, with the official global definitions. */
export interface PlanBenchReport {
  [key: string]: number | null;
  episodes: number;
  accuracy: number;
  avgTurns: number;
  totalTurns: number;
  meanExploredDatatypes: number;
  searchToCallRatio: number | null;
  itcr: number | null;
  uirr: number | null;
  egtPrecision: number | null;
  egtRecall: number | null;
  /** (Σ invalid + Σ untrusted rejections) / Σ call turns: the evaluator's `combined` rate. */
  combinedInvalidUntrustedRate: number | null;
  noisyCallsTotal: number;
  /** Noisy calls over Σ call turns. */
  noisyCallShare: number | null;
  queriesWithNoisyCall: number;
  /** Share of queries with at least one noisy call. */
  queriesWithNoisyCallShare: number;
  /** Mean noisy calls per query (over all queries). */
  noisyCallsPerQuery: number;
  /** Mean noisy calls per query over the queries with at least one (null when none has). */
  noisyCallsPerQueryGivenAny: number | null;
  progressCallShare: number | null;
}

/** Aggregate per-episode metrics the way `evaluate.py` does (ratios of sums; means over non-null). */
export function aggregateMetrics(allRows: ReadonlyArray<Record<string, number | null>>): PlanBenchReport {
  // The evaluator scores only queries with a result: crashed ones (evaluated = 0) leave every denominator.
  const rows = allRows.filter((r) => r["evaluated"] !== 0);
  const n = rows.length;
  const sum = (k: string): number => rows.reduce((s, r) => s + (typeof r[k] === "number" ? (r[k] as number) : 0), 0);
  const meanNonNull = (k: string): number | null => {
    const v = rows.map((r) => r[k]).filter((x): x is number => typeof x === "number");
    return v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length;
  };
  const calls = sum("callTurns");
  const noisy = sum("noisyCalls");
  const withNoisy = rows.filter((r) => (r["noisyCalls"] ?? 0) > 0).length;
  const out: PlanBenchReport = {
    episodes: n,
    accuracy: n === 0 ? 0 : sum("success") / n,
    avgTurns: n === 0 ? 0 : sum("turns") / n,
    totalTurns: sum("turns"),
    meanExploredDatatypes: n === 0 ? 0 : sum("exploredDatatypes") / n,
    searchToCallRatio: calls === 0 ? null : sum("searchTurns") / calls,
    itcr: calls === 0 ? null : sum("invalidCalls") / calls,
    uirr: calls === 0 ? null : sum("untrustedRejections") / calls,
    egtPrecision: meanNonNull("egtPrecision"),
    egtRecall: meanNonNull("egtRecall"),
    combinedInvalidUntrustedRate: calls === 0 ? null : (sum("invalidCalls") + sum("untrustedRejections")) / calls,
    noisyCallsTotal: noisy,
    noisyCallShare: calls === 0 ? null : noisy / calls,
    queriesWithNoisyCall: withNoisy,
    queriesWithNoisyCallShare: n === 0 ? 0 : withNoisy / n,
    noisyCallsPerQuery: n === 0 ? 0 : noisy / n,
    noisyCallsPerQueryGivenAny: withNoisy === 0 ? null : noisy / withNoisy,
    progressCallShare: calls === 0 ? null : sum("progressCalls") / calls,
  };
  const failed = n - sum("success");
  for (const k of [
    "fail_no_traction",
    "fail_irrecoverable_drift",
    "fail_weak_recovery",
    "fail_format_error",
    "term_surrender",
    "term_wrong_tool_value",
    "term_search_exhaustion",
    "term_format_error",
  ]) {
    out[`${k}_share`] = failed === 0 ? null : sum(k) / failed;
  }
  if (rows.length < allRows.length) out["unevaluated"] = allRows.length - rows.length;
  const blk = sum("blocker_unused") + sum("blocker_search_reused") + sum("blocker_value_reused");
  for (const k of ["blocker_unused", "blocker_search_reused", "blocker_value_reused"]) out[`${k}_share`] = blk === 0 ? null : sum(k) / blk;
  return out;
}
