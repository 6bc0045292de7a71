/**
 * "Still to verify" features: whether a write the agent made was read back, and whether a response was consistent in
 * itself. The trained Failing Tools policy stopped right after a write that had failed silently (a receipt, then
 * nothing stored) or had stored the wrong record: nothing in the other features said that a write is confirmed only
 * by reading it back (docs/TRAINING.md). Everything here follows from the tools' documentation (`semantics.writes`,
 * `semantics.confirms`), the task's parameters, the calls the agent made and the responses it got, and the family's
 * observable consistency check (`ToolEnvConfig.inconsistentResponse`) — never from hidden truth.
 *
 * A write (a successful call of a tool that documents `writes`) is identified by its receipt: the id fields of its
 * response (`id`, `*_id`) whose values the agent did not send. A later call of a tool of the same service that
 * documents `confirms` for the write's operation is its read-back: when it succeeds and its response holds the
 * receipt, the write is confirmed; when it names the receipt and fails for a reason that is not transient-looking,
 * or succeeds without it, the write did not persist. A write tool that names an earlier write's receipt undoes it (a
 * cancellation). The read-back record (or the receipt) contradicts the task when a field the task states has another
 * value there. Last, whether a tool's documentation itself warns that it is not authoritative (`semantics.caveat`).
 */
import type { JsonObject, JsonValue } from "../../core/json.js";
import { type Candidate, valueKey } from "./candidates.js";
import type { ObservableEpisode, SeenCall } from "./source.js";
import type { FeatureGroup, FeatureTarget } from "./featureGroup.js";

/** Global features, appended after the "needs" globals (docs/DISCRETE.md documents them). */
export const VERIFY_GLOBAL_FEATURES = [
  "writes_done",
  "write_unverified",
  "write_not_persisted",
  "write_contradicts_task",
  "write_undone",
  "write_confirmed",
  "last_response_inconsistent",
  "inconsistent_responses_seen",
  "family_action_since_write",
] as const;

/** Per-candidate features, appended after the "needs" ones. */
export const VERIFY_CANDIDATE_FEATURES = [
  "is_write",
  "would_read_back_write",
  "undoes_write",
  "repeats_write",
  "answer_while_write_unsettled",
  "argument_from_inconsistent_response",
  "documented_caveat",
  "id_argument_unseen",
  "write_on_other_service",
] as const;

type WriteStatus = "unverified" | "confirmed" | "missing" | "undone";

interface Write {
  /** The index of its call. */
  call: number;
  op: string;
  label: string | undefined;
  /** Receipt fields and their value keys. */
  receipt: Map<string, string>;
  status: WriteStatus;
  contradicts: boolean;
}

/** What the history says about writes and consistency (exported for tests). */
export interface Verification {
  writes: readonly Write[];
  /** Indices of calls whose response the family's consistency check flags. */
  inconsistent: ReadonlySet<number>;
}

const ID_FIELD = /(^|_)id$/i;

function isRecord(v: JsonValue): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A failure that says the thing asked for is not there (not a transient outage): 4xx other than 408/425/429. */
function definitiveFailure(c: SeenCall): boolean {
  const err = isRecord(c.response) ? c.response["error"] : undefined;
  const status = isRecord(err ?? null) ? (err as JsonObject)["status"] : undefined;
  return typeof status === "number" && status >= 400 && status < 500 && status !== 408 && status !== 425 && status !== 429;
}

/** Value keys of the scalar arguments (top level and one level down: an item's fields). */
function argumentKeys(args: JsonObject): Set<string> {
  const out = new Set<string>();
  const add = (v: JsonValue, depth: number): void => {
    if (v === null) return;
    if (typeof v !== "object") out.add(valueKey(v));
    else if (depth < 2) for (const x of Array.isArray(v) ? v : Object.values(v)) add(x, depth + 1);
  };
  for (const v of Object.values(args)) add(v, 0);
  return out;
}

/** The first record (depth first, up to depth 4) holding one of `values` under one of `fields`. */
function recordHolding(v: JsonValue, receipt: ReadonlyMap<string, string>, depth = 0): JsonObject | null {
  if (v === null || typeof v !== "object" || depth > 4) return null;
  if (!Array.isArray(v)) for (const [f, key] of receipt) if (f in v && valueKey(v[f]) === key) return v;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const r = recordHolding(x, receipt, depth + 1);
    if (r) return r;
  }
  return null;
}

function fold(v: JsonValue): string {
  return typeof v === "string" ? v.trim().toLowerCase() : valueKey(v);
}

/** A field the task states (a scalar parameter of that name) holds another value in `record` (first occurrence). */
function contradictsTask(ep: ObservableEpisode, record: JsonValue): boolean {
  const stated = new Map<string, Set<string>>();
  for (const p of ep.parameters) {
    if (p.target !== undefined || p.value === undefined || p.value === null || typeof p.value === "object") continue;
    const set = stated.get(p.name) ?? new Set<string>();
    set.add(fold(p.value));
    stated.set(p.name, set);
  }
  if (stated.size === 0) return false;
  const found = new Map<string, JsonValue>();
  const walk = (v: JsonValue, depth: number): void => {
    if (v === null || typeof v !== "object" || depth > 4) return;
    if (!Array.isArray(v)) for (const [k, x] of Object.entries(v)) if (stated.has(k) && !found.has(k)) found.set(k, x);
    for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x, depth + 1);
  };
  walk(record, 0);
  for (const [k, v] of found) if (v !== null && typeof v !== "object" && !stated.get(k)!.has(fold(v))) return true;
  return false;
}

const NOTHING: Verification = { writes: [], inconsistent: new Set() };

/** The writes and inconsistent responses of the observable history. */
export function verificationOf(ep: ObservableEpisode): Verification {
  if (ep.calls.length === 0) return NOTHING;
  const writes: Write[] = [];
  const inconsistent = new Set<number>();
  const taskValues = new Set<string>();
  for (const p of ep.parameters) if (p.value !== undefined && p.target === undefined) taskValues.add(valueKey(p.value));
  ep.calls.forEach((c, i) => {
    if (c.ok && ep.inconsistent(c.response)) inconsistent.add(i);
    const sem = ep.semanticsOf(c.tool);
    if (!sem || (!sem.writes && !sem.confirms)) return;
    const args = argumentKeys(c.arguments);
    const mine = writes.filter((w) => w.label === sem.label && w.status !== "undone");
    const named = mine.filter((w) => [...w.receipt.values()].some((k) => args.has(k)));
    if (sem.writes) {
      if (named.length > 0) {
        if (c.ok) for (const w of named) w.status = "undone";
        return;
      }
      if (!c.ok) return;
      const receipt = new Map<string, string>();
      if (isRecord(c.response)) {
        for (const [f, v] of Object.entries(c.response)) {
          if (!ID_FIELD.test(f) || v === null || typeof v === "object") continue;
          const key = valueKey(v);
          if (!args.has(key) && !taskValues.has(key)) receipt.set(f, key);
        }
      }
      writes.push({
        call: i,
        op: sem.operation ?? c.tool,
        label: sem.label,
        receipt,
        status: "unverified",
        contradicts: contradictsTask(ep, c.response),
      });
      return;
    }
    const confirms = sem.confirms ?? [];
    for (const w of mine) {
      if (!confirms.includes(w.op) || w.status === "confirmed") continue;
      const byReceipt = named.includes(w);
      if (!c.ok) {
        if (byReceipt && definitiveFailure(c)) w.status = "missing";
        continue;
      }
      if (w.receipt.size === 0) {
        w.status = "confirmed";
        continue;
      }
      const rec = recordHolding(c.response, w.receipt);
      if (rec) {
        w.status = "confirmed";
        w.contradicts = w.contradicts || contradictsTask(ep, rec);
      } else w.status = "missing";
    }
  });
  return { writes, inconsistent };
}

const callValues = new WeakMap<SeenCall, readonly string[]>();
/** Value keys of every scalar a successful response returned (up to depth 4), once per call. */
function valuesOf(c: SeenCall): readonly string[] {
  let keys = callValues.get(c);
  if (!keys) {
    const found: string[] = [];
    if (c.ok) collectValues(c.response, 0, found);
    callValues.set(c, (keys = found));
  }
  return keys;
}

function collectValues(v: JsonValue, depth: number, found: string[]): void {
  if (v === null || depth > 4) return;
  if (typeof v !== "object") found.push(valueKey(v));
  else for (const x of Array.isArray(v) ? v : Object.values(v)) collectValues(x, depth + 1, found);
}

/**
 * The union of valuesOf over the calls up to and including the keyed one. A SeenCall belongs to one history after
 * the same predecessors (source.ts), so the set is extended in place when the next step's last call follows the
 * keyed one, and moved to the new key: one live set per episode instead of a rebuild per step.
 */
const returnedUpTo = new WeakMap<SeenCall, { count: number; values: Set<string> }>();
function responseValues(ep: ObservableEpisode): Set<string> {
  const calls = ep.calls;
  const n = calls.length;
  if (n === 0) return new Set();
  const hit = returnedUpTo.get(calls[n - 1]);
  if (hit && hit.count === n) return hit.values;
  const prev = n > 1 ? returnedUpTo.get(calls[n - 2]) : undefined;
  let entry: { count: number; values: Set<string> };
  if (prev && prev.count === n - 1) {
    returnedUpTo.delete(calls[n - 2]);
    entry = prev;
    for (const k of valuesOf(calls[n - 1])) entry.values.add(k);
    entry.count = n;
  } else {
    entry = { count: n, values: new Set() };
    for (const c of calls) for (const k of valuesOf(c)) entry.values.add(k);
  }
  returnedUpTo.set(calls[n - 1], entry);
  return entry.values;
}

/** A visible tool of the write's service reads it back. */
function verifiable(ep: ObservableEpisode, w: Write): boolean {
  return ep.tools.some((t) => t.semantics?.label === w.label && (t.semantics?.confirms ?? []).includes(w.op));
}

/**
 * What a tool-call candidate's verify features read of its own arguments, once per candidate object (its arguments
 * never change; tool calls persist from step to step through the candidate memo).
 */
interface CallStatics {
  arguments: JsonObject;
  /** Value keys of its scalar id-like arguments (`id`, `*_id`), in argument order. */
  idValues: string[];
  /** argumentKeys of its arguments, built when first needed (only writes and read-backs ask). */
  keys: Set<string> | null;
}
const callStatics = new WeakMap<Candidate, CallStatics>();
function staticsOf(c: Candidate): CallStatics {
  let x = callStatics.get(c);
  if (x === undefined) {
    const args = (c.action as { arguments: JsonObject }).arguments;
    const idValues: string[] = [];
    for (const [name, value] of Object.entries(args)) {
      if (ID_FIELD.test(name) && value !== null && typeof value !== "object") idValues.push(valueKey(value));
    }
    callStatics.set(c, (x = { arguments: args, idValues, keys: null }));
  }
  return x;
}

function argsOf(st: CallStatics): Set<string> {
  st.keys ??= argumentKeys(st.arguments);
  return st.keys;
}

function namesReceipt(w: Write, args: ReadonlySet<string>): boolean {
  for (const k of w.receipt.values()) if (args.has(k)) return true;
  return false;
}

/**
 * Writes the features: globals at `globalAt`, each candidate slot's at `slotAt(i)`. Values in [0, 1]. The write
 * features read the latest write (the one a policy acts on: an earlier one was confirmed, undone or redone).
 */
function encodeVerify(ep: ObservableEpisode, list: readonly Candidate[], maxCandidates: number, at: FeatureTarget): void {
  const { out, globalAt, slotAt } = at;
  const v = verificationOf(ep);
  const latest = v.writes.length > 0 ? v.writes[v.writes.length - 1] : null;
  const unverified = latest !== null && latest.status === "unverified" && verifiable(ep, latest);
  const open = latest !== null && latest.status !== "undone" && latest.status !== "confirmed";
  const unsettled = latest !== null && latest.status !== "undone" && (unverified || latest.status === "missing" || latest.contradicts);
  out[globalAt] = Math.min(1, v.writes.length / 2);
  out[globalAt + 1] = unverified ? 1 : 0;
  out[globalAt + 2] = latest?.status === "missing" ? 1 : 0;
  out[globalAt + 3] = latest !== null && latest.status !== "undone" && latest.contradicts ? 1 : 0;
  out[globalAt + 4] = latest?.status === "undone" ? 1 : 0;
  out[globalAt + 5] = latest?.status === "confirmed" && !latest.contradicts ? 1 : 0;
  out[globalAt + 6] = v.inconsistent.has(ep.calls.length - 1) ? 1 : 0;
  out[globalAt + 7] = Math.min(1, v.inconsistent.size / 3);
  // A question to the user (any family action) after the latest write: Failing Tools asks before moving a write.
  out[globalAt + 8] = latest !== null && ep.actions.some((a) => a.afterCalls > latest.call) ? 1 : 0;
  let returned: Set<string> | null = null;
  for (let i = 0; i < list.length && i < maxCandidates; i++) {
    const c = list[i];
    const o = slotAt(i);
    if (c.kind === "answer") out[o + 4] = unsettled ? 1 : 0;
    if (v.inconsistent.size > 0 && c.sources.some((s) => s.kind === "response" && v.inconsistent.has(s.call))) out[o + 5] = 1;
    if (c.kind !== "tool_call") continue;
    const sem = ep.semanticsOf(c.name);
    if (!sem) continue;
    if (sem.caveat) out[o + 6] = 1;
    const st = staticsOf(c);
    if (st.idValues.length > 0) {
      returned ??= responseValues(ep);
      for (const k of st.idValues) {
        if (!returned.has(k)) {
          out[o + 7] = 1;
          break;
        }
      }
    }
    if (sem.writes) {
      out[o] = 1;
      const same = v.writes.filter((w) => w.label === sem.label);
      if (same.some((w) => w.status !== "undone" && namesReceipt(w, argsOf(st)))) out[o + 2] = 1;
      else if (v.writes.some((w) => w.op === (sem.operation ?? c.name))) out[o + 3] = 1;
      if (latest !== null && latest.label !== sem.label) out[o + 8] = 1;
    }
    if (latest && open && latest.label === sem.label && (sem.confirms ?? []).includes(latest.op)) {
      // A read-back names the receipt, or takes no receipt field at all (a list of the service's records).
      const tool = ep.tools.find((t) => t.name === c.name);
      const takesReceipt = [...latest.receipt.keys()].some((f) => tool?.parameters.properties?.[f] !== undefined);
      if (namesReceipt(latest, argsOf(st)) || !takesReceipt) out[o + 1] = 1;
    }
  }
}

/** The group as features.ts appends it. */
export const VERIFY: FeatureGroup = { globals: VERIFY_GLOBAL_FEATURES, candidates: VERIFY_CANDIDATE_FEATURES, encode: encodeVerify };
