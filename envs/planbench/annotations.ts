/**
 * Blocker-aware annotations of PlanBench-XL episodes (issue 8): per-step ground truth for `info.hidden` (blocked
 * tools, the blocker type of an invoked alternative, progress vs non-progress call) and the per-episode analysis
 * that `recovery-gym collect` writes (failure category, blocker follow-up, termination style). Retries and switches
 * are the engine's events (the noisy and blocker siblings are its decoy faults).
 *
 * Why from the official trace: the trace is the runtime's complete record (and part of the snapshot), so the
 * annotations need no state of their own and the analyses are exactly the scorer's.
 */
import { asJson, type EpisodeEvent, type JsonObject, type JsonValue, type Trajectory } from "../../src/family.js";
import type { ToolRecord } from "./releaseFormat.js";
import type { BlockerPlan } from "./faults.js";
import { analyseEpisode, type EpisodeAnalysis } from "./scorer.js";
import type { PlanBenchSession } from "./session.js";
import type { TraceEntry } from "./world/trace.js";

type ToolLookup = ReadonlyMap<string, ToolRecord>;

export type ToolKind = "baseline" | "noisy" | "blocker" | "unknown";
export type CallOutcome = "trusted" | "untrusted" | "no_result" | "error";

const nameOf = (e: TraceEntry): string | null => {
  const n = (e.request as { name?: unknown } | undefined)?.name;
  return typeof n === "string" ? n : null;
};

export function toolKind(t: ToolRecord | undefined): ToolKind {
  if (!t) return "unknown";
  return t.tool_type === "baseline" ? "baseline" : t.tool_type === "blocker_misleading" ? "blocker" : "noisy";
}

function outcomeOf(e: TraceEntry): CallOutcome {
  const r = e.tool_result;
  if (!r) return "error";
  if (r.output_provenance === "trusted") return "trusted";
  if (r.output_provenance === "untrusted") return "untrusted";
  return "no_result";
}

/** The blocked baseline tools of the episode and the blocker types that replace each. */
export function blockedAnnotation(plan: BlockerPlan): JsonObject[] {
  return plan.blockedTools.map((tool) => ({ tool, blockerTypes: [...(plan.replacements.get(tool) ?? [])] }));
}

/** Blockers shown by a retrieval, with the baseline each stands in for. */
export function shownBlockers(listed: readonly ToolRecord[]): JsonObject[] {
  return listed
    .filter((t) => t.tool_type === "blocker_misleading")
    .map((t) => ({ tool: t.name, replaces: t.baseline_tool_name ?? null, blockerType: t.noise_type ?? null }));
}

/** What a call did, in ground-truth terms. `progress`: a trusted call producing a new ground-truth datatype. */
export function callAnnotation(e: TraceEntry, tools: ToolLookup, progress: boolean): JsonObject {
  const name = nameOf(e);
  const t = name === null ? undefined : tools.get(name);
  const kind = toolKind(t);
  return {
    tool: name,
    kind,
    blockerType: kind === "blocker" ? (t!.noise_type ?? null) : null,
    noiseType: kind === "noisy" ? (t!.noise_type ?? null) : null,
    replaces: kind === "baseline" || kind === "unknown" ? null : (t!.baseline_tool_name ?? null),
    outcome: outcomeOf(e),
    progress,
  };
}

/** The per-episode analysis placed in the final `info.hidden.analysis`. */
export function analysisAnnotation(a: EpisodeAnalysis, calls: number, success: boolean): JsonObject {
  return {
    failureCategory: success ? "none" : a.failure,
    terminationStyle: success ? "success" : a.termination,
    progressCalls: a.progress,
    nonProgressCalls: calls - a.progress,
    blockerFollowUp: {
      unused: a.blockerFollowUp.unused,
      search_reused: a.blockerFollowUp.searchReused,
      value_reused: a.blockerFollowUp.valueReused,
    },
    blockerUses: asJson(a.blockerUses),
  };
}

/**
 * Per-step ground truth (issue 8): held datatypes, the blocked tools with their blocker types, the remaining
 * shortest path (`phi`: the env's potential), blockers a retrieval showed, what a call was (kind, blocker type,
 * progress or not); at the end also the paper's analyses (failure category, blocker follow-up, termination style).
 * `groundTruth`: the datatypes on the task's catalog paths.
 */
export function stepAnnotation(
  s: PlanBenchSession,
  events: readonly EpisodeEvent[],
  ended: boolean,
  phi: number | null,
  groundTruth: ReadonlySet<string>,
  tools: ToolLookup,
): JsonObject {
  const h = s.hidden();
  const out: JsonObject = {
    heldDatatypes: h.heldDatatypes,
    lastMatched: asJson(h.lastMatched),
    blocked: blockedAnnotation(s.episode.plan),
    remainingCalls: phi === null ? null : -phi + 0,
  };
  const last = s.last;
  if (last?.listed && events.some((e) => e.type === "planbench:retrieve")) out["shownBlockers"] = shownBlockers(last.listed);
  if (last && last.entry.action === "call_tool" && events.some((e) => e.type === "tool_called")) {
    out["call"] = callAnnotation(
      last.entry,
      tools,
      events.some((e) => e.type === "planbench:progress"),
    );
  }
  if (ended) {
    const result = s.finalResult();
    const a = analyseEpisode(result, s.query, groundTruth, { toolByName: tools });
    const calls = result.trace.filter((e) => e.action === "call_tool").length;
    out["analysis"] = analysisAnnotation(a, calls, result.status === "success");
  }
  return out;
}

const FAILURES = ["no_traction", "irrecoverable_drift", "weak_recovery", "format_error"] as const;
const TERMINATIONS = ["surrender", "wrong_tool_value", "search_exhaustion", "format_error"] as const;

/**
 * The registry's `analyzeTrajectory`: the paper's failure category, the follow-up of every invoked blocker output,
 * the termination style, and per-step progress counts. Reads the env's end-of-episode analysis (`hidden.analysis`);
 * a file recorded with `hiddenInfo: false` falls back to the metrics' one-hot columns (no per-blocker detail).
 */
export function analyzePlanBenchTrajectory(t: Trajectory): JsonObject {
  const hidden = (t.hidden ?? null) as JsonObject | null;
  const a = hidden && typeof hidden === "object" && !Array.isArray(hidden) ? (hidden["analysis"] as JsonObject | undefined) : undefined;
  const m = t.metrics;
  const fromMetrics = <K extends string>(prefix: string, keys: readonly K[], none: string): string =>
    keys.find((k) => m[`${prefix}${k}`] === 1) ?? none;
  const steps = t.steps.map((s) =>
    s.hidden && typeof s.hidden === "object" && !Array.isArray(s.hidden)
      ? ((s.hidden as JsonObject)["call"] as JsonObject | undefined)
      : undefined,
  );
  const blockersShown = new Set<string>();
  for (const s of t.steps) {
    const h = s.hidden as JsonObject | undefined;
    for (const b of (h?.["shownBlockers"] ?? []) as JsonObject[]) blockersShown.add(String(b["tool"]));
  }
  return {
    success: t.success,
    failureCategory: a ? (a["failureCategory"] as string) : t.success ? "none" : fromMetrics("fail_", FAILURES, "none"),
    terminationStyle: a ? (a["terminationStyle"] as string) : t.success ? "success" : fromMetrics("term_", TERMINATIONS, "surrender"),
    progressCalls: a ? (a["progressCalls"] as number) : Number(m["progressCalls"] ?? 0),
    nonProgressCalls: a ? (a["nonProgressCalls"] as number) : Number(m["nonProgressCalls"] ?? 0),
    blockerFollowUp: a
      ? (a["blockerFollowUp"] as JsonObject)
      : {
          unused: Number(m["blocker_unused"] ?? 0),
          search_reused: Number(m["blocker_search_reused"] ?? 0),
          value_reused: Number(m["blocker_value_reused"] ?? 0),
        },
    blockerUses: a ? (a["blockerUses"] as JsonValue) : null,
    blockersShown: [...blockersShown].sort(),
    blockerCallStepIndices: steps.flatMap((c, i) => (c && c["kind"] === "blocker" ? [t.steps[i]!.t] : [])),
    setting: (t.options["setting"] as string | undefined) ?? "default",
  };
}
