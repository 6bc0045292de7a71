/**
 * Observable plausibility checks: what a careful agent knows about units, ranges and leaked internals. They read
 * only a response's field names and values, never the fault ground truth.
 */
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
