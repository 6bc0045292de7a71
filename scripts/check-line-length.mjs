#!/usr/bin/env node
// No source line over 140 characters (the Biome formatter's lineWidth). Biome's formatter only reports such lines by
// rewriting files, and the code base is formatted once, after parallel branches merge; until then this check is
// a ratchet: a file may not gain long lines beyond its count in scripts/long-lines-baseline.txt, and files not
// listed there must have none. `--update` rewrites the baseline to today's counts (run it after fixing lines; it
// refuses to raise a count).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const LIMIT = 140;
const BASELINE = new URL("./long-lines-baseline.txt", import.meta.url);
const root = new URL("../", import.meta.url);

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts", "*.mts", "*.js", "*.mjs", "*.cjs"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => f && !f.startsWith("bridge/python/") && !f.startsWith("dist/") && existsSync(new URL(f, root)));

const counts = new Map();
const examples = new Map();
for (const file of files) {
  const lines = readFileSync(new URL(file, root), "utf8").split("\n");
  lines.forEach((line, i) => {
    if (line.length <= LIMIT) return;
    counts.set(file, (counts.get(file) ?? 0) + 1);
    if (!examples.has(file)) examples.set(file, i + 1);
  });
}

const baseline = new Map();
if (existsSync(BASELINE)) {
  for (const row of readFileSync(BASELINE, "utf8").split("\n")) {
    const m = /^(\d+) (.+)$/.exec(row.trim());
    if (m) baseline.set(m[2], Number(m[1]));
  }
}

if (process.argv.includes("--update")) {
  const raised = [...counts].filter(([f, n]) => n > (baseline.get(f) ?? 0) && baseline.size > 0);
  if (raised.length && !process.argv.includes("--init")) {
    for (const [f, n] of raised) console.error(`${f}: ${n} lines over ${LIMIT} (baseline ${baseline.get(f) ?? 0}); shorten them instead`);
    process.exit(1);
  }
  const rows = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, n]) => `${n} ${f}`);
  writeFileSync(BASELINE, rows.length ? `${rows.join("\n")}\n` : "");
  console.log(`baseline: ${rows.length} file(s), ${[...counts.values()].reduce((a, b) => a + b, 0)} long line(s)`);
  process.exit(0);
}

let failed = false;
for (const [file, n] of counts) {
  const allowed = baseline.get(file) ?? 0;
  if (n > allowed) {
    failed = true;
    console.error(`${file}:${examples.get(file)}: ${n} line(s) over ${LIMIT} characters (allowed until the one-time format: ${allowed})`);
  }
}
if (failed) process.exit(1);
