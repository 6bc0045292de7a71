import {
  type Action,
  cloneJson,
  type Info,
  type JsonObject,
  type JsonValue,
  type Policy,
  type ToolObservation,
} from "../../../src/family.js";
import {
  answer,
  ask,
  beginEpisode,
  bestByRequest,
  bindArgs,
  call,
  flatten,
  fold,
  type Intent,
  isError,
  onProvider,
  type PlanStep,
  providerOf,
  receiptId,
  recordsIn,
  ToolBook,
  valueForParam,
} from "./common.js";
import { findRecord } from "./oracle.js";

/**
 * A careful agent that sees only observations and the structured request: it reads back every write, checks
 * amounts, totals, ranges and timestamps against each other and against what the user said, cancels what is
 * wrong, retries transient-looking errors, repairs arguments from error details, and asks before moving a write
 * to another provider. It does not know "now", so it cannot spot silently outdated data.
 */

const num = (v: JsonValue | undefined): v is number => typeof v === "number" && Number.isFinite(v);

/** Plausibility and consistency checks on one response; returns the problems found. */
export function inspect(v: JsonValue): string[] {
  const probs = new Set<string>();
  const walk = (x: JsonValue, inherited: string | undefined = undefined): void => {
    if (!x || typeof x !== "object") {
      if (typeof x === "string" && x.includes("\uFFFD")) probs.add("garbled text");
      return;
    }
    if (Array.isArray(x)) {
      x.forEach((y) => walk(y, inherited));
      return;
    }
    const o = x as JsonObject;
    if (o._stale_warning !== undefined || o.cache_status === "STALE") probs.add("stale data");
    if (num(o.high_f) && num(o.low_f) && o.high_f < o.low_f) probs.add("impossible forecast");
    for (const [k, val] of Object.entries(o)) {
      if (/_f$/.test(k) && num(val) && val < -459.67) probs.add("temperature below absolute zero");
      if (/^(price|amount|total|estimate|subtotal|unit_price|nightly_rate)$/.test(k) && num(val) && val < 0) probs.add(`negative ${k}`);
    }
    if (num(o.price) && num(o.day_low) && num(o.day_high) && (o.price < o.day_low || o.price > o.day_high))
      probs.add("price outside the day's range");
    if (
      num(o.price) &&
      num(o.list_price) &&
      (o.price > o.list_price + 1e-6 || (num(o.discount) && Math.abs(o.list_price - o.discount - o.price) > 0.01))
    )
      probs.add("price inconsistent with list price");
    if (num(o.estimate) && num(o.fare_low) && num(o.fare_high) && (o.estimate < o.fare_low || o.estimate > o.fare_high))
      probs.add("estimate outside its range");
    if (num(o.result_count) && Array.isArray(o.messages) && o.result_count !== o.messages.length)
      probs.add("count does not match the list");
    if (num(o.rating) && num(o.rating_scale) && o.rating > o.rating_scale) probs.add("rating out of scale");
    if (num(o.total) && num(o.subtotal)) {
      const expect = o.subtotal + (num(o.fees) ? o.fees : 0) + (num(o.taxes) ? o.taxes : 0);
      if (Math.abs(o.total - expect) > 0.02) probs.add("total does not add up");
    }
    if (
      num(o.available_balance) &&
      num(o.ledger_balance) &&
      num(o.pending) &&
      Math.abs(o.available_balance - (o.ledger_balance - o.pending)) > 0.01
    )
      probs.add("balance does not add up");
    if (typeof o.start === "string" && typeof o.end === "string" && o.start >= o.end) probs.add("event starts after it ends");
    const start = typeof o.start === "string" ? o.start : typeof o.slot_start === "string" ? o.slot_start : null;
    const ref = ([o.created_at, o.generated_at, o.requested_at].find((s) => typeof s === "string") as string | undefined) ?? inherited;
    if (start && ref && start < ref) probs.add("date in the past");
    if (o.fulfilment === "pickup" && typeof o.slot_start === "string" && typeof o.ready_at === "string" && o.slot_start < o.ready_at)
      probs.add("pickup before the order is ready");
    Object.values(o).forEach((y) => walk(y, ref));
  };
  walk(v);
  return [...probs];
}

/** Stated facts the response contradicts (first occurrence of each key, searched depth-first). */
export function contradictions(v: JsonValue, stated: JsonObject): string[] {
  const out: string[] = [];
  const find = (x: JsonValue, key: string): JsonValue | undefined => {
    if (!x || typeof x !== "object") return undefined;
    if (!Array.isArray(x) && key in x) return (x as JsonObject)[key];
    for (const y of Array.isArray(x) ? x : Object.values(x)) {
      const r = find(y, key);
      if (r !== undefined) return r;
    }
    return undefined;
  };
  for (const [k, want] of Object.entries(stated)) {
    const got = find(v, k);
    if (got !== undefined && got !== want) out.push(k);
  }
  return out;
}

export function carefulPolicy(): Policy<ToolObservation, Action> {
  const book = new ToolBook();
  let intent: Intent;
  let isWrite = false;
  let target = "";
  let args: JsonObject = {};
  let phase: "start" | "pre" | "main" | "verify" | "cancel" | "ask" | "post" | "lookup" = "start";
  let plan: PlanStep[] | null = null;
  let mainIdx = 0;
  let si = 0;
  let outputs: (JsonValue | undefined)[] = [];
  let request = "";
  /** Name-keyed arguments already repaired by a lookup on the current provider (never looked up twice). */
  const repaired = new Set<string>();
  let lookingUp: { arg: string; name: string } | null = null;
  const attempts = new Map<string, number>();
  const tried = new Set<string>();
  let asked = false;
  let pending = "";
  let issues: string[] = [];
  let lastWrite: { field: string; value: string } | null = null;
  let mismatched: string[] = [];
  let permanentError = false;

  const callMain = (): Action => {
    phase = "main";
    attempts.set(target, (attempts.get(target) ?? 0) + 1);
    tried.add(target);
    return call(target, cloneJson(args));
  };
  const label = (): string => book.label(target);
  const report = (out: JsonValue): Action => {
    const facts = flatten(out).join("; ");
    const via = target !== intent.tool ? ` I used ${label()} because ${book.label(intent.tool)} had a problem.` : ` Done on ${label()}.`;
    const note = issues.length > 0 ? ` Along the way I noticed problems (${issues.join(", ")}) and retried or corrected them.` : "";
    return answer(`${facts}.${via}${note}`);
  };
  /** Plan step `si` on the provider currently in use. */
  const stepCall = (): Action => {
    const step = (plan as PlanStep[])[si];
    const a = bindArgs(step, outputs);
    if (!a) return giveUp(`I could not find what step ${si + 1} needs in the earlier results`);
    return call(onProvider(step.tool, providerOf(target)), a);
  };
  /** A multi-step request starts (again) with its lookups: record ids belong to one provider. */
  const startChain = (): Action => {
    if (!plan || mainIdx === 0) return callMain();
    phase = "pre";
    si = 0;
    outputs = [];
    return stepCall();
  };
  const switchTo = (tool: string): Action => {
    repaired.clear();
    target = tool;
    args = cloneJson(intent.args);
    permanentError = false;
    return startChain();
  };
  /** The main call is done and checked: run the steps that follow it, then report. */
  const finish = (out: JsonValue): Action => {
    if (!plan || mainIdx + 1 >= plan.length) return report(out);
    outputs[mainIdx] = out;
    si = mainIdx + 1;
    phase = "post";
    return stepCall();
  };
  const giveUp = (why: string): Action =>
    answer(`I was unable to complete this reliably: ${why}. Problems seen: ${issues.join(", ") || "none"}.`);

  /** Repairs the identifying argument from the facts the user stated (email, ticker, "City, ST"). */
  const repairIdentity = () => {
    for (const k of mismatched) {
      const want = intent.stated[k];
      if (typeof want !== "string") continue;
      for (const [a, v] of Object.entries(args)) {
        if (typeof v !== "string" || v !== intent.args[a]) continue;
        if (/^(recipient_email|to|symbol)$/.test(k) && /^(recipient|to|symbol)$/.test(a)) args[a] = want;
      }
    }
    mismatched = [];
  };

  /** Arguments that still name a record the way the user did (a name the service resolves, maybe wrongly). */
  const nameArgs = (): string[] =>
    Object.keys(args).filter(
      (a) =>
        typeof args[a] === "string" &&
        args[a] === intent.args[a] &&
        !repaired.has(a) &&
        /_id\b|\bname\b|email|symbol/i.test(book.paramDescription(target, a)),
    );
  /**
   * Wrong record suspected (a stated fact contradicted, a "not found" after a name lookup): look the name up with
   * the provider's search tool and pass the id of the look-alike that matches the request text. Null when there
   * is nothing to look up.
   */
  const lookUpName = (): Action | null => {
    const a = nameArgs()[0];
    const search = book.searcher(target);
    if (a === undefined || !search) return null;
    lookingUp = { arg: a, name: String(args[a]) };
    phase = "lookup";
    const req = book.required(search);
    return call(search, req.length === 1 ? { [req[0]]: String(args[a]) } : {});
  };
  /** Picks among candidate records sharing the name; true when the argument now names exactly one record. */
  const useCandidate = (arg: string, name: string, candidates: JsonObject[]): boolean => {
    const same = candidates.filter((c) => Object.values(c).some((v) => typeof v === "string" && fold(v) === fold(name)));
    const best = bestByRequest(same.length > 0 ? same : candidates, name, request);
    const value = best ? valueForParam(best, book.paramDescription(target, arg), name) : undefined;
    if (value === undefined || value === args[arg]) return false;
    args[arg] = value;
    repaired.add(arg);
    issues.push("ambiguous name");
    return true;
  };

  const retryOrSwitch = (): Action => {
    const n = attempts.get(target) ?? 0;
    const limit = isWrite ? 2 : 2;
    if (!permanentError && n < limit) return callMain();
    const cp = book.counterpart(target);
    if (cp && !tried.has(cp)) {
      if (isWrite && !asked) {
        asked = true;
        pending = cp;
        phase = "ask";
        return ask(`${book.label(target)} is not working reliably (${issues.join(", ")}). Shall I use ${book.label(cp)} instead?`);
      }
      return switchTo(cp);
    }
    if (!permanentError && n < 3) return callMain();
    return giveUp(issues[issues.length - 1] ?? "the service kept failing");
  };

  const onError = (err: JsonObject): Action => {
    const code = String(err.code ?? "");
    const status = typeof err.status === "number" ? err.status : 0;
    const details = (err.details ?? {}) as JsonObject;
    if (code === "AMBIGUOUS_MATCH" && Array.isArray(details.candidates)) {
      const quoted = /"([^"]+)"/.exec(String(err.message ?? ""))?.[1];
      const arg = Object.keys(args).find((a) => args[a] === quoted);
      if (arg && quoted !== undefined && useCandidate(arg, quoted, details.candidates as JsonObject[])) return callMain();
      return giveUp(`"${quoted}" is ambiguous`);
    }
    if (code === "SCHEMA_MISMATCH" && typeof details.field === "string" && details.did_you_mean !== undefined) {
      args[details.field] = details.did_you_mean;
      issues.push("schema change");
      return callMain();
    }
    if (status === 404 || status === 422) {
      const l = lookUpName();
      if (l) return l;
    }
    if (status === 400 || status === 404 || status === 422) return giveUp(String(err.message ?? code));
    issues.push(code.toLowerCase());
    if (status === 410 || /RETIRED|OUTAGE|DEPRECATED/.test(code)) permanentError = true;
    return retryOrSwitch();
  };

  return {
    name: "careful",
    reset(obs: ToolObservation, info: Info) {
      ({ intent, plan, mainIdx, si, outputs } = beginEpisode(book, obs, info));
      target = intent.tool;
      args = cloneJson(intent.args);
      isWrite = false;
      phase = "start";
      attempts.clear();
      tried.clear();
      asked = false;
      pending = "";
      issues = [];
      lastWrite = null;
      mismatched = [];
      permanentError = false;
      request = obs.task;
      repaired.clear();
      lookingUp = null;
    },
    act(obs: ToolObservation): Action {
      book.observe(obs);
      const r = obs.response;
      switch (phase) {
        case "start":
          isWrite = /^(send|post|place|create|save|book|request|schedule|mark)_/.test(target.slice(target.indexOf("_") + 1));
          return startChain();
        case "ask":
          return switchTo(pending);
        case "pre": {
          if (isError(r)) return giveUp(`step ${si + 1} failed (${String(r.error.message ?? r.error.code)})`);
          outputs[si] = r;
          si += 1;
          if (si < mainIdx) return stepCall();
          const bound = bindArgs({ ...(plan as PlanStep[])[mainIdx], args: cloneJson(intent.args) }, outputs);
          if (!bound) return giveUp("the record named in the request was not in the lookup results");
          args = bound;
          return callMain();
        }
        case "post": {
          if (isError(r)) issues.push(`step ${si + 1} failed`);
          else outputs[si] = r;
          si += 1;
          if (si < (plan as PlanStep[]).length) return stepCall();
          return report(outputs.slice(mainIdx).filter((o): o is JsonValue => o !== undefined));
        }
        case "main": {
          if (isError(r)) return onError(r.error);
          if (!isWrite) {
            const probs = [...inspect(r), ...contradictions(r, intent.stated).map((k) => `${k} mismatch`)];
            mismatched = contradictions(r, intent.stated);
            if (probs.length === 0) return report(r);
            issues.push(...probs);
            if (mismatched.length > 0) {
              const l = lookUpName();
              if (l) return l;
            }
            repairIdentity();
            return retryOrSwitch();
          }
          const id = receiptId(r);
          const bad = contradictions(r, intent.stated);
          if (bad.length > 0 && id) {
            issues.push(...bad.map((k) => `${k} mismatch`));
            mismatched = bad;
            lastWrite = id;
            const c = book.canceller(target, id.field);
            if (c) {
              phase = "cancel";
              return call(c, { [id.field]: id.value });
            }
          }
          if (!id) return finish(r);
          lastWrite = id;
          const v = book.verifier(target, id.field);
          if (!v) return finish(r);
          phase = "verify";
          return call(v, book.required(v).includes(id.field) ? { [id.field]: id.value } : {});
        }
        case "verify": {
          const w = lastWrite as { field: string; value: string };
          const rec = isError(r) ? null : findRecord(r, w.field, w.value);
          if (!rec) {
            issues.push("the change did not persist");
            return retryOrSwitch();
          }
          const bad = contradictions(rec, intent.stated);
          const probs = [...inspect(rec), ...bad.map((k) => `${k} mismatch`)];
          if (probs.length === 0) return finish(rec);
          issues.push(...probs);
          mismatched = bad;
          const c = book.canceller(target, w.field);
          if (!c) return retryOrSwitch();
          phase = "cancel";
          return call(c, { [w.field]: w.value });
        }
        case "cancel": {
          if (mismatched.length > 0) {
            const l = lookUpName();
            if (l) return l;
          }
          repairIdentity();
          return retryOrSwitch();
        }
        case "lookup": {
          const l = lookingUp as { arg: string; name: string };
          lookingUp = null;
          repaired.add(l.arg);
          if (!isError(r) && useCandidate(l.arg, l.name, recordsIn(r))) {
            mismatched = [];
            return callMain();
          }
          repairIdentity();
          return retryOrSwitch();
        }
      }
    },
  };
}
