/**
 * PlanBench-XL's tool calls on the engine: the tool library as engine `ToolDefinition`s, the noisy and blocker
 * siblings as engine decoy faults, and the reply the agent sees.
 *
 * Why the official rules live in the tools and not in the engine: the runtime (world/callTool.ts) is the one
 * implementation of them, shared with the standalone episode the parity tests drive. The engine runs a call as for
 * every family (unknown / not-listed tool, argument check, faults, simulator, events, retry and switch detection,
 * value provenance); a tool's `checkArguments` is the runtime's `checkCall` and its simulator the runtime's
 * `executeCall`, so both see the call in the official order.
 */
import type {
  CallRecord,
  EpisodeEvent,
  FaultSpec,
  JsonObject,
  JsonValue,
  ToolDefinition,
  ToolErrorPayload,
  ToolOutcome,
  ToolSchema,
} from "../../src/family.js";
import { toPlainJson } from "./compat/pyvalue.js";
import type { PlanBenchRelease, ToolRecord } from "./releaseFormat.js";
import { toolSemantics } from "./discrete.js";
import type { OpenCall } from "./world/callTool.js";
import type { PlanBenchEpisode, StepOutcome } from "./world/runtime.js";

/** The part of the engine's `ToolEpisode` a call needs. */
export interface EngineCallPipeline {
  call(tool: string, args: JsonObject, step: number): { record: CallRecord | null; events: EpisodeEvent[] };
}

/** Noise types whose tools answer `success: false` (the official executor's failing set): explicit faults. */
const FAILING = new Set(["explicit failures", "deprecated", "condition_limited"]);

/** The agent-facing reply to a step: the action, the official feedback text, the error kind, listed tools, call result. */
export function replyOf(out: StepOutcome): JsonObject {
  const e = out.entry;
  const error = e.error_kind ?? (e.action === "others" ? "label_error" : null);
  const reply: JsonObject = { action: e.action, feedback: out.feedback ?? "", error };
  if (e.action === "retrieve_tools") {
    reply["listed"] = (out.listed ?? []).map((t) => t.name);
    reply["note"] = e.model_retriever_note ?? null;
  }
  if (e.action === "call_tool" && e.tool_result) {
    const tr = e.tool_result;
    reply["toolResult"] = { name: calledName(e.request), success: tr.success, output: toPlainJson(tr.output_value) };
  }
  return reply;
}

/** The tool name of a trace request ("" when the request names none). */
export function calledName(request: unknown): string {
  if (request === null || typeof request !== "object" || !("name" in request)) return "";
  return typeof request.name === "string" ? request.name : "";
}

/**
 * One decoy fault per kind of noisy / blocker sibling (a meta trigger, so a release's ~1,500 siblings cost a handful
 * of fault states). Blocker kinds only when blocking is on: otherwise no blocker is ever listed.
 */
export function decoyFaults(release: PlanBenchRelease, blockers: boolean): FaultSpec[] {
  const kinds = new Map<string, { category: string; noiseType: string }>();
  for (const t of release.toolByName.values()) {
    if (t.tool_type === "baseline" || (t.tool_type === "blocker_misleading" && !blockers)) continue;
    const noiseType = t.noise_type ?? "unknown";
    kinds.set(`${sourceOf(t)}:${noiseType}`, { category: t.tool_type, noiseType });
  }
  return [...kinds.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, k]) => ({
      id,
      kind: k.noiseType,
      visibility: FAILING.has(k.noiseType) ? "explicit" : "implicit",
      // Noisy and blocker tools answer the same constant every time.
      persistence: { type: "permanent" },
      trigger: { meta: { category: k.category, noiseType: k.noiseType } },
      effect: { type: "decoy" },
    }));
}

type ParameterSchema = ToolSchema["parameters"];
const SCHEMA_TYPES: ReadonlySet<unknown> = new Set(["object", "string", "number", "integer", "boolean", "array", "null"]);
const isSchemaType = (v: unknown): v is "string" => SCHEMA_TYPES.has(v);

/**
 * A release tool's parameters as the engine's JSON schema, key order kept (the agent sees it). The typed boundary:
 * a property `type` outside JSON Schema's names is left out (the official data uses "string" only).
 */
function engineParameters(p: ToolRecord["parameters"]): ParameterSchema {
  const properties: Record<string, ParameterSchema> = {};
  for (const [name, prop] of Object.entries(p.properties)) {
    const out: ParameterSchema = {};
    for (const [key, v] of Object.entries(prop)) if (key !== "type" || isSchemaType(v)) out[key] = v;
    properties[name] = out;
  }
  const out: ParameterSchema = {};
  for (const [key, v] of Object.entries(p)) out[key] = key === "properties" ? properties : v;
  return out;
}

function sourceOf(t: ToolRecord): "noisy" | "blocker" {
  return t.tool_type === "blocker_misleading" ? "blocker" : "noisy";
}

/** The tools of one env as engine definitions, and the call that is in flight through the engine. */
export class PlanBenchCalls {
  readonly tools: readonly ToolDefinition<null>[];
  private inFlight: { call: OpenCall; runtime: PlanBenchEpisode; outcome: StepOutcome | null } | null = null;

  constructor(release: PlanBenchRelease) {
    this.tools = [...release.toolByName.values()].map((t) => ({
      name: t.name,
      description: t.description,
      parameters: engineParameters(t.parameters),
      semantics: toolSemantics(t),
      meta: { category: t.tool_type, group: t.baseline_tool_name ?? t.name, ...(t.noise_type ? { noiseType: t.noise_type } : {}) },
      checkArguments: () => this.check(),
      run: () => this.run(),
    }));
  }

  /**
   * Runs an open call through the engine's pipeline; the runtime's outcome comes from the tool's own phases, or for
   * a call the engine refused before the tool (no such tool, not listed, unparsable) from the runtime's refusal.
   */
  call(
    pipeline: EngineCallPipeline,
    runtime: PlanBenchEpisode,
    call: OpenCall,
    step: number,
  ): { outcome: StepOutcome; events: EpisodeEvent[] } {
    this.inFlight = { call, runtime, outcome: null };
    try {
      // Text replies parse to Python values (floats, big ints); the engine sees their plain-JSON form, the runtime the originals.
      const args = toPlainJson(call.args);
      const tool = call.payload === null ? "" : (call.name ?? "");
      const { events } = pipeline.call(tool, args !== null && typeof args === "object" && !Array.isArray(args) ? args : {}, step);
      return { outcome: this.inFlight.outcome ?? runtime.refuseCall(call), events };
    } finally {
      this.inFlight = null;
    }
  }

  private current(): { call: OpenCall; runtime: PlanBenchEpisode; outcome: StepOutcome | null } {
    if (this.inFlight === null) throw new Error("PlanBench-XL tools run only inside PlanBenchCalls.call");
    return this.inFlight;
  }

  private check(): ToolErrorPayload | null {
    const f = this.current();
    const out = f.runtime.checkCall(f.call);
    if (out === null) return null;
    f.outcome = out;
    return { code: out.entry.error_kind ?? "invalid_arguments", message: out.feedback ?? "", body: replyOf(out) };
  }

  private run(): ToolOutcome {
    const f = this.current();
    const out = f.runtime.executeCall(f.call);
    f.outcome = out;
    const reply: JsonValue = replyOf(out);
    const tr = out.entry.tool_result;
    if (tr?.success) return { ok: true, output: reply };
    // A decoy's explicit failure still answers its value (the agent sees it); a lookup error answers no value.
    const code = tr ? "tool_failed" : (out.entry.error_kind ?? "runtime_error");
    return { ok: false, error: { code, message: out.feedback ?? "", body: replyOf(out) } };
  }
}
