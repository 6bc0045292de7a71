/**
 * Plain-JSON snapshots of a running PlanBench-XL episode, for `getState` / `setState` / `fork`.
 *
 * Why a snapshot and not a replay log: a restored env must be able to continue from a state that was edited or
 * stored elsewhere, and a snapshot costs O(state) instead of O(steps). Why the PyValue tagging: the runtime tells
 * Python floats from ints (`129.0` vs `129`), which plain JSON cannot; a float is written `{"$f": value}` (non-finite
 * and negative-zero values as strings), an int beyond 2^53 `{"$i": "digits"}`, and an object that happens to use a
 * `$f` / `$n` / `$i` / `$esc` key is wrapped in `{"$esc": {...}}`, so decoding is unambiguous.
 *
 * There is no Python-random state to carry: every CPython `Random` the runtime uses (blocker tie-breaks, noisy
 * allocation, list shuffles) is created fresh from hashes of the task, query and request, never kept across steps.
 */
import { PyFloat, setOwn } from "../compat/pyvalue.js";
import type { ToolRecord } from "../releaseFormat.js";
import type { ExecutionResult } from "./executor.js";
import type { PlanBenchEpisode, StepOutcome } from "./runtime.js";
import type { EpisodeResult, TraceEntry } from "./trace.js";

/** Any JSON value (local alias: this module must not depend on the core). */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function encodeFloat(x: number): Json {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (Object.is(x, -0)) return "-0";
  return x;
}

function decodeFloat(x: Json): number {
  if (x === "nan") return NaN;
  if (x === "inf") return Infinity;
  if (x === "-inf") return -Infinity;
  if (x === "-0") return -0;
  if (typeof x !== "number") throw new Error(`planbench snapshot: bad float ${JSON.stringify(x)}`);
  return x;
}

/** Encodes any runtime value (PyValues, trace entries) into tagged plain JSON; `undefined` fields are dropped. */
export function encodeValue(v: unknown): Json {
  if (v instanceof PyFloat) return { $f: encodeFloat(v.value) };
  if (typeof v === "bigint") return { $i: v.toString() };
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") {
    if (!Number.isFinite(v) || Object.is(v, -0)) return { $n: encodeFloat(v) };
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => encodeValue(x === undefined ? null : x));
  if (typeof v === "object") {
    const out: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) setOwn(out, k, encodeValue(x));
    return "$f" in out || "$n" in out || "$i" in out || "$esc" in out ? { $esc: out } : out;
  }
  throw new Error(`planbench snapshot: cannot encode a ${typeof v}`);
}

export function decodeValue(v: Json): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(decodeValue);
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === "$f") return new PyFloat(decodeFloat(v["$f"]!));
  if (keys.length === 1 && keys[0] === "$n") return decodeFloat(v["$n"]!);
  if (keys.length === 1 && keys[0] === "$i") return BigInt(String(v["$i"]));
  const inner = keys.length === 1 && keys[0] === "$esc" ? (v["$esc"] as { [k: string]: Json }) : v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(inner)) setOwn(out, k, decodeValue(x));
  return out;
}

const storeToJson = (m: ReadonlyMap<string, ReadonlySet<string>>): Json => [...m].map(([k, s]) => [k, [...s]]);
function storeFromJson(target: Map<string, Set<string>>, j: Json): void {
  target.clear();
  for (const [k, vs] of j as Array<[string, string[]]>) target.set(k, new Set(vs));
}

/** Everything of a `PlanBenchEpisode` that changes while it runs (insertion orders kept: they reach `info`). */
export function episodeToJson(ep: PlanBenchEpisode): Json {
  const { result } = ep;
  return {
    counters: {
      stepCount: ep.stepCount,
      labelErrors: ep.labelErrors,
      retrievalErrors: ep.retrievalErrors,
      callErrors: ep.callErrors,
      retrievalAttempts: ep.retrievalAttempts,
      retrievalExecs: ep.retrievalExecs,
      callAttempts: ep.callAttempts,
      callExecs: ep.callExecs,
      feedbackCount: ep.feedbackCount,
    },
    currentDatatypes: [...ep.currentDatatypes],
    trusted: storeToJson(ep.trusted),
    untrusted: storeToJson(ep.untrusted),
    untrustedSources: [...ep.untrustedSources].map(([dt, m]) => [dt, [...m].map(([v, s]) => [v, [...s]])]),
    available: ep.available.slice(),
    discovered: [...ep.discovered],
    trace: encodeValue(ep.trace),
    // The result shares the trace array; it is re-linked on restore.
    result: result ? encodeValue({ ...result, trace: null }) : null,
    lastPreShuffle: ep.lastPreShuffle.map((t) => t.name),
    // Only with tool ids in use, so snapshots without them keep their exact shape.
    ...(ep.toolNameToId.size > 0 ? { toolIds: [...ep.toolNameToId] } : {}),
  };
}

export function episodeFromJson(ep: PlanBenchEpisode, j: Json): void {
  const s = j as { [k: string]: Json };
  const c = s["counters"] as Record<string, number>;
  ep.stepCount = c["stepCount"]!;
  ep.labelErrors = c["labelErrors"]!;
  ep.retrievalErrors = c["retrievalErrors"]!;
  ep.callErrors = c["callErrors"]!;
  ep.retrievalAttempts = c["retrievalAttempts"]!;
  ep.retrievalExecs = c["retrievalExecs"]!;
  ep.callAttempts = c["callAttempts"]!;
  ep.callExecs = c["callExecs"]!;
  ep.feedbackCount = c["feedbackCount"]!;
  ep.currentDatatypes.clear();
  for (const d of s["currentDatatypes"] as string[]) ep.currentDatatypes.add(d);
  storeFromJson(ep.trusted, s["trusted"]!);
  storeFromJson(ep.untrusted, s["untrusted"]!);
  ep.untrustedSources.clear();
  for (const [dt, pairs] of s["untrustedSources"] as Array<[string, Array<[string, string[]]>]>) {
    ep.untrustedSources.set(dt, new Map(pairs.map(([v, srcs]) => [v, new Set(srcs)])));
  }
  ep.available = (s["available"] as string[]).slice();
  ep.discovered.clear();
  for (const n of s["discovered"] as string[]) ep.discovered.add(n);
  ep.trace.splice(0, ep.trace.length, ...(decodeValue(s["trace"]!) as TraceEntry[]));
  const r = s["result"];
  ep.result = r === null || r === undefined ? null : ({ ...(decodeValue(r) as EpisodeResult), trace: ep.trace } as EpisodeResult);
  ep.lastPreShuffle = (s["lastPreShuffle"] as string[]).map((n) => toolOf(ep, n));
  ep.toolNameToId.clear();
  ep.toolIdToName.clear();
  for (const [name, id] of (s["toolIds"] ?? []) as Array<[string, string]>) {
    ep.toolNameToId.set(name, id);
    ep.toolIdToName.set(id, name);
  }
}

function toolOf(ep: PlanBenchEpisode, name: string): ToolRecord {
  const t = ep.world.release.toolByName.get(name);
  if (!t) throw new Error(`planbench snapshot: unknown tool "${name}" (state from another world?)`);
  return t;
}

/** The last step's outcome; its entry is always the trace's last entry (the runtime pushes every entry). */
export function outcomeToJson(ep: PlanBenchEpisode, o: StepOutcome | null): Json {
  if (!o) return null;
  const last = ep.trace.length - 1;
  return {
    entry: last >= 0 && ep.trace[last] === o.entry ? { traceIndex: last } : { value: encodeValue(o.entry) },
    feedback: o.feedback,
    done: o.done,
    listed: o.listed ? o.listed.map((t) => t.name) : null,
    execution: o.execution ? encodeValue(o.execution) : null,
  };
}

export function outcomeFromJson(ep: PlanBenchEpisode, j: Json): StepOutcome | null {
  if (j === null) return null;
  const s = j as { [k: string]: Json };
  const ref = s["entry"] as { traceIndex?: number; value?: Json };
  const entry = ref.traceIndex !== undefined ? ep.trace[ref.traceIndex]! : (decodeValue(ref.value!) as TraceEntry);
  const out: StepOutcome = { entry, feedback: s["feedback"] as string | null, done: s["done"] as boolean };
  if (s["listed"] !== null) out.listed = (s["listed"] as string[]).map((n) => toolOf(ep, n));
  if (s["execution"] !== null) out.execution = decodeValue(s["execution"]!) as ExecutionResult;
  return out;
}
