// npm here talks to a registry mirror that serves only this platform's optional binaries (e.g. no @rollup/rollup-darwin-x64),
// so `npm install` writes a lock without entries for the other platforms and `npm ci` then refuses it as out of
// sync. This adds the missing optional entries (version only); `npm ci` skips them on this platform.
// Run after any `npm install`: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs";
const path = process.argv[2] ?? "package-lock.json";
const lock = JSON.parse(readFileSync(path, "utf8"));
const pk = lock.packages;
let added = 0;
for (const [loc, meta] of Object.entries(pk)) {
  for (const [dep, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = loc === "" ? "" : `${loc}/`;
    const candidates = [`${base}node_modules/${dep}`, `node_modules/${dep}`];
    if (candidates.some((c) => c in pk)) continue;
    // npm's own key order (version, dev, optional), so a later `npm install` finds nothing to rewrite.
    pk[`node_modules/${dep}`] = { version: range, ...(meta.dev ? { dev: true } : {}), optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pk).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} entries`);
