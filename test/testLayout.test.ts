/**
 * How npm test runs vitest (see vitest.config.ts): the shared project in reused worker processes, so the families
 * and their caches load once per worker instead of once per file; the bridge project with a fresh process per file.
 * Losing the flag costs no correctness, only minutes, so nothing else would notice.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/cli.js";

const scripts = (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

describe("npm run test:vitest", () => {
  it("runs each project once: shared with worker reuse, bridge with a fresh process per file", () => {
    const runs = [...(scripts["test:vitest"] ?? "").matchAll(/"vitest run ([^"]*)"/g)].map((m) => m[1]!.split(/\s+/));
    expect(runs.map((args) => args[args.indexOf("--project") + 1]).sort()).toEqual(["bridge", "shared"]);
    for (const args of runs) {
      const reuse = args.includes("--poolOptions.forks.isolate=false");
      expect(reuse, args.join(" ")).toBe(args.includes("shared"));
    }
  });

  it("is what npm test runs", () => {
    expect(scripts.test).toContain("npm:test:vitest");
  });
});
