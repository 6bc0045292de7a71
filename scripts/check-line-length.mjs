#!/usr/bin/env node
// No source line over 140 characters (the Biome formatter's lineWidth). Biome breaks code but cannot break long
// strings, comments or regexes, and it only reports them by rewriting files, so this check lists them instead.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

const LIMIT = 140;
const root = new URL("../", import.meta.url);

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts", "*.mts", "*.js", "*.mjs", "*.cjs"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => f && !f.startsWith("bridge/python/") && !f.startsWith("dist/") && existsSync(new URL(f, root)));

let failed = false;
for (const file of files) {
  readFileSync(new URL(file, root), "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.length <= LIMIT) return;
      failed = true;
      console.error(`${file}:${i + 1}: ${line.length} characters (limit ${LIMIT})`);
    });
}
if (failed) process.exit(1);
