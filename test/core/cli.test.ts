import { execFileSync, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const cli = (args: string[]) => spawnSync(process.execPath, ["bin/recovery-gym.js", ...args], { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });

describe("recovery-gym CLI", () => {
  it("eval --json prints one parseable object with the documented keys", () => {
    const out = execFileSync(process.execPath, ["bin/recovery-gym.js", "eval", "--env", "Demo-v0", "--policy", "careful", "--episodes", "4", "--seed", "3", "--json", "--quiet", "--opt", "fault=permanent"], { encoding: "utf8" });
    const res = JSON.parse(out);
    expect(Object.keys(res)).toEqual(["env", "options", "policy", "episodes", "seed", "metrics", "breakdown"]);
    expect(res).toMatchObject({ env: "Demo-v0", policy: "careful", episodes: 4, seed: 3, metrics: { successRate: 1 } });
    // The options the run used: validated, with every default filled in (as make() saw them).
    expect(res.options).toEqual({ fault: "permanent", reward: "shaped", invalidAction: "raise", hiddenInfo: true });
  });

  it("bad flags, options and policies exit 2 with a message naming them", () => {
    const badFlag = cli(["eval", "--env", "Demo-v0", "--episodez", "3"]);
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toMatch(/--episodez/);
    const badOpt = cli(["rollout", "--env", "Demo-v0", "--opt", "fault=sometimes"]);
    expect(badOpt.status).toBe(2);
    expect(badOpt.stderr).toMatch(/fault/);
    const badPolicy = cli(["rollout", "--env", "Demo-v0", "--policy", "genius"]);
    expect(badPolicy.status).toBe(2);
    expect(badPolicy.stderr).toMatch(/genius.*available/);
    const noEnv = cli(["eval"]);
    expect(noEnv.stderr).toMatch(/--env is required/);
    expect(cli(["frobnicate"]).status).toBe(2);
    const badListFlag = cli(["list", "--jsno"]);
    expect(badListFlag.status).toBe(2);
    expect(badListFlag.stderr).toMatch(/unknown flag --jsno; accepted: --json, --help/);
  });

  it("--help and list describe the commands and envs", () => {
    const help = cli(["--help"]);
    expect(help.status).toBe(0);
    for (const c of ["list", "rollout", "eval", "serve", "generate"]) expect(help.stdout).toContain(`recovery-gym ${c}`);
    const list = JSON.parse(cli(["list", "--json"]).stdout);
    expect(list.envs.map((e: { id: string }) => e.id)).toContain("Demo-v0");
  });

  it("rollout records trajectories with --out", () => {
    const dir = execFileSync("mktemp", ["-d"], { encoding: "utf8" }).trim();
    const res = cli(["rollout", "--env", "Demo-v0", "--episodes", "3", "--out", `${dir}/t.jsonl`, "--quiet"]);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/episodes/);
    expect(execFileSync("wc", ["-l", `${dir}/t.jsonl`], { encoding: "utf8" })).toMatch(/^3 /);
  });
});

describe("README example", () => {
  it("examples/quickstart.ts runs and shows the fault and the switch to the alternative", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "examples/quickstart.ts"], { encoding: "utf8" });
    expect(out).toMatch(/service_unavailable/);
    expect(out).toMatch(/alternative_switch/);
  });
});
