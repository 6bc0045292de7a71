import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { execNode, failure, runCli } from "../helpers/cli.js";

const cli = (args: string[]) => runCli(args, { env: { ...process.env, FORCE_COLOR: "0" } });
const dir = mkdtempSync(join(tmpdir(), "rg-cli-basic-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("recovery-gym CLI", () => {
  it("eval --json prints one parseable object with the documented keys", async () => {
    const run = await runCli([
      "eval",
      "--env",
      "Demo-v0",
      "--policy",
      "careful",
      "--episodes",
      "4",
      "--seed",
      "3",
      "--json",
      "--quiet",
      "--opt",
      "fault=permanent",
    ]);
    expect(run.status, failure(run)).toBe(0);
    const res = JSON.parse(run.stdout);
    expect(Object.keys(res)).toEqual(["env", "options", "policy", "episodes", "seed", "metrics", "breakdown"]);
    expect(res).toMatchObject({ env: "Demo-v0", policy: "careful", episodes: 4, seed: 3, metrics: { successRate: 1 } });
    // The options the run used: validated, with every default filled in (as make() saw them).
    expect(res.options).toEqual({ fault: "permanent", reward: "shaped", invalidAction: "raise", hiddenInfo: true });
  });

  it("bad flags, options and policies exit 2 with a message naming them", async () => {
    const badFlag = await cli(["eval", "--env", "Demo-v0", "--episodez", "3"]);
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toMatch(/--episodez/);
    const badOpt = await cli(["rollout", "--env", "Demo-v0", "--opt", "fault=sometimes"]);
    expect(badOpt.status).toBe(2);
    expect(badOpt.stderr).toMatch(/fault/);
    const badPolicy = await cli(["rollout", "--env", "Demo-v0", "--policy", "genius"]);
    expect(badPolicy.status).toBe(2);
    expect(badPolicy.stderr).toMatch(/genius.*available/);
    const noEnv = await cli(["eval"]);
    expect(noEnv.stderr).toMatch(/--env is required/);
    expect((await cli(["frobnicate"])).status).toBe(2);
    const badListFlag = await cli(["list", "--jsno"]);
    expect(badListFlag.status).toBe(2);
    expect(badListFlag.stderr).toMatch(/unknown flag --jsno; accepted: --json, --help/);
  });

  it("--help and list describe the commands and envs", async () => {
    const help = await cli(["--help"]);
    expect(help.status).toBe(0);
    for (const c of ["list", "rollout", "eval", "serve", "generate"]) expect(help.stdout).toContain(`recovery-gym ${c}`);
    const list = JSON.parse((await cli(["list", "--json"])).stdout);
    expect(list.envs.map((e: { id: string }) => e.id)).toContain("Demo-v0");
  });

  it("rollout records trajectories with --out", async () => {
    const res = await cli(["rollout", "--env", "Demo-v0", "--episodes", "3", "--out", `${dir}/t.jsonl`, "--quiet"]);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/episodes/);
    expect(readFileSync(`${dir}/t.jsonl`, "utf8").split("\n").length - 1).toBe(3); // `wc -l`: newline count
  });
});

describe("README example", () => {
  it("examples/quickstart.ts runs and shows the fault and the switch to the alternative", async () => {
    const run = await execNode(["examples/quickstart.ts"]);
    expect(run.status, failure(run)).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/service_unavailable/);
    expect(out).toMatch(/alternative_switch/);
  });
});
