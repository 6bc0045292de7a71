import type { AggregateReport, BreakdownTable } from "../core/registry.js";

/**
 * The one unit convention of machine-readable outputs (docs/METRICS.md): every rate is a fraction in [0, 1], and
 * every non-integer number is rounded to 6 significant digits, so JSON and CSV carry `0.333333` and `1.17`, never
 * `33.3` in one family and `0.333` in another, nor `1.1700000000000013`. Human tables may show percentages.
 */
export const SIGNIFICANT_DIGITS = 6;

/** `x` rounded to 6 significant digits; integers and non-finite values unchanged. */
export function roundMetric(x: number): number {
  if (!Number.isFinite(x) || Number.isInteger(x)) return x;
  return Number(x.toPrecision(SIGNIFICANT_DIGITS));
}

/** A percentage as a rounded fraction (33.3 -> 0.333). */
export function percentToFraction(x: number): number {
  return roundMetric(x / 100);
}

/** Any value with its number (if it is one) rounded as every JSON/CSV output rounds numbers. */
export function roundIfNumber<T>(v: T): T {
  return (typeof v === "number" ? roundMetric(v) : v) as T;
}

/** A title or column name without its percent marks, once its numbers are fractions ("TSR % (...)" -> "TSR (...)"). */
export function withoutPercentMarks(text: string): string {
  return text
    .replace(/^% of /, "share of ")
    .replace(/ \(%\)/g, "")
    .replace(/ %(?= |$)/g, "");
}

/** A breakdown table whose rates are fractions (no percent columns left to declare). */
export type FractionTable = Omit<BreakdownTable, "percentColumns">;

function tableInFractions(table: BreakdownTable): FractionTable {
  const percent = new Set(table.percentColumns ?? []);
  const convert = table.columns.map((c) => percent.has(c));
  return {
    title: withoutPercentMarks(table.title),
    columns: table.columns.map((c, i) => (convert[i] ? withoutPercentMarks(c) : c)),
    rows: table.rows.map((row) => row.map((v, i) => (typeof v === "number" && convert[i] ? percentToFraction(v) : roundIfNumber(v)))),
  };
}

/** Headline metrics as JSON/CSV carry them: percentages (the report's `percentMetrics`) as fractions, all rounded. */
export function metricsInFractions(report: AggregateReport): Record<string, number> {
  const percent = new Set(report.percentMetrics ?? []);
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(report.metrics)) out[k] = percent.has(k) ? percentToFraction(v) : roundMetric(v);
  return out;
}

/** A family's aggregate as JSON outputs carry it (see `metricsInFractions`); the unit annotations are dropped. */
export function reportInFractions(report: AggregateReport): { metrics: Record<string, number>; breakdown: FractionTable[] } {
  return { metrics: metricsInFractions(report), breakdown: report.breakdown.map(tableInFractions) };
}
