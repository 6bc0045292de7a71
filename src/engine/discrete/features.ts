import type { JsonValue } from "../../core/json.js";
import { hash32 } from "../../core/rng.js";
import { type Candidate, type ValueSource, valueKey } from "./candidates.js";
import { FAMILY, FAMILY_CANDIDATE_FEATURES } from "./familyFeatures.js";
import type { FeatureGroup } from "./featureGroup.js";
import { NEEDS, NEEDS_CANDIDATE_FEATURES, NEEDS_GLOBAL_FEATURES } from "./needs.js";
import { REQUEST_CANDIDATE_FEATURES, REQUEST_GLOBAL_FEATURES, REQUESTS } from "./requests.js";
import { callKey, type FeatureMemo, failedSignatures, history, keysOf, type Outcome, outcomeOf, signature } from "./callHistory.js";
import { type ObservableEpisode, visibleByName } from "./source.js";
import { VERIFY, VERIFY_CANDIDATE_FEATURES, VERIFY_GLOBAL_FEATURES } from "./verify.js";

/** Global features, in order (docs/DISCRETE.md documents them; a test keeps the two in sync). */
export const GLOBAL_FEATURES = [
  "step_fraction",
  "last_call_none",
  "last_call_ok",
  "last_call_transient_error",
  "last_call_other_error",
  "errors_seen",
  "contradictions_seen",
  "tool_call_budget_left",
  "steps_left",
  "retries_used",
  "candidates_valid",
  "calls_made",
  "last_response_suspicious",
  ...NEEDS_GLOBAL_FEATURES,
  ...REQUEST_GLOBAL_FEATURES,
  ...VERIFY_GLOBAL_FEATURES,
] as const;

/** Features of each candidate slot, in order. */
export const CANDIDATE_FEATURES = [
  "valid",
  "kind_tool_call",
  "kind_answer",
  "kind_abort",
  "kind_family",
  "id_bit_0",
  "id_bit_1",
  "id_bit_2",
  "id_bit_3",
  "id_bit_4",
  "id_bit_5",
  "id_bit_6",
  "id_bit_7",
  "tool_times_called",
  "call_times_made",
  "tool_last_none",
  "tool_last_ok",
  "tool_last_transient_error",
  "tool_last_other_error",
  "alternative_to_failed_tool",
  "argument_from_contradicted_response",
  "argument_used_in_failed_call",
  "arguments_all_from_task",
  "arguments_from_responses",
  "budget_cost",
  "would_be_retry",
  "same_call_failed_before",
  "same_call_succeeded_before",
  "argument_from_suspicious_response",
  ...NEEDS_CANDIDATE_FEATURES,
  ...REQUEST_CANDIDATE_FEATURES,
  ...VERIFY_CANDIDATE_FEATURES,
  ...FAMILY_CANDIDATE_FEATURES,
] as const;

type GlobalFeature = (typeof GLOBAL_FEATURES)[number];
type CandidateFeature = (typeof CANDIDATE_FEATURES)[number];

export const GLOBAL_SIZE = GLOBAL_FEATURES.length;
export const CANDIDATE_SIZE = CANDIDATE_FEATURES.length;

/** The appended groups, in the order their names are spread into the lists above, each with its offsets. */
const GROUPS = [NEEDS, REQUESTS, VERIFY, FAMILY].map((group: FeatureGroup) => {
  const at = CANDIDATE_FEATURES.indexOf(group.candidates[0] as CandidateFeature);
  return {
    group,
    globalAt: group.globals.length > 0 ? GLOBAL_FEATURES.indexOf(group.globals[0] as GlobalFeature) : -1,
    // Built once: a closure per group per step costs a function object (and tsx's name wrapper) each time.
    slotAt: (i: number): number => GLOBAL_SIZE + i * CANDIDATE_SIZE + at,
  };
});

/** The observation length F for K candidate slots. */
export function featureSize(maxCandidates: number): number {
  return GLOBAL_SIZE + maxCandidates * CANDIDATE_SIZE;
}

/** The top-level field of a response path (`items[].id` -> `items`, `a.b` -> `a`). */
function topField(path: string): string {
  for (let i = 0; i < path.length; i++) {
    const ch = path.charCodeAt(i);
    if (ch === 46 || ch === 91) return path.slice(0, i); // "." or "["
  }
  return path;
}

/** `${call}\u0000${top-level field}` of each response source of a candidate: the keys of History's flagged sets. */
function responseKeys(sources: readonly ValueSource[]): string[] {
  const out: string[] = [];
  for (const s of sources) if (s.kind === "response") out.push(`${s.call}\u0000${topField(s.field)}`);
  return out;
}

function fromFlagged(flagged: ReadonlySet<string>, keys: readonly string[]): boolean {
  if (flagged.size === 0) return false;
  for (const k of keys) if (flagged.has(k)) return true;
  return false;
}

const KIND_SLOT: Readonly<Record<Candidate["kind"], number>> = { tool_call: 0, answer: 1, abort: 2, family: 3 };

/**
 * What a candidate's slot holds whatever the history: its id bits (hashed from its kind and operation or name) and
 * the counts of its value sources. Computed once per candidate object (tool calls persist through the memo; a
 * candidate belongs to one episode, whose tools' documented operations do not change).
 */
interface SlotStatics {
  id: number;
  fromResponses: number;
  /** The flagged-set keys of its response sources (fromFlagged). */
  responseKeys: string[];
  /** A tool call's key (tool and canonical arguments) and argument value keys, built when first needed. */
  callKey: string | null;
  argKeys: string[] | null;
}
const slotStatics = new WeakMap<Candidate, SlotStatics>();
function staticsOf(ep: ObservableEpisode, c: Candidate): SlotStatics {
  let x = slotStatics.get(c);
  if (x === undefined) {
    let fromResponses = 0;
    for (const src of c.sources) if (src.kind === "response") fromResponses++;
    const id = hash32(`${c.kind}:${(c.kind === "tool_call" && ep.semanticsOf(c.name)?.operation) || c.name}`);
    slotStatics.set(c, (x = { id, fromResponses, responseKeys: responseKeys(c.sources), callKey: null, argKeys: null }));
  }
  return x;
}

/** A count saturating at `scale`, in [0, 1]. */
function sat(x: number, scale: number): number {
  return Math.min(1, x / scale);
}

/**
 * The observation vector: global features, then CANDIDATE_SIZE features for each of the K slots (zeros for
 * unused slots). Every value is in [0, 1] and a function of the observable episode and the candidate list alone
 * (`memo`, one per env, only saves work). Without `out`, a fresh (zeroed) array.
 */
export function encodeFeatures(
  ep: ObservableEpisode,
  list: readonly Candidate[],
  maxCandidates: number,
  out?: Float32Array,
  memo?: FeatureMemo,
): Float32Array {
  if (out) out.fill(0);
  else out = new Float32Array(featureSize(maxCandidates));
  const visible = visibleByName(ep.tools);
  const h = memo ? memo.history(ep, visible) : history(ep, visible);
  const calls = ep.calls;
  const last = calls.length ? outcomeOf(calls[calls.length - 1]) : 0;
  out[0] = ep.maxSteps > 0 ? ep.step / ep.maxSteps : 0;
  out[1 + last] = 1;
  out[5] = sat(h.errors, 5);
  out[6] = sat(h.contradictedCalls.size, 5);
  const { toolCalls, toolCallLimit } = ep.budget;
  out[7] = toolCallLimit === null || toolCalls === null ? 1 : toolCalls / Math.max(1, toolCallLimit);
  out[8] = ep.maxSteps > 0 ? (ep.maxSteps - ep.step) / ep.maxSteps : 0;
  out[9] = ep.budget.retryLimit === null ? 0 : sat(h.retries, Math.max(1, ep.budget.retryLimit));
  out[10] = list.length / maxCandidates;
  out[11] = ep.maxSteps > 0 ? sat(calls.length, ep.maxSteps) : 0;
  out[12] = calls.length > 0 && keysOf(ep, calls[calls.length - 1]).suspicious.length > 0 ? 1 : 0;
  const failedSigs = memo ? memo.failedSignatures(ep, visible) : failedSignatures(h, ep, visible);
  const lastCall = calls.length ? calls[calls.length - 1] : null;
  // A tool's calls are listed together: its tool-level facts are looked up once per run of its candidates.
  let toolName: string | null = null;
  let toolCount = 0;
  let toolLast: Outcome = 0;
  let alternative = 0;
  let retry = 0;
  for (let i = 0; i < list.length && i < maxCandidates; i++) {
    const c = list[i];
    const o = GLOBAL_SIZE + i * CANDIDATE_SIZE;
    out[o] = 1;
    out[o + 1 + KIND_SLOT[c.kind]] = 1;
    const st = staticsOf(ep, c);
    const id = st.id;
    for (let b = 0; b < 8; b++) out[o + 5 + b] = (id >>> b) & 1;
    if (c.kind === "tool_call") {
      const args = (c.action as { arguments: Record<string, JsonValue> }).arguments;
      if (c.name !== toolName) {
        toolName = c.name;
        toolCount = h.toolCount.get(c.name) ?? 0;
        toolLast = h.toolLast.get(c.name) ?? 0;
        const tool = visible.get(c.name);
        const failed = tool ? failedSigs.get(signature(tool)) : undefined;
        alternative = failed && (failed.size > 1 || !failed.has(c.name)) ? 1 : 0;
        retry = lastCall !== null && lastCall.tool === c.name && !lastCall.ok ? 1 : 0;
      }
      // A call of a tool never called was never made: its key (JSON text of the arguments) is not even needed.
      const key = toolCount > 0 ? (st.callKey ??= callKey(c.name, args)) : null;
      out[o + 13] = sat(toolCount, 4);
      out[o + 14] = key === null ? 0 : sat(h.callCount.get(key) ?? 0, 4);
      out[o + 15 + toolLast] = 1;
      out[o + 19] = alternative;
      if (h.usedInFailedCall.size > 0) {
        st.argKeys ??= Object.values(args).map(valueKey);
        out[o + 21] = st.argKeys.some((v) => h.usedInFailedCall.has(v)) ? 1 : 0;
      }
      out[o + 24] = 1;
      out[o + 25] = retry;
      out[o + 26] = key !== null && h.callFailed.has(key) ? 1 : 0;
      out[o + 27] = key !== null && h.callOk.has(key) ? 1 : 0;
    }
    out[o + 20] = fromFlagged(h.contradicted, st.responseKeys) ? 1 : 0;
    out[o + 28] = fromFlagged(h.suspicious, st.responseKeys) ? 1 : 0;
    const fromResponses = st.fromResponses;
    out[o + 22] = c.sources.length > 0 && fromResponses === 0 ? 1 : 0;
    out[o + 23] = c.sources.length > 0 ? fromResponses / c.sources.length : 0;
  }
  // Then the "still needed" (needs.ts), request (requests.ts), "still to verify" (verify.ts) and family features,
  // in that order, in globals and in every slot.
  for (const { group, globalAt, slotAt } of GROUPS) group.encode(ep, list, maxCandidates, { out, globalAt, slotAt });
  return out;
}
