/**
 * The `retrieve_tools` reply with the official runtime's semantics: request check, retrieval → blocker replacement →
 * noisy augmentation → seeded shuffle, per-query tool ids, the trace entry and the feedback payload.
 */
import type { ToolRecord } from "../releaseFormat.js";
import { augmentNoisy, replaceBlocked, shuffleTools } from "./augment.js";
import * as msg from "./messages.js";
import { type JsonObj, validateRetrieveRequest } from "./parsing.js";
import type { HashingRetriever, RetrievalRequest } from "./retriever.js";
import type { PlanBenchEpisode, StepOutcome } from "./runtime.js";
import type { TraceEntry } from "./trace.js";

/** A shown list with the retriever's answer it came from (its note and matched information go to the trace). */
interface ToolListing {
  listed: ToolRecord[];
  retrieval: ReturnType<HashingRetriever["retrieve"]>;
}

/** The visible list for a normalised request (pure given the request: seeded by hashes only). */
function listTools(ep: PlanBenchEpisode, req: RetrievalRequest): ToolListing {
  const w = ep.world;
  const retrieval = w.retriever.retrieve(req);
  let primaries = retrieval.tools;
  if (w.settings.blocker.enable_block) primaries = replaceBlocked(primaries, ep.plan.replacements, w.siblings);
  const mixed = augmentNoisy(primaries, w.siblings, req.domain, {
    mode: w.settings.noise.mode,
    maxTotalTools: w.settings.noise.max_total_tools,
  });
  ep.lastPreShuffle = mixed;
  return { listed: shuffleTools(w.settings.blocker.seed, ep.query.task_id, ep.query.query_id, req, mixed), retrieval };
}

/** Ids of a shown list: a tool keeps the id it got when first shown in this query; new tools get the next T<n>. */
function attachToolIds(ep: PlanBenchEpisode, listed: readonly ToolRecord[]): string[] {
  return listed.map((t) => {
    let id = ep.toolNameToId.get(t.name);
    if (id === undefined) {
      id = `T${ep.toolNameToId.size + 1}`;
      ep.toolNameToId.set(t.name, id);
      ep.toolIdToName.set(id, t.name);
    }
    return id;
  });
}

/** One retrieval reply (payload null: the content is not a retrieval object). */
export function retrieveTools(ep: PlanBenchEpisode, stepId: number, raw: string, payload: JsonObj | null): StepOutcome {
  const rt = ep.world.settings.runtime;
  ep.retrievalAttempts++;
  if (!payload) {
    ep.retrievalErrors++;
    const entry: TraceEntry = { step_id: stepId, action: "retrieve_tools", parse_ok: false, raw_output: raw, error_kind: "invalid_json" };
    ep.trace.push(entry);
    const feedback = msg.retrieveJsonError(ep.retrievalErrors, rt.max_retrieval_errors);
    return ep.retrievalCap(entry, feedback);
  }
  const req = validateRetrieveRequest(payload, ep.world.release.domain);
  if (!req) {
    ep.retrievalErrors++;
    const entry: TraceEntry = {
      step_id: stepId,
      action: "retrieve_tools",
      parse_ok: true,
      request: payload,
      error_kind: "invalid_request",
    };
    ep.trace.push(entry);
    return ep.retrievalCap(entry, msg.retrieveInterfaceError());
  }
  ep.retrievalExecs++;
  ep.retrievalErrors = 0;
  const { listed, retrieval: res } = listTools(ep, req);
  const ids = ep.world.settings.capabilities.tool_id_calling ? attachToolIds(ep, listed) : null;
  ep.available = listed.map((t) => t.name);
  for (const n of ep.available) ep.discovered.add(n);
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
  ep.trace.push(entry);
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
