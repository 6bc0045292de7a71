import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// `npm ci` (what CI runs) refuses a lock that lacks entries for optional platform packages; the mirror here does not
// serve them, so `npm install` drops them. scripts/complete-lockfile.mjs puts them back.
describe("package-lock.json", () => {
  it("has an entry for every optional dependency (run: node scripts/complete-lockfile.mjs)", () => {
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { optionalDependencies?: Record<string, string> }> };
    const missing: string[] = [];
    for (const [loc, meta] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(meta.optionalDependencies ?? {})) {
        if (!(`${loc ? `${loc}/` : ""}node_modules/${dep}` in lock.packages) && !(`node_modules/${dep}` in lock.packages)) missing.push(dep);
      }
    }
    expect(missing).toEqual([]);
  });
});
