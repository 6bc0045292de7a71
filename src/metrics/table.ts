/** Renders rows as an aligned plain-text table (numbers right-aligned, 3 decimals unless integral). */
export function formatTable(columns: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (v: string | number) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : v);
  const text = rows.map((r) => r.map(cell));
  const widths = columns.map((c, i) => Math.max(c.length, ...text.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[], raw?: readonly (string | number)[]) =>
    cells.map((c, i) => (raw && typeof raw[i] === "number" ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ");
  return [line(columns), widths.map((w) => "-".repeat(w)).join("  "), ...text.map((r, i) => line(r, rows[i]))].join("\n");
}
