/**
 * `collect` hears Ctrl-C like `rollout` does (it stops at the next pause, exits 130 and a re-run resumes with no
 * duplicate), and rollouts give every episode its own policy stream (episode k does not depend on earlier ones).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliArgv, cliEnv } from "../helpers/cli.js";
import { readTrajectories, rollout } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "rg-int-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): { exited: Promise<number | null>; kill(sig: NodeJS.Signals): void } {
  const child = spawn(process.execPath, cliArgv(args), { env: cliEnv(), stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.resume();
  child.stderr.resume();
  return { exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))), kill: (sig) => child.kill(sig) };
}

describe("collect under SIGINT", () => {
  it("stops promptly with 130; the same command resumes to completion without duplicate episodes", async () => {
    const out = join(dir, "collect.jsonl");
    const args = ["collect", "--env", "Demo-v0", "--policy", "random", "--episodes", "100000", "--out", out, "--quiet"];
    const run = cli(args);
    const deadline = Date.now() + 40_000;
    while (!(existsSync(out) && readFileSync(out, "utf8").split("\n").length > 30)) {
      if (Date.now() > deadline) throw new Error("collect never started writing");
      await new Promise((r) => setTimeout(r, 50));
    }
    const sentAt = Date.now();
    run.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(Date.now() - sentAt).toBeLessThan(3_000);
    const first = readTrajectories(out);
    expect(first.length).toBeGreaterThan(30);
    expect(first.length).toBeLessThan(100000);
    // Resume a small run over the same seeds: everything already there is kept, nothing is written twice.
    const again = cli(["collect", "--env", "Demo-v0", "--policy", "random", "--episodes", String(first.length + 5), "--out", out, "--quiet"]);
    expect(await again.exited).toBe(0);
    const ids = readTrajectories(out).filter((t) => t.terminationReason !== "interrupted").map((t) => t.episodeId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(first.length + 4);
  }, 90_000);
});

describe("rollout seeds a fresh policy per episode", () => {
  it("episode k of a run equals the same seed run alone (stochastic policy)", () => {
    const run = rollout({ envId: "ToolMaze-v0", policy: "random", episodes: 4, seed: 10 });
    const alone = rollout({ envId: "ToolMaze-v0", policy: "random", episodes: 1, seed: 13 });
    expect(alone[0]).toEqual(run[3]);
  });
});
