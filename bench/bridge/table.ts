/** The bridge benchmark's text output: numbers with thousands separators and aligned tables. */

export const fmt = (x: number, d = 0): string => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

/** A text table: the first column left-aligned, the others right-aligned; short rows end in empty cells. */
export function printTable(head: readonly string[], given: readonly (readonly string[])[]): void {
  const rows = given.map((row) => head.map((_, i) => row[i] ?? ""));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ");
  console.log([line(head), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n"));
}
