/**
 * Observable plausibility checks: what a careful agent knows about units, ranges, time windows, vocabularies and
 * leaked internals. They read only a response's field names, documented types and values, never the fault ground truth.
 */
import { FIELD_TYPES } from "../world/types.js";

const NOW = Date.parse("2026-12-01T09:00:00Z");

export function looksImplausible(field: string, v: unknown, nowMs = NOW): boolean {
  const f = field.toLowerCase();
  if (typeof v === "string") {
    if (/debug|traceback|internal|<html|^\{|stack trace/i.test(v)) return true;
    if (/^\d{4}-\d{2}-\d{2}(T|$)/.test(v)) return Date.parse(v.length === 10 ? `${v}T23:59:59Z` : v) < nowMs;
    const coords = /^(-?\d+\.\d+),(-?\d+\.\d+)$/.exec(v);
    if (coords) return Math.abs(Number(coords[1])) > 90 || Math.abs(Number(coords[2])) > 180;
    return false;
  }
  if (typeof v !== "number") return false;
  if (/temperature_f/.test(f)) return v < -459.67;
  if (/temperature|setpoint|_c$/.test(f)) return v < -273.15 || v > 70;
  if (/probability|risk/.test(f)) return v < 0 || v > 1;
  if (/change_pct/.test(f)) return Math.abs(v) > 100;
  if (/pct|percent|humidity|discount|battery/.test(f)) return v < 0 || v > 100;
  if (/units|stock|count|words|quantity|minutes|duration|ppm|kwh|power/.test(f)) return v < 0;
  if (/sentiment/.test(f)) return Math.abs(v) > 1;
  if (/rating/.test(f)) return v < 0 || v > 5;
  if (/distance/.test(f)) return v < 0 || v > 20000;
  if (/^rate$|exchange/.test(f)) return v <= 0 || v > 100;
  if (/price|fare|amount|total|cost|charged|available|estimate|converted|balance|refund|rate/.test(f)) return v < 0 || v > 20000;
  return false;
}

/** A time window that ends before it starts within one response (`slot_start`/`slot_end`, `start`/`end`). */
export function windowContradiction(response: Readonly<Record<string, unknown>>): boolean {
  for (const [k, v] of Object.entries(response)) {
    const m = /^(.*)start$/.exec(k);
    if (!m || typeof v !== "string") continue;
    const end = response[`${m[1]}end`];
    if (typeof end === "string" && Date.parse(end) < Date.parse(v)) return true;
  }
  return false;
}

const VOCABULARIES = [...FIELD_TYPES.values()]
  .filter((t) => t.literals)
  .map((t) => ({ id: t.id, values: new Set(t.literals!.filter((x) => typeof x === "string")) }));

/**
 * A value from the wrong vocabulary for the field's documented type (a currency code where an airport code belongs):
 * the common knowledge of which strings are airports, currencies or tickers that the agent also uses to read requests.
 */
export function foreignVocabulary(type: string, v: unknown): boolean {
  if (typeof v !== "string") return false;
  const own = VOCABULARIES.find((x) => x.id === type);
  if (!own || own.values.has(v)) return false;
  return VOCABULARIES.some((x) => x.id !== type && x.values.has(v));
}
