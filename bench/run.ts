// Runs every benchmark and prints one table per suite plus ratios. `npm run bench [-- core|toolmaze|...]`.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatTable } from "../src/metrics/table.js";
import { type BenchRow, benchCore } from "./core.js";

type Suite = () => Promise<{ rows: BenchRow[]; notes: string[] }>;

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const suites: [string, Suite][] = [["core", benchCore]];
// Family and bridge benchmarks live in bench/<name>.ts and export `bench(): Promise<{ rows, notes }>`.
for (const f of readdirSync(here).sort()) {
  const name = f.replace(/\.ts$/, "");
  if (!f.endsWith(".ts") || ["run", "core"].includes(name)) continue;
  suites.push([name, async () => ((await import(join(here, f))) as { bench: Suite }).bench()]);
}
for (const [name, suite] of suites) {
  if (only.length && !only.includes(name)) continue;
  if (!existsSync(here)) break;
  const { rows, notes } = await suite();
  const base = rows[0]?.opsPerSec ?? 1;
  process.stdout.write(`\n== ${name} ==\n`);
  process.stdout.write(`${formatTable(["benchmark", "ops/s", "ns/op", "× first row"], rows.map((r) => [r.name, Math.round(r.opsPerSec), Math.round(r.nsPerOp), r.opsPerSec / base]))}\n`);
  for (const n of notes) process.stdout.write(`${n}\n`);
}
