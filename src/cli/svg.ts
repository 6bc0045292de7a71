const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A self-contained SVG bar chart with error whiskers (no plotting dependency needed for a results figure). */
export function barChartSvg(title: string, bars: readonly { label: string; value: number; err: number }[]): string {
  const width = Math.max(360, 70 * bars.length + 80);
  const height = 320;
  const top = 40;
  const bottom = 90;
  const left = 60;
  const plotH = height - top - bottom;
  const hi = Math.max(0, ...bars.map((b) => b.value + b.err));
  const lo = Math.min(0, ...bars.map((b) => b.value - b.err));
  const span = hi - lo || 1;
  const y = (v: number) => top + ((hi - v) / span) * plotH;
  const bw = (width - left - 20) / Math.max(1, bars.length);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="13">${esc(title)}</text>`,
    `<line x1="${left}" y1="${y(0)}" x2="${width - 10}" y2="${y(0)}" stroke="#444"/>`,
    `<text x="${left - 6}" y="${y(hi) + 4}" text-anchor="end">${hi.toFixed(2)}</text>`,
    `<text x="${left - 6}" y="${y(lo) + 4}" text-anchor="end">${lo.toFixed(2)}</text>`,
  ];
  bars.forEach((b, i) => {
    const x = left + i * bw + bw * 0.15;
    const w = bw * 0.7;
    const y0 = y(Math.max(0, b.value));
    const h = Math.abs(y(b.value) - y(0));
    parts.push(`<rect x="${x.toFixed(1)}" y="${y0.toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="${b.value >= 0 ? "#4c78a8" : "#e45756"}"/>`);
    const cx = x + w / 2;
    parts.push(`<line x1="${cx}" y1="${y(b.value + b.err).toFixed(1)}" x2="${cx}" y2="${y(b.value - b.err).toFixed(1)}" stroke="#000"/>`);
    parts.push(`<text x="${cx}" y="${y(b.value) - 4}" text-anchor="middle">${b.value.toFixed(3)}</text>`);
    parts.push(`<text transform="translate(${cx},${height - bottom + 12}) rotate(35)" text-anchor="start">${esc(b.label)}</text>`);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
