/**
 * Perturbation profiles. Each (task, P) carries a deterministic profile: per slot, the victim position on s*,
 * the alternative group the fault binds to (the first member the agent calls becomes the victim; no other
 * member is perturbed), persistence (transient = first invocation only; permanent = every invocation) and the
 * synthetic payload: an HTTP-style error in the tool's own format (explicit) or a type-correct but semantically
 * wrong value (implicit: physics violation, temporal contradiction, tool leakage, unit/scale slip). Implicit payloads
 * satisfy the field's schema (pattern, enum, format, bounds) except physics violations, which may cross a declared
 * bound on purpose.
 */
import { Memo } from "./task/memo.js";
import type { RngLike, Task } from "./task/model.js";
import {
  classesOf,
  consumedField,
  type CorruptionClass,
  familyClasses,
  familyField,
  stratumCandidates,
  victimCandidates,
} from "./task/strata.js";
import type { Perturbation } from "./tasks.js";
import { type VersionProfile, versionProfile } from "./version.js";
import { corpus } from "./world/corpus.js";
import { code, fnv1a, sub } from "./world/hash.js";
import { fieldType, type Scalar, TIME } from "./world/types.js";

export type { CorruptionClass } from "./task/strata.js";
export type Visibility = "explicit" | "implicit";
export type Persistence = "transient" | "permanent";

export interface ExplicitPayload {
  readonly status: number;
  readonly message: string;
  /** Seconds, for 429 responses. */
  readonly retryAfter?: number;
}

/**
 * Temporal contradictions: a timestamp before the request (the current date of the prompt), or a window that ends
 * before it starts (the start moved past the `end_datetime` field of the same response).
 */
export type TemporalVariant = "before_request" | "end_before_start";

export interface CorruptionSpec {
  /** Output field replaced (the one the task binds downstream, else the first). */
  readonly field: string;
  readonly type: string;
  readonly cls: CorruptionClass;
  /** Seed of the corrupted value (the value itself depends on the victim's clean output). */
  readonly salt: number;
  /** Which contradiction a temporal corruption makes (absent for the other classes). */
  readonly temporal?: TemporalVariant;
  /**
   * v1 leakage into free text: true = another tool's well-formed output (an id of its format, a record line), false =
   * internal debug text. v0 leaves it out and splits ids by hash (a third foreign ids, the rest debug text).
   */
  readonly foreign?: boolean;
}

export interface SlotFault {
  readonly id: string;
  readonly slot: number;
  /** Alternative group (capability id) the fault is bound to. */
  readonly group: string;
  /** Position on s* that hosts the group in this task. */
  readonly position: number;
  /** Members of the group exposed by the task (the candidates to become victim). */
  readonly members: readonly string[];
  readonly visibility: Visibility;
  readonly persistence: Persistence;
  readonly explicit?: ExplicitPayload;
  /** Corruption per member (output fields differ in name across groups only, so one spec per group). */
  readonly corruption?: CorruptionSpec;
}

export interface FaultProfile {
  readonly perturbation: Perturbation;
  readonly faults: readonly SlotFault[];
}

export const MODE: Record<Exclude<Perturbation, "NP">, { visibility: Visibility; persistence: Persistence }> = {
  P1: { visibility: "explicit", persistence: "transient" },
  P2: { visibility: "explicit", persistence: "permanent" },
  P3: { visibility: "implicit", persistence: "transient" },
  P4: { visibility: "implicit", persistence: "permanent" },
};

const TRANSIENT_ERRORS: readonly ExplicitPayload[] = [
  { status: 429, message: "Rate limit exceeded. Retry after the indicated delay.", retryAfter: 2 },
  { status: 503, message: "Service temporarily unavailable. Please retry." },
  { status: 504, message: "Upstream request timed out after 30000 ms." },
  { status: 500, message: "Internal server error (request could not be completed)." },
];
const PERMANENT_ERRORS: readonly ExplicitPayload[] = [
  { status: 404, message: "Endpoint not found: this API version has been retired." },
  { status: 503, message: "Service unavailable: provider outage, no ETA." },
  { status: 500, message: "Internal server error: backend misconfigured." },
];

/**
 * v1: one pool for transient and permanent faults. None of these texts says whether the outage will last, so an agent
 * learns permanence by retrying (a permanent 429 is an exhausted quota, a permanent 503 an outage).
 */
const SHARED_ERRORS: readonly ExplicitPayload[] = [
  { status: 429, message: "Rate limit exceeded. Retry after the indicated delay.", retryAfter: 2 },
  { status: 503, message: "Service unavailable." },
  { status: 504, message: "Upstream request timed out after 30000 ms." },
  { status: 500, message: "Internal server error." },
  { status: 502, message: "Bad gateway: the upstream service returned an invalid response." },
];

/** Where slot `k`'s fault may land, and what each candidate's corruption replaces (filled as positions are drawn). */
interface VictimSite {
  readonly k: number;
  readonly candidates: readonly number[];
  readonly fields: Map<number, { readonly field: string; readonly type: string; readonly classes: readonly CorruptionClass[] }>;
}
const victimSiteMemo = new Memo<Task, readonly VictimSite[]>("victimSites");
/**
 * The victim candidates of each slot (pure functions of the task): the five instances of a canonical base task draw
 * from the same lists, so they are built once per task rather than once per instance.
 */
function victimSites(task: Task): readonly VictimSite[] {
  let sites = victimSiteMemo.get(task);
  if (!sites) {
    sites = task.slots.map((s, k): VictimSite => {
      const stratum = task.strata?.[k];
      const fitting = stratum ? stratumCandidates(task, s.slot, stratum) : [];
      return { k, candidates: fitting.length > 0 ? fitting : victimCandidates(task, s.slot), fields: new Map() };
    });
    victimSiteMemo.set(task, sites);
  }
  return sites;
}

/** The output field an implicit fault at `position` corrupts, and the corruption classes to draw from. */
function victimField(task: Task, site: VictimSite, position: number): { field: string; type: string; classes: readonly CorruptionClass[] } {
  let f = site.fields.get(position);
  if (!f) {
    const stratum = task.strata?.[site.k];
    const { field, type } = (stratum && familyField(task, position, stratum.family)) || consumedField(task, position);
    const inFamily = stratum ? familyClasses(type, stratum.family) : [];
    f = { field, type, classes: inFamily.length > 0 ? inFamily : classesOf(type) };
    site.fields.set(position, f);
  }
  return f;
}

/** An implicit fault as a literal (see slotFault). */
function implicitFault(
  id: string,
  slot: number,
  pos: Task["positions"][number],
  position: number,
  mode: { visibility: Visibility; persistence: Persistence },
  corruption: CorruptionSpec,
): SlotFault {
  const { visibility, persistence } = mode;
  return { id, slot, group: pos.cap, position, members: pos.members, visibility, persistence, corruption };
}

/**
 * Build the deterministic profile of (task, P). `rng` must be derived from (task id, P) only. v0 draws the victim
 * among the pattern's substitutable positions; v1 (a task with strata) among the positions fitting the slot's stratum,
 * and its corruption from the stratum's family.
 */
export function buildProfile(
  task: Task,
  perturbation: Perturbation,
  rng: RngLike,
  vp: VersionProfile = versionProfile("v0"),
): FaultProfile {
  // One literal, filled by push, for NP's empty list too: `faults: []` beside a `.map` result gave every reader of
  // `profile.faults` two or three elements kinds to meet, each a deopt once optimized (session 27, branch tmcold).
  const faults: SlotFault[] = [];
  if (perturbation === "NP") return { perturbation, faults };
  const sites = victimSites(task);
  for (let k = 0; k < task.slots.length; k++) faults.push(slotFault(task, perturbation, rng, vp, sites[k]!));
  return { perturbation, faults };
}

/**
 * The fault of one slot, drawn from the slot's own stream. A module function, not a closure per profile: tsx names
 * every closure assigned to a `const` as it is made (a `defineProperty` per profile).
 */
function slotFault(task: Task, perturbation: Exclude<Perturbation, "NP">, rng: RngLike, vp: VersionProfile, site: VictimSite): SlotFault {
  const slot = task.slots[site.k]!.slot;
  const mode = MODE[perturbation];
  const r = rng.derive(`slot${slot}`);
  const position = r.pick(site.candidates);
  const pos = task.positions[position]!;
  const id = `${task.id}/${perturbation}/slot${slot}`;
  const { visibility, persistence } = mode;
  // Literals, not `{ ...base, explicit }`: in this V8 a property after a spread costs ~0.8 µs (a new hidden class per
  // object), several times the rest of a profile. Same keys in the same order.
  if (visibility === "explicit") {
    const pool = vp.sharedErrorPool ? SHARED_ERRORS : persistence === "transient" ? TRANSIENT_ERRORS : PERMANENT_ERRORS;
    return { id, slot, group: pos.cap, position, members: pos.members, visibility, persistence, explicit: r.pick(pool) };
  }
  const { field, type, classes } = victimField(task, site, position);
  const cls = r.pick(classes);
  const salt = r.int(1_000_000);
  // v1: most free-text leaks are another tool's well-formed output, which no range or format check catches.
  if (task.strata?.[site.k] && cls === "leakage")
    return implicitFault(id, slot, pos, position, mode, { field, type, cls, salt, foreign: r.bool(FOREIGN_LEAK_SHARE) });
  if (cls !== "temporal") return implicitFault(id, slot, pos, position, mode, { field, type, cls, salt });
  // A response that states its window's end can contradict itself: the start lands after the end.
  const hasEnd = Object.values(corpus().caps.get(pos.cap)!.outputs).includes("end_datetime") && type === "iso_datetime";
  const temporal: TemporalVariant = hasEnd && r.bool(0.5) ? "end_before_start" : "before_request";
  return implicitFault(id, slot, pos, position, mode, { field, type, cls, salt, temporal });
}

const DEBUG_LEAKS = [
  (h: number) => `DEBUG cache_key=${code(h, 10).toLowerCase()} ttl=0 upstream=stale`,
  (h: number) => `Traceback (most recent call last): File "handler.py", line ${20 + (h % 180)}, in resolve`,
  (h: number) => `{"internal":{"trace_id":"${code(h, 12)}","shard":${h % 16}}}`,
  (h: number) => `<html><body>502 Bad Gateway</body></html> req=${code(h, 6)}`,
];

/**
 * v1: share of free-text leaks that are another tool's well-formed output rather than debug text. Debug text is the
 * easy case (any agent that looks recognises it); the paper's leakage is mostly plausible foreign content.
 */
const FOREIGN_LEAK_SHARE = 0.6;

/** Another tool's output line leaking into a free-text field (v1): well-formed, plausible, and about something else. */
const FOREIGN_RECORDS = [
  (h: number) => `Shipment ${code(h, 8)} handed to carrier; next scan expected within 24 h.`,
  (h: number) => `Ticket ${code(h, 6)} assigned to queue ops-${h % 40}.`,
  (h: number) => `Invoice ${code(h, 7)} marked as paid.`,
  (h: number) => `Reminder set for ${1 + (h % 12)} pm: team sync.`,
];

/**
 * Leakage into a field whose schema has a pattern, enum or format: another tool's well-formed value that satisfies
 * the field's schema but not its meaning (debug text would fail schema validation and give the fault away).
 */
const FOREIGN_VALUES: Readonly<Record<string, (h: number) => string>> = {
  // A currency code from the pricing service: three capitals, but no airport.
  iata_code: (h) => ["USD", "EUR", "JPY", "CHF"][h % 4]!,
  // A language code or the ISO "unknown" placeholder: two capitals, but no country.
  country_code: (h) => ["EN", "JA", "XX", "ZZ"][h % 4]!,
  // The telephony backend's trunk id: digits after "+", but under the unassigned ITU code 999.
  phone_number: (h) => `+999${String(1_000_000 + (h % 9_000_000))}`,
  // The notifier's service account.
  email_address: (h) => `svc-notifier-${h % 100}@queue.internal`,
  // The cache's internal object URL.
  url: (h) => `http://10.${h % 256}.${(h >>> 8) % 256}.7:8080/internal/cache/${code(h, 8).toLowerCase()}`,
  short_url: (h) => `http://10.${h % 256}.${(h >>> 8) % 256}.7:8080/internal/cache/${code(h, 8).toLowerCase()}`,
};

/** Does the field's schema constrain strings beyond their type (pattern, enum or format)? */
function constrainedString(schema: Readonly<Record<string, unknown>>): boolean {
  return schema.type === "string" && (schema.pattern !== undefined || schema.enum !== undefined || schema.format !== undefined);
}

const isoZ = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z");

/**
 * The named corruption: replace the spec's field with an implausible value of the field's declared type. Leakage,
 * temporal and scale payloads also satisfy the field's schema (pattern, enum, format, bounds); physics payloads are
 * the intended range violations (below absolute zero, probability > 1, negative counts) and may break a declared
 * minimum or maximum. A pure function of (clean value, spec, the rest of the response), so a permanent fault
 * corrupts identically on every call. `response` is the victim's clean output (for a window's end).
 */
export function corruptValue(clean: Scalar, spec: CorruptionSpec, response: Readonly<Record<string, Scalar>> = {}): Scalar {
  const h = sub(fnv1a(String(clean)), spec.salt);
  const ft = fieldType(spec.type);
  const isNum = typeof clean === "number";
  switch (spec.cls) {
    case "physics": {
      if (ft.sem === "coords" && typeof clean === "string") {
        const lon = clean.split(",")[1] ?? "0";
        return `${(91 + (h % 89)).toFixed(4)},${lon}`;
      }
      if (!isNum) break;
      const v = clean;
      const integer = Number.isInteger(v) && (ft.schema as { type: string }).type === "integer";
      const r = (x: number) => (integer ? Math.round(x) : Math.round(x * 100) / 100);
      switch (ft.sem) {
        case "temperature":
          return r((ft.id === "temperature_f" ? -459.67 : -273.15) - 20 - (h % 250));
        case "probability":
          return r(1 + 0.05 + (h % 90) / 100);
        case "percentage":
          return r(100 + 15 + (h % 300));
        case "score":
          return r(ft.id === "rating" ? 6 + (h % 40) / 10 : 1.5 + (h % 30) / 10);
        default:
          return r(-(Math.abs(v) + 1 + (h % 50)));
      }
    }
    case "scale": {
      if (!isNum) break;
      // A unit slip (thousands instead of units, or micro-units): positive and of the same type, so any declared
      // lower bound still holds; the larger factor when ×1000 still looks plausible.
      for (const factor of [1000, 1_000_000]) {
        const scaled = Math.round(clean * factor * 100) / 100;
        if (!ft.plausible(scaled)) return scaled;
      }
      return Math.round(Math.max(Math.abs(clean), 1) * 1e9 * 100) / 100;
    }
    case "temporal": {
      if (typeof clean !== "string") break;
      if (spec.temporal === "end_before_start") {
        // The start moves past the end the same response states: still in the future, still a date-time.
        const endField = Object.entries(response).find(([k, v]) => k !== spec.field && typeof v === "string" && /_end$|^end/.test(k));
        const end = endField ? Date.parse(endField[1] as string) : Number.NaN;
        if (!Number.isNaN(end)) return isoZ(end + 1_800_000 * (1 + (h % 8)));
      }
      const back = TIME.DAY * (30 + (h % 400));
      if (ft.sem === "date") return new Date(TIME.NOW_MS - back).toISOString().slice(0, 10);
      return isoZ(TIME.NOW_MS - back);
    }
    case "leakage": {
      if (typeof clean !== "string") break;
      const foreign = FOREIGN_VALUES[ft.id];
      if (foreign) return foreign(h);
      if (constrainedString(ft.schema)) throw new Error(`toolmaze: no schema-conforming leakage for field type ${ft.id}`);
      // Free text (no pattern, enum or format): internal debug text, or another tool's identifier format.
      if (spec.foreign === true) return ft.sem === "id" ? `trk_${code(h, 10)}` : FOREIGN_RECORDS[h % FOREIGN_RECORDS.length]!(h);
      if (spec.foreign === undefined && ft.sem === "id" && h % 3 === 0) return `trk_${code(h, 10)}`;
      return DEBUG_LEAKS[h % DEBUG_LEAKS.length]!(h);
    }
  }
  return isNum ? -Math.abs(clean as number) - 1 : `DEBUG ${String(clean)} (stale cache)`;
}
