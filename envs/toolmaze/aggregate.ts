/**
 * ToolMaze's run-level aggregation, exactly as SEEDS §1: TSR / PRR / RC / Avg over per-episode metric rows, with the
 * paper's C × P breakdown tables.
 */

/** The subset of per-episode metrics the aggregation reads (as found in `info.metrics`). */
export interface MetricRow {
  complexity: string;
  perturbation: string;
  success: number;
  exposed: number;
  recovered: number | null;
  /** Present in v1 rows (paper-defined `recovered`); v0 rows are success-conditioned already. */
  recoveredOnSuccess?: number | null;
  rc: number;
  /** Present in v1 rows: the RC term against the oracle's c* (the paper's formula read literally). */
  rcLiteral?: number;
}

export interface CellStats {
  n: number;
  tsr: number;
  /** null when no trajectory in the cell met a perturbation. */
  prr: number | null;
  /** PRR counting a recovery only when the task also succeeded (v0's PRR). */
  prrSuccess: number | null;
  rc: number | null;
  /** RC against the oracle's c*, when the rows carry it (v1); null otherwise. */
  rcLiteral: number | null;
  avg: number;
}

/** TSR / PRR / RC / Avg of a set of trajectories. PRR and RC only count perturbed modes (P1–P4). */
export function cellStats(rows: readonly MetricRow[]): CellStats {
  const n = rows.length;
  const tsr = n === 0 ? 0 : rows.reduce((a, r) => a + r.success, 0) / n;
  const pert = rows.filter((r) => r.perturbation !== "NP");
  const exposed = pert.filter((r) => r.exposed === 1);
  const prr = exposed.length === 0 ? null : exposed.reduce((a, r) => a + (r.recovered ?? 0), 0) / exposed.length;
  const prrSuccess =
    exposed.length === 0
      ? null
      : exposed.reduce((a, r) => a + ((r.recoveredOnSuccess === undefined ? r.recovered : r.recoveredOnSuccess) ?? 0), 0) / exposed.length;
  const rc = pert.length === 0 ? null : pert.reduce((a, r) => a + r.rc, 0) / pert.length;
  const rcLiteral =
    pert.length === 0 || pert.some((r) => r.rcLiteral === undefined) ? null : pert.reduce((a, r) => a + r.rcLiteral!, 0) / pert.length;
  const parts = [tsr, ...(prr === null ? [] : [prr]), ...(rc === null ? [] : [1 - rc])];
  return { n, tsr, prr, prrSuccess, rc, rcLiteral, avg: parts.reduce((a, x) => a + x, 0) / parts.length };
}

const pct = (x: number | null): string | number => (x === null ? "-" : Math.round(x * 1000) / 10);

/** Run-level metrics plus C × P breakdown tables (TSR, PRR, RC, Avg), like the paper's main table. */
export function aggregateRows(rows: readonly MetricRow[]): {
  metrics: Record<string, number>;
  breakdown: { title: string; columns: string[]; rows: (string | number)[][]; percentColumns: string[] }[];
} {
  const all = cellStats(rows);
  const metrics: Record<string, number> = { episodes: all.n, TSR: all.tsr, PRR: all.prr ?? 0, RC: all.rc ?? 0, Avg: all.avg };
  if (all.prrSuccess !== null) metrics.PRR_success = all.prrSuccess;
  if (all.rcLiteral !== null) metrics.RC_literal = all.rcLiteral;
  const levels = ["C1", "C2", "C3", "C4"].filter((c) => rows.some((r) => r.complexity === c));
  const modes = ["NP", "P1", "P2", "P3", "P4"].filter((p) => rows.some((r) => r.perturbation === p));
  for (const p of modes) {
    const s = cellStats(rows.filter((r) => r.perturbation === p));
    metrics[`TSR_${p}`] = s.tsr;
    if (s.prr !== null) metrics[`PRR_${p}`] = s.prr;
    if (s.prrSuccess !== null) metrics[`PRR_success_${p}`] = s.prrSuccess;
    if (s.rc !== null) metrics[`RC_${p}`] = s.rc;
    if (s.rcLiteral !== null) metrics[`RC_literal_${p}`] = s.rcLiteral;
  }
  for (const c of levels) metrics[`TSR_${c}`] = cellStats(rows.filter((r) => r.complexity === c)).tsr;
  const table = (title: string, pick: (s: CellStats) => number | null) => ({
    title,
    columns: ["C", ...modes, "All"],
    // The paper's table is in percent; JSON/CSV outputs convert to fractions (src/metrics/units.ts).
    percentColumns: [...modes, "All"],
    rows: [...levels, "All"].map((c) => {
      const inC = c === "All" ? rows : rows.filter((r) => r.complexity === c);
      return [c, ...modes.map((p) => pct(pick(cellStats(inC.filter((r) => r.perturbation === p))))), pct(pick(cellStats(inC)))];
    }),
  });
  return {
    metrics,
    breakdown: [
      table("TSR % (task success rate)", (s) => s.tsr),
      table("PRR % (recovered | perturbation encountered)", (s) => s.prr),
      table("PRR_success % (recovered and succeeded | perturbation encountered)", (s) => s.prrSuccess),
      table("RC % (recovery cost, 0 = optimal)", (s) => s.rc),
      ...(all.rcLiteral === null
        ? []
        : [table("RC_literal % (recovery cost against the oracle's c*: the paper's formula read literally)", (s) => s.rcLiteral)]),
      table("Avg % = (TSR + PRR + (1 - RC)) / 3", (s) => s.avg),
    ],
  };
}
