/**
 * The `tool_call` reply with the official runtime's rules in their order: tool resolution (name, tool_name, tool_id),
 * retrieved tool, exact argument keys, untrusted or missing inputs, the lookup, then the trusted / untrusted value
 * stores and the error cap.
 *
 * Ambiguous lookups (an argument equal to "None" matching several chain-less cases): the official executor raises,
 * the query's thread dies and the evaluator never counts the query. Under `compat: "fixed"` (default) this is an
 * in-episode call error (`internal_error_type: "ambiguous_lookup"`, counted as an invalid call); under
 * `compat: "official"` the episode ends there, unevaluated (`stop_reason: "runtime_error"`), and the scorer leaves
 * it out of every aggregate as the evaluator does.
 */
import { normAns, pystr, type PyValue } from "../compat/pyvalue.js";
import type { ToolRecord } from "../releaseFormat.js";
import type { ExecutionResult } from "./executor.js";
import * as msg from "./messages.js";
import type { JsonObj } from "./parsing.js";
import type { PlanBenchEpisode, StepOutcome } from "./runtime.js";
import type { TraceEntry } from "./trace.js";

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

/** Opens a call reply: counts the attempt and resolves the tool name (no rule is applied yet). */
export function openCall(ep: PlanBenchEpisode, stepId: number, raw: string, payload: JsonObj | null): OpenCall {
  ep.callAttempts++;
  if (!payload) return { stepId, raw, payload: null, name: null, args: {}, request: {} };
  // Official resolution: a string `name`, else whatever `tool_name` holds; a known `tool_id` overrides both.
  let resolved: PyValue = typeof payload["name"] === "string" ? payload["name"] : (payload["tool_name"] ?? null);
  const toolId = payload["tool_id"];
  if (typeof toolId === "string") resolved = ep.toolIdToName.get(toolId) ?? resolved;
  const name = typeof resolved === "string" ? resolved : null;
  const request: JsonObj = { ...payload };
  delete request["tool_name"];
  if (resolved !== null) {
    request["name"] = resolved;
    const id = name !== null ? ep.toolNameToId.get(name) : undefined;
    if (id !== undefined) request["tool_id"] = id;
  }
  return { stepId, raw, payload, name, args: payload["arguments"] as JsonObj, request };
}

/** The tool an open call names, when it was listed in this query (null: the call is refused by `refuseCall`). */
function retrievedTool(ep: PlanBenchEpisode, c: OpenCall): ToolRecord | null {
  if (c.payload === null || c.name === null || !ep.discovered.has(c.name)) return null;
  return ep.world.release.toolByName.get(c.name) ?? null;
}

/** A call that names no listed tool: the invalid-JSON or not-retrieved error. */
export function refuseCall(ep: PlanBenchEpisode, c: OpenCall): StepOutcome {
  ep.callErrors++;
  if (c.payload === null) {
    const entry: TraceEntry = { step_id: c.stepId, action: "call_tool", parse_ok: false, raw_output: c.raw, error_kind: "invalid_json" };
    return ep.callCap(entry, msg.callJsonError(ep.callErrors, ep.world.settings.runtime.max_call_errors));
  }
  return ep.callCap(
    { step_id: c.stepId, action: "call_tool", parse_ok: true, request: c.request, error_kind: "not_retrieved" },
    msg.toolNotRetrieved(),
  );
}

function canonicalArgs(tool: ToolRecord, args: JsonObj): Record<string, PyValue> {
  const canonical: Record<string, PyValue> = {};
  for (const [k, v] of Object.entries(args)) canonical[tool.surface_argument_to_datatype[k] ?? k] = v;
  return canonical;
}

/** The argument rules of a retrieved tool: exact parameter keys, no untrusted or missing input (null: all hold). */
export function checkCall(ep: PlanBenchEpisode, c: OpenCall): StepOutcome | null {
  const tool = retrievedTool(ep, c);
  if (tool === null) return refuseCall(ep, c);
  const surface = tool.surface_argument_to_datatype;
  const expected = Object.keys(surface).length > 0 ? Object.keys(surface) : Object.keys(tool.parameters.properties);
  const provided = Object.keys(c.args);
  const want = new Set(expected);
  if (provided.length !== want.size || provided.some((k) => !want.has(k))) {
    ep.callErrors++;
    return ep.callCap(
      { step_id: c.stepId, action: "call_tool", parse_ok: true, request: c.request, error_kind: "wrong_arguments" },
      msg.wrongInputs(tool.name, provided),
    );
  }
  const canonical = canonicalArgs(tool, c.args);
  const untrustedInputs = tool.input_datatypes.filter((d) => {
    const v = pystr(canonical[d] ?? null);
    return (ep.untrusted.get(d)?.has(v) ?? false) && !(ep.trusted.get(d)?.has(v) ?? false);
  });
  const missing = tool.input_datatypes.filter((d) => !ep.currentDatatypes.has(d));
  if (untrustedInputs.length === 0 && missing.length === 0) return null;
  ep.callErrors++;
  const type = untrustedInputs.length > 0 ? "untrusted_input_rejected" : "missing_required_input";
  return ep.callCap(
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

/** Runs a call that passed `checkCall`: the lookup (or a decoy's constant), the value stores and the trace. */
export function executeCall(ep: PlanBenchEpisode, c: OpenCall): StepOutcome {
  const tool = retrievedTool(ep, c);
  if (tool === null) return refuseCall(ep, c);
  const name = tool.name;
  const ex = ep.world.cases.execute(tool, canonicalArgs(tool, c.args));
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
    if (ep.compat === "official") {
      ep.trace.push(entry);
      ep.finish(null, "unevaluated_runtime_error");
      return { entry, feedback: null, done: true };
    }
    ep.callErrors++;
    return ep.callCap(entry, msg.ambiguousLookup(name));
  }
  ep.callExecs++;
  ep.callErrors = 0;
  recordValue(ep, ex);
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
  ep.trace.push(entry);
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

/** Files an executed call's output: trusted values reach their datatype; untrusted ones keep their source. */
function recordValue(ep: PlanBenchEpisode, ex: ExecutionResult): void {
  if (ex.outputValue === null) return;
  const dt = ex.outputDatatype;
  const v = pystr(ex.outputValue);
  if (ex.provenance === "trusted") {
    ep.currentDatatypes.add(dt);
    ep.addTo(ep.trusted, dt, v);
    return;
  }
  if (ex.provenance !== "untrusted") return;
  ep.addTo(ep.untrusted, dt, v);
  const n = normAns(ex.outputValue);
  if (ex.untrustedSource !== null && n) {
    let m = ep.untrustedSources.get(dt);
    if (!m) ep.untrustedSources.set(dt, (m = new Map()));
    let s = m.get(n);
    if (!s) m.set(n, (s = new Set()));
    s.add(ex.untrustedSource);
  }
}
