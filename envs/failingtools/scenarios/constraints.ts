import type { JsonObject, JsonValue } from "../../../src/family.js";
import type { Concept } from "../world/index.js";
import { type ArgMatcher, matcherFor, normArg } from "./argMatch.js";

/**
 * Builders of the constraint data the generator attaches to a scenario: argument requirements of required calls
 * (the values the request text fixes) and the correct counterparts of wrong values (what excuses mentioning them).
 */

/** Arguments that are API choices, not facts of the request (page sizes, folders, filters). */
const API_CHOICES = new Set(["days", "limit", "folder", "unread_only"]);
/** Stated facts that name the same record as the key argument (a recipient's e-mail, a ticker). */
const IDENTIFIER_FACTS = ["to", "recipient_email", "email", "symbol"];

/** Whether the request text states `v` (a string as words, a number as a whole number, ISO instants by date and time). */
export function statedIn(request: string, v: JsonValue): boolean {
  if (typeof v === "number")
    return new RegExp(`(^|[^\\d.])${String(v).replace(".", "\\.")}(?![\\d])`).test(request.replace(/,(\d{3})/g, "$1"));
  if (typeof v === "string") {
    const iso = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):00Z$/.exec(v);
    if (iso) return request.includes(iso[1]) && request.includes(iso[2]);
    const n = normArg(v);
    return n !== "" && ` ${normArg(request)} `.includes(` ${n} `);
  }
  if (Array.isArray(v)) return v.length > 0 && v.every((x) => statedIn(request, x));
  if (v && typeof v === "object") return Object.values(v).every((x) => statedIn(request, x));
  return false;
}

/** How a call may name the record the key argument means: as the user did, by its id on either provider, or by a stated identifier. */
export interface KeyNames {
  arg: string;
  bare: JsonValue;
  ids: JsonValue[];
  stated: JsonObject;
}

/**
 * Argument requirements for a call the request fixes: every argument whose value the request text states (city,
 * amount, recipient, dates, message text...), except bound ones (taken from an earlier step's output) and API
 * choices. The key argument also accepts the record's precise ids and stated identifiers. Undefined: nothing fixed.
 */
export function argRequirements(
  request: string,
  args: JsonObject,
  bound: readonly string[],
  key: KeyNames | null,
): Record<string, ArgMatcher> | undefined {
  const out: Record<string, ArgMatcher> = {};
  for (const [k, v] of Object.entries(args)) {
    if (bound.includes(k) || API_CHOICES.has(k) || !statedIn(request, v)) continue;
    if (key && k === key.arg) {
      const alts: ArgMatcher[] = [matcherFor(v)];
      for (const id of key.ids)
        if (id !== null && !alts.some((a) => JSON.stringify(a) === JSON.stringify(matcherFor(id))))
          alts.push(typeof id === "string" ? { kind: "exact", value: id } : matcherFor(id));
      for (const f of IDENTIFIER_FACTS) {
        const sv = key.stated[f];
        if (typeof sv === "string" && normArg(sv) !== normArg(String(v))) alts.push({ kind: "text", value: sv });
      }
      out[k] = alts.length === 1 ? alts[0] : { kind: "anyOf", options: alts };
    } else out[k] = matcherFor(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The answer concepts stating the value a wrong one replaces (the $150 the corrupted $15 stands for). */
export function correctCounterparts(answer: readonly Concept[], keyValue: JsonValue): Concept[] {
  return answer.filter((c) => {
    if (c.kind === "number") return typeof keyValue === "number" && Math.abs(c.value - keyValue) <= c.tolerance + 1e-9;
    if (c.kind === "date") return typeof keyValue === "string" && keyValue.startsWith(c.iso);
    return typeof keyValue === "string" && c.synonyms.some((syn) => normArg(syn) === normArg(keyValue));
  });
}
