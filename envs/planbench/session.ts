/**
 * Core-independent episode session: turns actions into replies for the runtime and outcomes
 * into observations. The registered env (env.ts) is a thin wrapper around it, and the policies
 * and benchmarks can drive it directly.
 */
import { toPlainJson, type PyValue } from "./compat/pyvalue.js";
import type { QueryRecord, ToolRecord } from "./releaseFormat.js";
import { resolveQueryInputs } from "./dataset.js";
import type { PlanBenchAction, PlanBenchObservation, VisibleTool } from "./types.js";
import type { CallRunner } from "./world/callTool.js";
import { type CompatMode, PlanBenchEpisode, type PlanBenchReply, type PlanBenchWorld, type StepOutcome } from "./world/runtime.js";
import type { JsonObj } from "./world/parsing.js";
import { episodeFromJson, episodeToJson, outcomeFromJson, outcomeToJson, type Json } from "./world/snapshot.js";
import type { EpisodeResult } from "./world/trace.js";

export function visibleTool(t: ToolRecord): VisibleTool {
  return { type: "function", name: t.name, description: t.description, strict: t.strict ?? true, parameters: t.parameters };
}

function plainOutput(v: PyValue): string | number | boolean | null {
  const p = toPlainJson(v);
  return p === null || typeof p === "string" || typeof p === "number" || typeof p === "boolean" ? p : JSON.stringify(p);
}

/** Ground truth for `info.hidden` (never in observations). */
export interface PlanBenchHidden {
  queryId: string;
  taskId: string;
  targetDatatype: string;
  correctAnswer: string;
  inputDatatypes: string[];
  inputValues: Record<string, string>;
  onePath: string[];
  pathCount: number;
  blockedTools: string[];
  remainingPathIndices: number[];
  heldDatatypes: string[];
  lastMatched: { output?: string | null; inputs?: string[] } | null;
}

export function actionToReply(a: PlanBenchAction): PlanBenchReply {
  switch (a.type) {
    case "text":
      return { kind: "text", text: a.text };
    case "answer":
    case "final_answer":
      return { kind: "answer", content: a.content };
    case "tool_call":
      return { kind: "call", payload: { name: a.name, arguments: a.arguments as JsonObj } };
    case "retrieve": {
      const req: JsonObj = { meta_tool: a.meta_tool };
      if (a.output_information !== undefined) req["output_information"] = a.output_information as PyValue;
      if (a.input_information !== undefined) req["input_information"] = a.input_information as PyValue;
      return { kind: "retrieve", request: req };
    }
  }
}

export class PlanBenchSession {
  readonly episode: PlanBenchEpisode;
  private lastOutcome: StepOutcome | null = null;

  constructor(
    readonly world: PlanBenchWorld,
    readonly query: QueryRecord,
    compat: CompatMode = "fixed",
  ) {
    this.episode = new PlanBenchEpisode(world, query, compat);
  }

  observation(): PlanBenchObservation {
    const ep = this.episode;
    const o = this.lastOutcome;
    const max = this.world.settings.runtime.max_steps;
    const call = o?.entry.tool_result;
    return {
      query: this.query.query_text,
      step: ep.stepCount,
      stepsLeft: Math.max(0, max - ep.stepCount),
      lastAction: o ? o.entry.action : "none",
      feedback: o?.feedback ?? "",
      tools: o?.listed?.map(visibleTool) ?? [],
      toolResult: call
        ? { name: String((o!.entry.request as { name?: unknown }).name), success: call.success, output: plainOutput(call.output_value) }
        : null,
      error: o ? (o.entry.error_kind ?? (o.entry.action === "others" ? "label_error" : null)) : null,
    };
  }

  /** One action; `runCall` runs a call's phases (the env: through the engine's call pipeline; see `OpenCall`). */
  step(action: PlanBenchAction, runCall?: CallRunner): StepOutcome {
    this.lastOutcome = this.episode.step(actionToReply(action), runCall);
    return this.lastOutcome;
  }

  /** Plain-JSON state of the running episode (see world/snapshot.ts). */
  snapshot(): Json {
    return { episode: episodeToJson(this.episode), lastOutcome: outcomeToJson(this.episode, this.lastOutcome) };
  }

  /** Continues a snapshot taken from a session of the same world and query. */
  restore(state: Json): void {
    if (state === null || typeof state !== "object" || Array.isArray(state)) {
      throw new TypeError("PlanBenchSession.restore: not a session snapshot");
    }
    episodeFromJson(this.episode, state["episode"] ?? null);
    this.lastOutcome = outcomeFromJson(this.episode, state["lastOutcome"] ?? null);
  }

  /** The official result, or for an episode cut short by `abort` (no official result) the trace as a failed run. */
  finalResult(): EpisodeResult {
    const ep = this.episode;
    return (
      ep.result ?? {
        query_id: this.query.query_id,
        stop_reason: "normal" as const,
        status: "failed" as const,
        final_answer: null,
        steps: ep.stepCount,
        trace: ep.trace,
        final_state: {
          current_datatypes: [],
          discovered_tool_names: [],
          retrieval_attempt_count: 0,
          retrieval_exec_count: 0,
          tool_call_attempt_count: 0,
          tool_call_exec_count: 0,
          incorrect_final_answer_feedback_count: 0,
          has_final_answer: false,
        },
      }
    );
  }

  /** The outcome of the last step (null right after reset). */
  get last(): StepOutcome | null {
    return this.lastOutcome;
  }

  hidden(): PlanBenchHidden {
    const ep = this.episode;
    const e = this.lastOutcome?.entry;
    return {
      queryId: this.query.query_id,
      taskId: this.query.task_id,
      targetDatatype: this.query.target_datatype,
      correctAnswer: String(this.query.correct_answer),
      inputDatatypes: this.query.input_datatypes,
      inputValues: resolveQueryInputs(this.world.release, this.query),
      onePath: ep.task.one_available_path,
      pathCount: ep.plan.totalPaths,
      blockedTools: ep.plan.blockedTools,
      remainingPathIndices: ep.plan.remainingPathIndices,
      heldDatatypes: [...ep.currentDatatypes],
      lastMatched: e?.matched_information
        ? { output: e.matched_information.output_information ?? null, inputs: e.matched_information.input_information ?? [] }
        : null,
    };
  }
}
