// Runs every benchmark and prints its tables and ratios: `npm run bench [-- core toolmaze ...]`.
// The core suite runs in this process; each family/bridge benchmark is its own script (bench/<name>.ts or
// bench/<name>/run.ts), run in a fresh process so one suite's heap and JIT state never skew another's numbers.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatTable } from "../src/metrics/table.js";
import { benchCore } from "./core.js";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const want = (name: string) => only.length === 0 || only.includes(name);

if (want("core")) {
  const { rows, notes } = await benchCore();
  const bare = rows[0];
  const table = formatTable(
    ["benchmark", "ops/s", "ns/op", "±%", "× bare call", "µs over bare"],
    rows.map((r) => [
      r.name,
      Math.round(r.opsPerSec),
      Math.round(r.nsPerOp),
      r.rme === undefined ? "" : r.rme.toFixed(1),
      r.nsPerOp / bare.nsPerOp,
      ((r.nsPerOp - bare.nsPerOp) / 1000).toFixed(3),
    ]),
  );
  process.stdout.write(`\n== core ==\n${table}\n${notes.join("\n")}\n`);
}

for (const entry of readdirSync(here).sort()) {
  const full = join(here, entry);
  const name = entry.replace(/\.ts$/, "");
  const script = statSync(full).isDirectory()
    ? [join(full, "run.ts"), join(full, "index.ts")].find((p) => existsSync(p))
    : entry.endsWith(".ts") && !["run.ts", "core.ts"].includes(entry)
      ? full
      : undefined;
  if (!script || !want(name)) continue;
  process.stdout.write(`\n== ${name} ==\n`);
  const res = spawnSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit" });
  if (res.status !== 0) process.stdout.write(`(${name} benchmark exited with ${res.status})\n`);
}
