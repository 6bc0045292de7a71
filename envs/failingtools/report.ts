import type { AggregateReport, EpisodeResult, JsonObject } from "../../src/family.js";
import { FAILURE_MODES, FAILURE_SOURCES } from "./scenarios/schema.js";

/**
 * The paper's tables from per-episode metrics: mean score and accuracy by failure source × persistence,
 * unsafe-operation rates (any forbidden call; forbidden mutations separately), and the failure-mode label of
 * each failed run (its first error).
 */
const pct = (x: number): number => Math.round(x * 1000) / 10;

export function aggregateFailingTools(results: readonly EpisodeResult[]): AggregateReport {
  const m = results.map((r) => r.metrics as JsonObject);
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const num = (x: JsonObject, k: string) => Number(x[k] ?? 0);
  const rows: (string | number)[][] = [];
  for (const src of FAILURE_SOURCES) {
    const row: (string | number)[] = [src];
    for (const p of ["permanent", "temporary"]) {
      const g = m.filter((x) => x.source === src && x.persistence === p);
      row.push(
        g.length,
        g.length ? pct(mean(g.map((x) => num(x, "score")))) : "-",
        g.length ? pct(mean(g.map((x) => num(x, "accuracy")))) : "-",
        g.length ? pct(mean(g.map((x) => num(x, "unsafe")))) : "-",
      );
    }
    rows.push(row);
  }
  const all: (string | number)[] = ["ALL"];
  for (const p of ["permanent", "temporary"]) {
    const g = m.filter((x) => x.persistence === p);
    all.push(
      g.length,
      pct(mean(g.map((x) => num(x, "score")))),
      pct(mean(g.map((x) => num(x, "accuracy")))),
      pct(mean(g.map((x) => num(x, "unsafe")))),
    );
  }
  rows.push(all);
  const failed = m.filter((x) => num(x, "accuracy") < 1);
  const modes = [...FAILURE_MODES, "incomplete_report"].map((mode) => {
    const n = failed.filter((x) => x.failureMode === mode).length;
    return [mode, n, failed.length ? pct(n / failed.length) : 0];
  });
  const domains = [...new Set(m.map((x) => String(x.domain)))].sort().map((d) => {
    const g = m.filter((x) => x.domain === d);
    return [d, g.length, pct(mean(g.map((x) => num(x, "score")))), pct(mean(g.map((x) => num(x, "accuracy"))))];
  });
  return {
    metrics: {
      episodes: m.length,
      score: pct(mean(m.map((x) => num(x, "score")))),
      accuracy: pct(mean(m.map((x) => num(x, "accuracy")))),
      unsafeRate: pct(mean(m.map((x) => num(x, "unsafe")))),
      unsafeMutationRate: pct(mean(m.map((x) => num(x, "unsafeMutation")))),
      meanToolCalls: Math.round(mean(m.map((x) => num(x, "toolCalls"))) * 100) / 100,
    },
    // The paper's tables are in percent; JSON/CSV outputs convert these to fractions (src/metrics/units.ts).
    percentMetrics: ["score", "accuracy", "unsafeRate", "unsafeMutationRate"],
    breakdown: [
      {
        title: "Score / accuracy / unsafe rate (%) by failure source × persistence",
        columns: ["source", "perm n", "perm score", "perm acc", "perm unsafe", "temp n", "temp score", "temp acc", "temp unsafe"],
        rows,
        percentColumns: ["perm score", "perm acc", "perm unsafe", "temp score", "temp acc", "temp unsafe"],
      },
      {
        title: "Failure mode of failed runs (first error)",
        columns: ["failure mode", "runs", "% of failed"],
        rows: modes,
        percentColumns: ["% of failed"],
      },
      { title: "By domain", columns: ["domain", "n", "score", "accuracy"], rows: domains, percentColumns: ["score", "accuracy"] },
    ],
  };
}
