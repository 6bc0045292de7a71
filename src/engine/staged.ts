/**
 * The call pipeline under a benchmark's options (CallPipeline, pipeline.ts: ToolMisuseBench's harness): validation
 * and the family fault stage in the configured order, then the simulator, the stage's rewrite, the retry budget's
 * charge and the response envelope. ToolEpisode.call (episode.ts) runs it for every call when such options are set.
 */
import type { JsonObject, JsonValue } from "../core/json.js";
import type { Rng } from "../core/rng.js";
import type { BudgetRules, ResolvedBudgets } from "./budgets.js";
import { type CallRecord, type EpisodeData, errorResponse, CallRecordData, STRENGTH, schemaError, ToolRunContext } from "./callRecord.js";
import type { EpisodeEvent, FaultPersistenceType } from "./events.js";
import type { FaultSpec } from "./faults.js";
import type { Taint, ValueProvenance } from "./ledger.js";
import type { CallPipeline, StageCall, StageOutcome } from "./pipeline.js";
import type { ToolDefinition, ToolErrorPayload } from "./tool.js";

/** What the staged pipeline reads and charges of its episode (ToolEpisode hands itself over through this view). */
export interface StagedEpisode<S> {
  readonly data: EpisodeData<S>;
  readonly rng: Rng;
  readonly provenance: ValueProvenance | null;
  readonly budgets: ResolvedBudgets;
  readonly budgetRules: BudgetRules;
  isVisible(name: string): boolean;
}

function validation<S>(
  ep: StagedEpisode<S>,
  pipeline: CallPipeline<S>,
  def: ToolDefinition<S> | undefined,
  tool: string,
  args: JsonObject,
): StageOutcome | null {
  const custom = pipeline.validate ? pipeline.validate(tool, def, args) : null;
  if (!def) {
    const error = custom ?? { code: "unknown_tool", status: 404, message: `no tool named "${tool}"` };
    return { ok: false, error, source: "unknown_tool" };
  }
  if (!ep.isVisible(tool)) {
    const error = { code: "tool_not_available", status: 403, message: `tool "${tool}" is not available right now` };
    return { ok: false, error, source: "not_visible" };
  }
  const own = def.checkArguments;
  const refused = pipeline.validate ? custom : own ? own(args, ep.data.world) : schemaError(def, args);
  return refused ? { ok: false, error: refused, source: "validation" } : null;
}

/**
 * The pipeline under a benchmark's options (see CallPipeline): validation and the family fault stage in the
 * configured order, the simulator, the stage's rewrite of the outcome, the retry budget's charge, the envelope.
 */
export function runStaged<S>(
  ep: StagedEpisode<S>,
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
  let outcome: StageOutcome | null = faultsFirst ? null : validation(ep, pipeline, def, tool, args);
  const pre = outcome === null && pipeline.familyFaults ? pipeline.familyFaults.before(call) : null;
  if (pre) {
    call = { tool, args: pre.args, callIndex: index };
    if (pre.error) outcome = { ok: false, error: pre.error, source: "fault" };
  }
  if (outcome === null && faultsFirst) outcome = validation(ep, pipeline, def, tool, call.args);
  let taint: Taint = "clean";
  if (outcome === null) {
    const ctx = new ToolRunContext(ep.data.world, index, step, ep.rng);
    const out = (def as ToolDefinition<S>).run(call.args, ctx);
    if (out.ok && out.taint) taint = out.taint;
    outcome = out.ok ? { ok: true, output: out.output } : { ok: false, error: out.error, source: "simulator" };
  }
  let fired: readonly FaultSpec[] = [];
  if (pre) ({ outcome, fired } = pre.after(call, outcome));
  const respond = (o: StageOutcome): JsonValue => (pipeline.respond ? pipeline.respond(call, o) : o.ok ? o.output : errorResponse(o.error));
  let overflowed: JsonValue | undefined;
  if (!outcome.ok && ep.budgetRules.retries === "errors") {
    ep.data.retries += 1;
    const limit = ep.budgets.retries;
    if (limit !== null && ep.data.retries > limit) {
      overflowed = respond(outcome);
      const replace = ep.budgetRules.retryExceeded;
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
  if (reached && ep.provenance) {
    for (const { argument, sourceCallIndex, taint: t } of ep.provenance.poisonedArguments(ep.data.calls, args)) {
      events.push({ type: "poisoned_value_reused", tool, callIndex: index, argument, sourceCallIndex, taint: t });
    }
  }
  const errorSource = outcome.ok ? null : outcome.source;
  const recordTaint = outcome.ok ? taint : "clean";
  const record = new CallRecordData(index, step, tool, args, outcome.ok, respond(outcome), errorSource, ids, recordTaint, persistence);
  if (overflowed !== undefined) record.overflowed = overflowed;
  return { record, error: outcome.ok ? null : outcome.error };
}
