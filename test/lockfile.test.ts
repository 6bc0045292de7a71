import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./helpers/cli.js";

// `npm ci` (what CI runs) refuses a lock that lacks entries for optional platform packages; the mirror here does not
// serve them, so `npm install` drops them. scripts/complete-lockfile.mjs puts them back.
describe("package-lock.json", () => {
  it("has an entry for every optional dependency (run: node scripts/complete-lockfile.mjs)", () => {
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
      packages: Record<string, { optionalDependencies?: Record<string, string> }>;
    };
    const missing: string[] = [];
    for (const [loc, meta] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(meta.optionalDependencies ?? {})) {
        if (!(`${loc ? `${loc}/` : ""}node_modules/${dep}` in lock.packages) && !(`node_modules/${dep}` in lock.packages))
          missing.push(dep);
      }
    }
    expect(missing).toEqual([]);
  });

  // `npm install` must leave a clean tree: the lock is exactly what npm itself would write for package.json.
  // `--package-lock-only` runs the same tree building and lock writing as `npm install`, without touching node_modules.
  it("is what `npm install` writes: installing rewrites nothing", async (ctx) => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-lock-"));
    try {
      for (const f of ["package.json", "package-lock.json"]) copyFileSync(f, path.join(dir, f));
      const r = await run("npm", ["install", "--package-lock-only", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
        cwd: dir,
      });
      // Offline, npm answers from its cache; a machine whose cache lacks a manifest cannot run this check at all.
      if (r.status !== 0 && /ENOTCACHED/.test(r.stderr)) ctx.skip();
      expect(r.status, r.stderr).toBe(0);
      expect(readFileSync(path.join(dir, "package-lock.json"), "utf8")).toBe(readFileSync("package-lock.json", "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
