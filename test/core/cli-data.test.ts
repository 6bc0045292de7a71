import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectories } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "rg-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[]) => spawnSync(process.execPath, ["bin/recovery-gym.js", ...args, "--quiet"].filter((a, i, all) => !(a === "--quiet" && ["export", "rescore"].includes(all[0]))), { encoding: "utf8" });

describe("data and reward-analysis commands", () => {
  const file = join(dir, "c.jsonl");

  it("collect is resumable and refuses to mix options", () => {
    expect(cli(["collect", "--env", "Demo-v0", "--episodes", "3", "--out", file, "--opt", "fault=permanent"]).status).toBe(0);
    const again = cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", file, "--opt", "fault=permanent"]);
    expect(again.stdout).toMatch(/5 episodes \(2 new\)/);
    expect(readTrajectories(file).map((t) => t.seed)).toEqual([0, 1, 2, 3, 4]);
    const mixed = cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", file]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/different options/);
  });

  it("rescore recomputes returns offline", () => {
    const res = spawnSync(process.execPath, ["bin/recovery-gym.js", "rescore", file, "--reward", "sparse", "--json"], { encoding: "utf8" });
    const out = JSON.parse(res.stdout);
    expect(out.episodes).toBe(5);
    expect(out.rows.every((r: { rescored: number; success: boolean }) => r.rescored === (r.success ? 1 : 0))).toBe(true);
    expect(out.meanOriginal).not.toBe(out.meanRescored);
  });

  it("export writes chat records, filtered by outcome", () => {
    const out = join(dir, "chat.jsonl");
    const res = spawnSync(process.execPath, ["bin/recovery-gym.js", "export", file, "--format", "openai-chat", "--out", out, "--outcome", "success"], { encoding: "utf8" });
    expect(res.status).toBe(0);
    const records = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(records.length).toBe(5);
    expect(records[0].messages[1].role).toBe("user");
    expect(records[0].tools.map((t: { function: { name: string } }) => t.function.name)).toContain("send_email");
    expect(records[0].metadata).toMatchObject({ envId: "Demo-v0", success: true });
    const none = spawnSync(process.execPath, ["bin/recovery-gym.js", "export", file, "--out", out, "--outcome", "failure"], { encoding: "utf8" });
    expect(none.stdout).toMatch(/wrote 0/);
    expect(spawnSync(process.execPath, ["bin/recovery-gym.js", "export", file, "--format", "csv", "--out", out], { encoding: "utf8" }).status).toBe(2);
  });

  it("ablate prints every preset and writes CSV and SVG", () => {
    const outDir = join(dir, "abl");
    const res = cli(["ablate", "--env", "Demo-v0", "--episodes", "10", "--presets", "shaped,sparse", "--out-dir", outDir]);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/shaped/);
    expect(readFileSync(join(outDir, "ablation.csv"), "utf8").split("\n")[0]).toBe("preset,mean_return,ci95,success,episodes");
    expect(readFileSync(join(outDir, "ablation.svg"), "utf8")).toMatch(/^<svg/);
    expect(cli(["ablate", "--env", "Demo-v0", "--presets", "nope"]).stderr).toMatch(/unknown reward preset/);
  });

  it("pairs forks at the first fault and continues two policies from the same state", () => {
    const out = join(dir, "pairs.jsonl");
    const res = cli(["pairs", "--env", "Demo-v0", "--contrast", "adversary:immediate-abort", "--episodes", "3", "--out", out, "--opt", "fault=transient"]);
    expect(res.status).toBe(0);
    expect(existsSync(out)).toBe(true);
    const pairs = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(pairs).toHaveLength(3);
    expect(pairs[0]).toMatchObject({ forkStep: 1, preferred: 0 });
    expect(pairs[0].branches[1].terminationReason).toBe("aborted");
    expect(pairs[0].branches[0].success).toBe(true);
  });
});
