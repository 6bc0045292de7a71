/**
 * The official trace and result record shapes of a PlanBench-XL query: the runtime writes them, and the scorer and
 * the paper analyses read them exactly as the official evaluator does.
 */
import type { PyValue } from "../compat/pyvalue.js";
import type { ToolRecord } from "../releaseFormat.js";

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

/** Python's `sorted()` of strings (code-unit order), as the official record lists its sets. */
export function sortedStrings(xs: Iterable<string>): string[] {
  return [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
