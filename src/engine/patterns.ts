import type { CoreEvent, FaultPersistenceType } from "./events.js";

/** What recovery-pattern detection needs of an earlier call (the engine's CallRecord has it as is). */
export interface PatternCall {
  index: number;
  tool: string;
  ok: boolean;
  /** Ids of the faults that fired on the call. */
  faults: readonly string[];
  faultPersistence: FaultPersistenceType | null;
}

/**
 * How a benchmark defines its recovery patterns. `failure`: what a retry or a switch reacts to — an error or any
 * fired fault (the engine's default: a corrupted success is worth re-checking), or an error only (ToolMisuseBench,
 * whose drifted calls can succeed). `switchFrom`: the group member a switch leaves — the group's latest call, counted
 * only on the first call of the new tool (default), or exactly the previous call (ToolMisuseBench).
 */
export interface PatternRules {
  failure: "error_or_fault" | "error";
  switchFrom: "group_latest" | "previous_call";
}

export const DEFAULT_PATTERN_RULES: PatternRules = { failure: "error_or_fault", switchFrom: "group_latest" };

// Module-level rather than a per-call closure: this runs on every tool call of every family.
function failed(c: PatternCall, faultCounts: boolean): boolean {
  return !c.ok || (faultCounts && c.faults.length > 0);
}

export type RetryEvent = Extract<CoreEvent, { type: "retry" }>;
export type AlternativeSwitchEvent = Extract<CoreEvent, { type: "alternative_switch" }>;

/** What `recoveryPatterns` found for one call. */
export interface RecoveryPatterns {
  retry: RetryEvent | null;
  alternativeSwitch: AlternativeSwitchEvent | null;
}

/**
 * Retry and alternative-switch detection, for every family: `calls` are the earlier calls in order, `tool` and
 * `index` the new one, `groupOf` the tool's alternative group (`meta.group`).
 */
export function recoveryPatterns(
  calls: readonly PatternCall[],
  tool: string,
  index: number,
  groupOf: (tool: string) => string | undefined,
  rules: PatternRules = DEFAULT_PATTERN_RULES,
): RecoveryPatterns {
  return recoveryPatternsInto({ retry: null, alternativeSwitch: null }, calls, tool, index, groupOf, rules);
}

/** `recoveryPatterns` written into `out` (the engine reuses one object: this runs on every tool call). */
export function recoveryPatternsInto(
  out: RecoveryPatterns,
  calls: readonly PatternCall[],
  tool: string,
  index: number,
  groupOf: (tool: string) => string | undefined,
  rules: PatternRules,
): RecoveryPatterns {
  let prevSame: PatternCall | undefined;
  for (let i = calls.length - 1; i >= 0; i--) {
    if (calls[i].tool === tool) {
      prevSame = calls[i];
      break;
    }
  }
  const group = groupOf(tool);
  let from: PatternCall | undefined;
  if (group !== undefined) {
    if (rules.switchFrom === "previous_call") {
      const prev = calls[calls.length - 1];
      if (prev && prev.tool !== tool && groupOf(prev.tool) === group) from = prev;
    } else if (!prevSame) {
      for (let i = calls.length - 1; i >= 0; i--) {
        const c = calls[i];
        if (c.tool !== tool && groupOf(c.tool) === group) {
          from = c;
          break;
        }
      }
    }
  }
  return recoveryPatternsOf(out, prevSame, from, tool, index, group, rules);
}

/**
 * The events of `recoveryPatternsInto` once its two searches are answered (an engine that indexes its calls finds
 * them without scanning the records): `prevSame`, the latest earlier call of `tool`; `from`, the call a switch
 * leaves under `rules.switchFrom` (undefined when there is none or `group` is undefined).
 */
export function recoveryPatternsOf(
  out: RecoveryPatterns,
  prevSame: PatternCall | undefined,
  from: PatternCall | undefined,
  tool: string,
  index: number,
  group: string | undefined,
  rules: PatternRules,
): RecoveryPatterns {
  const faultCounts = rules.failure === "error_or_fault";
  let retry: RetryEvent | null = null;
  if (prevSame && failed(prevSame, faultCounts)) {
    const afterFault = prevSame.faults.length > 0;
    retry = { type: "retry", tool, callIndex: index, ofCallIndex: prevSame.index, afterFault, persistence: prevSame.faultPersistence };
  }
  let alternativeSwitch: AlternativeSwitchEvent | null = null;
  if (group !== undefined && from && failed(from, faultCounts)) {
    const afterFault = from.faults.length > 0;
    alternativeSwitch = { type: "alternative_switch", from: from.tool, to: tool, group, callIndex: index, afterFault };
  }
  out.retry = retry;
  out.alternativeSwitch = alternativeSwitch;
  return out;
}
