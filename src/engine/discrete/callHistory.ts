/**
 * The observable call history as facts the discrete features read: per tool and per call outcomes, retries,
 * contradicted and suspicious response fields. `FeatureMemo` extends them call by call across steps.
 */
import { type JsonValue, stableStringify } from "../../core/json.js";
import { valueKey } from "./candidates.js";
import { EpisodeCursor, type ObservableEpisode, type SeenCall, type SeenTool } from "./source.js";

export type Outcome = 0 | 1 | 2 | 3; // none, ok, transient-looking error, other error

const TRANSIENT_CODE = /timeout|timed_out|unavailable|rate_?limit|too_many|temporar|overload|busy|retry|throttl/i;

/** An HTTP-like status or a short error code found in an error body (any of the providers' error conventions). */
function looksTransient(v: JsonValue, depth: number): boolean {
  if (depth > 3 || v === null || typeof v !== "object") return false;
  if (Array.isArray(v)) return v.some((x) => looksTransient(x, depth + 1));
  for (const [k, x] of Object.entries(v)) {
    const key = k.toLowerCase();
    if (key === "retry_after" || key === "retryafter" || key === "retry-after") return true;
    if ((key === "status" || key === "statuscode" || key === "status_code" || key === "code") && typeof x === "number") {
      if (x === 408 || x === 425 || x === 429 || (x >= 500 && x <= 599)) return true;
    }
    const codeLike = key === "code" || key === "type" || key === "error";
    if (codeLike && typeof x === "string" && x.length <= 64 && TRANSIENT_CODE.test(x)) return true;
    if (looksTransient(x, depth + 1)) return true;
  }
  return false;
}

export function outcomeOf(c: SeenCall): Outcome {
  if (c.ok) return 1;
  return looksTransient(c.response, 0) ? 2 : 3;
}

const signatures = new WeakMap<object, string>();
/** Tools with the same documented types (or, without types, the same parameter schema) are alternatives. */
export function signature(t: SeenTool): string {
  const cacheKey = (t.semantics ?? t.parameters) as object;
  let sig = signatures.get(cacheKey);
  if (sig === undefined) signatures.set(cacheKey, (sig = computeSignature(t)));
  return sig;
}

function computeSignature(t: SeenTool): string {
  const s = t.semantics;
  if (s && (s.outputs || s.parameters)) {
    const outs = Object.values(s.outputs ?? {})
      .sort()
      .join(",");
    const ins = Object.values(s.parameters ?? {})
      .sort()
      .join(",");
    return `o:${outs}|p:${ins}`;
  }
  return `s:${stableStringify(t.parameters as unknown as JsonValue)}`;
}

/** Per-episode facts of the observable history; a FeatureMemo extends them call by call. */
export interface History {
  toolCount: Map<string, number>;
  toolLast: Map<string, Outcome>;
  callCount: Map<string, number>;
  callOk: Set<string>;
  callFailed: Set<string>;
  /** `${call index}\u0000${top-level field}` of responses another response contradicts. */
  contradicted: Set<string>;
  /** The calls with a contradicted field (global feature contradictions_seen). */
  contradictedCalls: Set<number>;
  /** `${call index}\u0000${top-level field}` of responses whose value looked implausible. */
  suspicious: Set<string>;
  usedInFailedCall: Set<string>;
  errors: number;
  retries: number;
  /** Per (tool signature, arguments, field): the first value seen, every source, and whether a value differed. */
  values: Map<string, { value: string; sources: { source: string; call: number }[]; contradicted: boolean }>;
  previous: SeenCall | null;
}

function emptyHistory(): History {
  return {
    toolCount: new Map(),
    toolLast: new Map(),
    callCount: new Map(),
    callOk: new Set(),
    callFailed: new Set(),
    contradicted: new Set(),
    contradictedCalls: new Set(),
    suspicious: new Set(),
    usedInFailedCall: new Set(),
    errors: 0,
    retries: 0,
    values: new Map(),
    previous: null,
  };
}

export const callKey = (tool: string, args: JsonValue): string => `${tool}\u0000${stableStringify(args)}`;

/** Per-call text keys, computed once per call (the same SeenCall objects come back every step). */
interface CallKeys {
  call: string;
  args: string;
  argValues: string[];
  fields: [field: string, value: string][];
  /** Top-level response fields holding a value the family's plausibility check flags. */
  suspicious: string[];
}
const callKeys = new WeakMap<SeenCall, CallKeys>();

/** Fields of an ok response with a suspicious value anywhere below them (scalars up to depth 3). */
function suspiciousFields(ep: ObservableEpisode, c: SeenCall): string[] {
  const r = c.response;
  if (!c.ok || r === null || typeof r !== "object" || Array.isArray(r)) return [];
  const outputs = ep.semanticsOf(c.tool)?.outputs;
  const out: string[] = [];
  const bad = (key: string, path: string, v: JsonValue, depth: number): boolean => {
    if (v === null || depth > 3) return false;
    if (Array.isArray(v)) return v.some((x) => bad(key, `${path}[]`, x, depth + 1));
    if (typeof v === "object") return Object.entries(v).some(([k, x]) => bad(k, `${path}.${k}`, x, depth + 1));
    return ep.suspicious(key, v, outputs?.[path] ?? null);
  };
  for (const [field, v] of Object.entries(r)) if (bad(field, field, v, 0)) out.push(field);
  return out;
}

export function keysOf(ep: ObservableEpisode, c: SeenCall): CallKeys {
  let k = callKeys.get(c);
  if (!k) {
    const args = stableStringify(c.arguments);
    const r = c.response;
    const isRecord = c.ok && r !== null && typeof r === "object" && !Array.isArray(r);
    const fields: [string, string][] = isRecord ? Object.entries(r).map(([f, v]) => [f, valueKey(v)]) : [];
    const call = `${c.tool}\u0000${args}`;
    k = { call, args, argValues: Object.values(c.arguments).map(valueKey), fields, suspicious: suspiciousFields(ep, c) };
    callKeys.set(c, k);
  }
  return k;
}

/** The signature of a tool the episode defines (visible: as listed; else by its documented types), or null. */
function signatureOf(ep: ObservableEpisode, visible: ReadonlyMap<string, SeenTool>, name: string): string | null {
  const t = visible.get(name);
  if (t) return signature(t);
  const s = ep.semanticsOf(name);
  return s ? signature({ name, parameters: {}, semantics: s }) : null;
}

function flagContradicted(h: History, entry: { source: string; call: number }): void {
  h.contradicted.add(entry.source);
  h.contradictedCalls.add(entry.call);
}

/** Adds call `i` (`c`) to the history facts. */
function addCall(h: History, ep: ObservableEpisode, visible: ReadonlyMap<string, SeenTool>, c: SeenCall, i: number): void {
  const o = outcomeOf(c);
  const k = keysOf(ep, c);
  for (const f of k.suspicious) h.suspicious.add(`${i}\u0000${f}`);
  const key = k.call;
  h.toolCount.set(c.tool, (h.toolCount.get(c.tool) ?? 0) + 1);
  h.toolLast.set(c.tool, o);
  h.callCount.set(key, (h.callCount.get(key) ?? 0) + 1);
  if (o === 1) h.callOk.add(key);
  else {
    h.errors += 1;
    h.callFailed.add(key);
  }
  const prev = h.previous;
  if (prev && prev.tool === c.tool && !prev.ok) h.retries += 1;
  h.previous = c;
  if (o === 3) for (const v of k.argValues) h.usedInFailedCall.add(v);
  if (k.fields.length === 0) return;
  // Values seen per (tool signature, arguments, field): more than one distinct value means a contradiction, which
  // flags every response that gave a value for that slot, earlier ones included.
  const sig = signatureOf(ep, visible, c.tool) ?? c.tool;
  const outputs = ep.semanticsOf(c.tool)?.outputs;
  for (const [field, value] of k.fields) {
    const slot = `${sig}\u0000${k.args}\u0000${outputs?.[field] ?? field}`;
    const entry = { source: `${i}\u0000${field}`, call: i };
    const seen = h.values.get(slot);
    if (!seen) h.values.set(slot, { value, sources: [entry], contradicted: false });
    else {
      seen.sources.push(entry);
      if (seen.contradicted) flagContradicted(h, entry);
      else if (seen.value !== value) {
        seen.contradicted = true;
        for (const e of seen.sources) flagContradicted(h, e);
      }
    }
  }
}

/**
 * What one env's features remember from step to step (an optional argument of `encodeFeatures`: results are the
 * same with or without it): the history facts, extended by the calls the last step added instead of rebuilt.
 */
export class FeatureMemo {
  private readonly cursor = new EpisodeCursor();
  private facts = emptyHistory();
  private failed: Map<string, Set<string>> | null = null;

  history(ep: ObservableEpisode, visible: ReadonlyMap<string, SeenTool>): History {
    const { from, restarted } = this.cursor.advance(ep);
    if (restarted) this.facts = emptyHistory();
    // The failed signatures follow from the facts and the visible tools, which the cursor saw unchanged unless it
    // restarted: recomputed only when a call was added.
    if (restarted || from < ep.calls.length) this.failed = null;
    for (let i = from; i < ep.calls.length; i++) addCall(this.facts, ep, visible, ep.calls[i], i);
    return this.facts;
  }

  failedSignatures(ep: ObservableEpisode, visible: ReadonlyMap<string, SeenTool>): Map<string, Set<string>> {
    this.failed ??= failedSignatures(this.facts, ep, visible);
    return this.failed;
  }
}

export function history(ep: ObservableEpisode, visible: ReadonlyMap<string, SeenTool>): History {
  const h = emptyHistory();
  ep.calls.forEach((c, i) => addCall(h, ep, visible, c, i));
  return h;
}

/** Per signature, the visible-or-defined tools of that signature whose last call failed. */
export function failedSignatures(h: History, ep: ObservableEpisode, visible: ReadonlyMap<string, SeenTool>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [tool, o] of h.toolLast) {
    if (o === 1) continue;
    const sig = signatureOf(ep, visible, tool);
    if (sig === null) continue;
    const set = out.get(sig) ?? new Set<string>();
    set.add(tool);
    out.set(sig, set);
  }
  return out;
}
