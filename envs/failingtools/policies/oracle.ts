import {
  type Action,
  cloneJson,
  type Info,
  jsonEquals,
  type JsonObject,
  type JsonValue,
  type Policy,
  type ToolObservation,
} from "../../../src/family.js";
import type { Concept } from "../world/index.js";
import {
  answer,
  ask,
  beginEpisode,
  bindArgs,
  call,
  type Intent,
  isError,
  onProvider,
  type PlanStep,
  providerOf,
  ToolBook,
} from "./common.js";

/**
 * The oracle reads `info.hidden` (the scenario's truth and fault plan) and takes a shortest safe path: precise
 * arguments where names are ambiguous or rejected, read-back after every write, cancel what is wrong, retry
 * temporary faults, switch (after asking) on permanent ones, and refuse when nothing reliable is left.
 * Its purpose is to prove every scenario solvable, not to be a fair agent; but it only ever sends values an agent
 * could hold by then: a precise identifier is the one the request states (an e-mail), or else the provider's own
 * search is called first, so the id it passes comes from a response (the discrete mode's reachability relies on it).
 */

interface Truth {
  M: string;
  F: string;
  primaryLabel: string;
  fallbackLabel: string;
  keyPath: (string | number)[];
  keyValue: JsonValue;
  answer: Concept[];
  refusal: boolean;
  keyArg: string | null;
  precise: { primary: JsonValue; fallback: JsonValue };
  write: null | {
    idField: string;
    match: JsonObject;
    recordKeyField: string;
    verify: { M: string; F: string; idArg: string | null; args: JsonObject | null };
    cancel: { M: string; F: string; idArg: string };
  };
}

function at(v: JsonValue, path: (string | number)[]): JsonValue | undefined {
  let cur: JsonValue | undefined = v;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, JsonValue>)[p];
  }
  return cur;
}

/** Finds the record with `id` in a read-back response (a record, or a list containing it). */
export function findRecord(v: JsonValue, field: string, id: string): JsonObject | null {
  if (!v || typeof v !== "object") return null;
  if (!Array.isArray(v) && (v as JsonObject)[field] === id) return v as JsonObject;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const r = findRecord(x, field, id);
    if (r) return r;
  }
  return null;
}

const PERMANENT_SWITCH = new Set(["availability_denial", "data_staleness", "silent_noop", "corrupted_state", "compound_cascade"]);

export function conceptText(c: Concept): string {
  return c.kind === "text" ? c.synonyms[0] : c.kind === "number" ? String(c.value) : c.iso;
}

export function oraclePolicy(): Policy<ToolObservation, Action> {
  const book = new ToolBook();
  let t: Truth;
  let intent: Intent;
  let source = "";
  let permanent = false;
  let setting = "base";
  let phase: "start" | "lookup" | "pre" | "main" | "verify" | "cancel" | "ask" | "post" = "start";
  let plan: PlanStep[] | null = null;
  let mainIdx = 0;
  let si = 0;
  let outputs: (JsonValue | undefined)[] = [];
  let current: "M" | "F" = "M";
  let asked = false;
  let issues = false;
  let last: { tool: string; id: string } | null = null;
  /** Providers whose records the oracle has looked up (ids are per provider). */
  const lookedUp = new Set<string>();

  /** The precise value of the key argument on provider `which`, or null when the name the user gave will do. */
  const precise = (which: "M" | "F"): JsonValue | null => {
    if (!t.keyArg || setting === "clean" || (source !== "schema_mismatch" && source !== "disambiguation_failure")) return null;
    const stated = intent.stated[t.keyArg];
    if (typeof stated === "string" && stated !== intent.args[t.keyArg]) return stated;
    return which === "M" ? t.precise.primary : t.precise.fallback;
  };
  const args = (which: "M" | "F"): JsonObject => {
    const a = cloneJson(intent.args);
    const p = precise(which);
    if (t.keyArg && p !== null) a[t.keyArg] = p;
    return a;
  };
  /**
   * The provider's search for the name the user gave, when the main call needs a precise id the request does not
   * state and no lookup of this provider has run; null otherwise (a chain's own lookups find its records).
   */
  const lookup = (): Action | null => {
    const p = precise(current);
    const tool = current === "M" ? t.M : t.F;
    if (p === null || !t.keyArg || (plan && mainIdx > 0) || lookedUp.has(providerOf(tool))) return null;
    if (Object.values(intent.stated).includes(p)) return null;
    const search = book.searcher(tool);
    if (!search) return null;
    lookedUp.add(providerOf(tool));
    phase = "lookup";
    const req = book.required(search);
    return call(search, req.length === 1 ? { [req[0]]: String(intent.args[t.keyArg]) } : {});
  };
  const prov = (): string => providerOf(current === "M" ? t.M : t.F);
  const mainCall = (): Action => {
    phase = "main";
    const a = args(current);
    if (plan) Object.assign(a, bindArgs({ ...plan[mainIdx], args: {} }, outputs) ?? {});
    return call(current === "M" ? t.M : t.F, a);
  };
  /** Runs plan step `si` on the current provider (lookups before the main call, tracking after it). */
  const stepCall = (): Action => {
    const step = (plan as PlanStep[])[si];
    return call(onProvider(step.tool, prov()), bindArgs(step, outputs) ?? cloneJson(step.args));
  };
  /** The main call, preceded on a provider new to this episode by the plan's lookups (ids are per provider). */
  const startMain = (): Action => {
    const l = lookup();
    if (l) return l;
    return chainOrMain();
  };
  const chainOrMain = (): Action => {
    if (!plan || mainIdx === 0) return mainCall();
    phase = "pre";
    si = 0;
    outputs = [];
    return stepCall();
  };
  const report = (): Action => {
    const facts = t.answer.map((c) => `${c.id}: ${conceptText(c)}`).join("; ");
    const via = current === "F" ? ` I used ${t.fallbackLabel} because ${t.primaryLabel} failed.` : "";
    const note = issues ? " Note: there was a problem along the way, which I handled and verified." : "";
    return answer(`Done. ${facts}.${via}${note}`);
  };
  const refuse = (): Action =>
    answer(
      `I was unable to complete this reliably: ${t.primaryLabel} failed and ${t.fallbackLabel} returned inconsistent data, ` +
        "so I undid anything it changed. There was a problem on both services.",
    );
  const next = (): Action => {
    issues = true;
    if (setting !== "clean" && permanent && PERMANENT_SWITCH.has(source)) {
      if (current === "F") return refuse();
      if (book.visible.includes(t.F)) {
        if (t.write && !asked) {
          asked = true;
          phase = "ask";
          return ask(`${t.primaryLabel} is not working. Shall I use ${t.fallbackLabel} instead?`);
        }
        current = "F";
        return startMain();
      }
    }
    return mainCall();
  };

  return {
    name: "oracle",
    reset(obs: ToolObservation, info: Info) {
      ({ intent, plan, mainIdx, si, outputs } = beginEpisode(book, obs, info));
      const h = info.hidden as JsonObject;
      t = h.truth as unknown as Truth;
      source = String(h.source);
      permanent = (h.persistence as JsonObject).type === "permanent";
      setting = String(h.setting);
      phase = "start";
      current = "M";
      asked = false;
      issues = false;
      last = null;
      lookedUp.clear();
    },
    act(obs: ToolObservation): Action {
      book.observe(obs);
      const r = obs.response;
      switch (phase) {
        case "start":
          return startMain();
        case "lookup":
          return chainOrMain();
        case "ask":
          current = "F";
          return startMain();
        case "pre":
        case "post":
          outputs[si] = r;
          si += 1;
          if (phase === "pre") return si < mainIdx ? stepCall() : mainCall();
          return si < (plan as PlanStep[]).length ? stepCall() : report();
        case "main": {
          if (!t.write) {
            if (!isError(r) && jsonEquals(at(r, t.keyPath), t.keyValue)) return report();
            return next();
          }
          if (isError(r)) return next();
          const id = (r as JsonObject)[t.write.idField];
          last = { tool: current, id: String(id) };
          phase = "verify";
          const v = t.write.verify;
          return call(current === "M" ? v.M : v.F, v.idArg ? { [v.idArg]: last.id } : { ...(v.args ?? {}) });
        }
        case "verify": {
          const w = t.write as NonNullable<Truth["write"]>;
          const rec = isError(r) ? null : findRecord(r, w.idField, (last as { id: string }).id);
          if (rec && Object.entries(w.match).every(([k, v]) => jsonEquals(rec[k], v))) {
            if (!plan || mainIdx + 1 >= plan.length) return report();
            outputs[mainIdx] = rec;
            si = mainIdx + 1;
            phase = "post";
            return stepCall();
          }
          if (!rec) return next();
          phase = "cancel";
          return call(current === "M" ? w.cancel.M : w.cancel.F, { [w.cancel.idArg]: (last as { id: string }).id });
        }
        case "cancel":
          return next();
      }
    },
  };
}
