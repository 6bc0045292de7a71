import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectories, type Trajectory } from "../../src/index.js";
import { cli, interruptedCopy, writeJsonl } from "./dataCommands.js";

// The CLI's data commands run as child processes, awaited (see test/helpers/cli.ts); export is in cli-export.test.ts,
// ablate and pairs in cli-ablate-pairs.test.ts.
const dir = mkdtempSync(join(tmpdir(), "rg-cli-collect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("data commands: collect and rescore", () => {
  // Written by the first test, resumed and re-scored by the others (5 careful episodes, seeds 0..4).
  const file = join(dir, "c.jsonl");

  it("collect is resumable and refuses to mix options", async () => {
    expect((await cli(["collect", "--env", "Demo-v0", "--episodes", "3", "--out", file, "--opt", "fault=permanent"])).status).toBe(0);
    const again = await cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", file, "--opt", "fault=permanent"]);
    expect(again.stdout).toMatch(/5 episodes \(2 new\)/);
    expect(readTrajectories(file).map((t) => t.seed)).toEqual([0, 1, 2, 3, 4]);
    expect(readTrajectories(file).every((t) => t.policy === "careful")).toBe(true);
    const mixed = await cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", file]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/different options/);
  });

  it("collect on a file with a corrupt middle line names the file and line, without a stack trace", async () => {
    const bad = join(dir, "corrupt.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    writeFileSync(bad, [lines[0], '{"envId": "Demo-v0", cut', ...lines.slice(1)].join("\n"));
    const r = await cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", bad, "--opt", "fault=permanent"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${bad} line 2: corrupt record`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("collect records the policy and refuses to resume a file with another one", async () => {
    const before = readFileSync(file, "utf8");
    const other = await cli([
      "collect",
      "--env",
      "Demo-v0",
      "--policy",
      "random",
      "--episodes",
      "7",
      "--out",
      file,
      "--opt",
      "fault=permanent",
    ]);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/collected with policy careful, not random/);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("collect supersedes interrupted records: every episode id appears once, complete", async () => {
    const f = join(dir, "resume.jsonl");
    expect((await cli(["collect", "--env", "Demo-v0", "--episodes", "2", "--out", f])).status).toBe(0);
    const [t0, t1] = readTrajectories(f);
    // Seed 1 was cut short on a first run and seed 2 never finished: both are in the file only as interrupted.
    writeJsonl(f, [t0, interruptedCopy(t1), interruptedCopy({ ...t1, episodeId: "Demo-v0:2", seed: 2 })]);
    const res = await cli(["collect", "--env", "Demo-v0", "--episodes", "3", "--out", f]);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/3 episodes \(2 new, 2 superseded record\(s\) removed\)/);
    const after = readTrajectories(f);
    expect(after.map((t) => t.episodeId)).toEqual(["Demo-v0:0", "Demo-v0:1", "Demo-v0:2"]);
    expect(after.every((t) => t.terminationReason !== "interrupted")).toBe(true);
    expect(after[1]).toEqual(t1);
  });

  it("rescore recomputes returns offline", async () => {
    const res = await cli(["rescore", file, "--reward", "sparse", "--json"]);
    const out = JSON.parse(res.stdout);
    expect(out.episodes).toBe(5);
    expect(out.rows.every((r: { rescored: number; success: boolean }) => r.rescored === (r.success ? 1 : 0))).toBe(true);
    expect(out.meanOriginal).not.toBe(out.meanRescored);
  });

  it("rescore groups records by (env, options) and checks the spec against each group's env", async () => {
    const tm = join(dir, "tm.jsonl");
    expect((await cli(["collect", "--env", "ToolMaze-v0", "--episodes", "3", "--out", tm, "--opt", "perturbation=P2"])).status).toBe(0);
    const both = join(dir, "both.jsonl");
    writeFileSync(both, readFileSync(file, "utf8"));
    appendFileSync(both, readFileSync(tm, "utf8"));
    // Every record was played under its family's default "shaped" preset, so re-scoring with "shaped" resolved for
    // each record's own env gives back the recorded returns; scoring ToolMaze records with Demo's preset would not.
    const out = JSON.parse((await cli(["rescore", both, "--reward", "shaped", "--json"])).stdout);
    expect(out.groups.map((g: { envId: string; episodes: number }) => [g.envId, g.episodes])).toEqual([
      ["Demo-v0", 5],
      ["ToolMaze-v0", 3],
    ]);
    for (const r of out.rows as { original: number; rescored: number }[]) expect(r.rescored).toBeCloseTo(r.original, 9);
    // --gamma discounts both returns the same way.
    const g = JSON.parse((await cli(["rescore", both, "--reward", "sparse", "--gamma", "0.5", "--json"])).stdout);
    const rec = readTrajectories(both).find((t) => t.episodeId === "ToolMaze-v0:0") as Trajectory;
    const row = g.rows.find((r: { episodeId: string }) => r.episodeId === "ToolMaze-v0:0");
    expect(row.rescored).toBeCloseTo(rec.success ? 0.5 ** (rec.length - 1) : 0, 12);
  });
});
