/**
 * Behaviour drift guard: whole-trajectory hashes of every family (scripts/fingerprint-envs.ts) must equal the pinned
 * ones (scripts/fingerprints.txt). A performance change must leave them alone; a deliberate behaviour change
 * re-pins them in the same commit and says so.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { execNode, failure, repoRoot } from "./helpers/cli.js";

// The PlanBench-XL section plays the official data when it is beside the repository (as in CI), else the built-in world.
const official = existsSync(path.join(repoRoot, "../shared/planbench-xl/tasks.json")) || !!process.env.PLANBENCH_DATA_DIR;
const sections = readFileSync(path.join(repoRoot, "scripts/fingerprints.txt"), "utf8")
  .trim()
  .split("\n")
  .map((l) => l.split(/\s+/)[0]!)
  .filter((name) => official || name !== "planbenchxl");

describe("behaviour fingerprints", () => {
  it("every family's trajectories hash to the pinned values", async () => {
    // A hang guard: 156 s of the 240 s it had went by in npm test on the loaded 2-core machine (load ~21).
    const r = await execNode(["scripts/fingerprint-envs.ts", "--check", ...sections], { timeoutMs: 420_000 });
    expect(r.status, failure(r)).toBe(0);
    expect(r.stdout.match(/ OK$/gm)?.length).toBe(sections.length);
  }, 480_000);
});
