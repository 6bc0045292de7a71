// One version for the npm package and the Python client: package.json holds it; src/core/version.ts reads it at
// run time, and bridge/python/recovery_gym/_version.py (which pyproject.toml reads) must carry the same string.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_VERSION } from "../bridge/handlers.js";
import { LIBRARY_VERSION } from "../src/index.js";
import { failure, run, runCli } from "./helpers/cli.js";

const pkgVersion = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

describe("version source", () => {
  it("the library, the bridge server, the Python client's _version.py and the changelog all name package.json's version", () => {
    expect(LIBRARY_VERSION).toBe(pkgVersion);
    expect(SERVER_VERSION).toBe(pkgVersion); // the bridge's hello answer
    const pyVersion = /^__version__ = "([^"]*)"$/m.exec(readFileSync("bridge/python/recovery_gym/_version.py", "utf8"))?.[1];
    expect(pyVersion).toBe(pkgVersion);
    expect(readFileSync("CHANGELOG.md", "utf8")).toContain(`## [${pkgVersion}]`);
  });

  it("pyproject.toml takes its version from _version.py, and recovery_gym re-exports it", () => {
    const pyproject = readFileSync("bridge/python/pyproject.toml", "utf8");
    expect(pyproject).toMatch(/^dynamic = \["version"\]$/m);
    expect(pyproject).not.toMatch(/^version = "/m);
    expect(pyproject).toContain('version = { attr = "recovery_gym._version.__version__" }');
    expect(readFileSync("bridge/python/recovery_gym/__init__.py", "utf8")).toMatch(/^from \._version import __version__$/m);
  });

  it("scripts/sync-version.mjs --check refuses a differing copy, and without --check rewrites it", async () => {
    expect((await run(process.execPath, ["scripts/sync-version.mjs", "--check"])).status).toBe(0);
    const dir = mkdtempSync(path.join(tmpdir(), "rg-version-"));
    const copy = path.join(dir, "_version.py");
    writeFileSync(copy, '# comment\n__version__ = "9.9.9"\n');
    const refused = await run(process.execPath, ["scripts/sync-version.mjs", "--check", "--file", copy]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`differs from package.json (${pkgVersion})`);
    const synced = await run(process.execPath, ["scripts/sync-version.mjs", "--file", copy]);
    expect(synced.status, failure(synced)).toBe(0);
    expect(readFileSync(copy, "utf8")).toBe(`# comment\n__version__ = "${pkgVersion}"\n`);
    rmSync(dir, { recursive: true, force: true });
  });

  it("the CLI prints it", async () => {
    const r = await runCli(["--version"]);
    expect(r.status, failure(r)).toBe(0);
    expect(r.stdout.trim()).toBe(pkgVersion);
  });
});
