// scripts/train-report.ts: episodes run elsewhere (the Python PPO) are reported exactly as `recovery-gym eval --json`
// reports the same episodes, and the helper's line protocol answers errors without dying.
import { describe, expect, it } from "vitest";
import { rollout } from "../../src/rollout.js";
import { CANDIDATE_FEATURES, GLOBAL_FEATURES } from "../../src/index.js";
import { evalReport } from "../../scripts/train-report.js";
import { curveSpec, parseCurveCsv } from "../../scripts/train-plot.js";
import { stepsToFraction } from "../../scripts/train-ablation.js";
import { failure, repoRoot, run, runCli } from "../helpers/cli.js";

describe("train-report", () => {
  it("aggregates episode results into the eval --json object, identical to the CLI's for the same episodes", async () => {
    const args = { envId: "ToolMaze-v0", options: { suite: "sampled" }, policy: "heuristic", episodes: 12, seed: 100_000 };
    const results = rollout(args);
    const report = evalReport("ToolMaze-v0", { suite: "sampled" }, 100_000, "heuristic", results);
    const flags = ["--policy", "heuristic", "--episodes", "12", "--seed", "100000", "--json", "--quiet", "--opt", "suite=sampled"];
    const cli = await runCli(["eval", "--env", "ToolMaze-v0", ...flags]);
    expect(cli.status, failure(cli)).toBe(0);
    expect(report).toEqual(JSON.parse(cli.stdout));
    expect(Object.keys(report.metrics)).toEqual(expect.arrayContaining(["TSR", "PRR", "RC"]));
  });

  it("serves aggregate and error replies line by line over stdin/stdout", async () => {
    const results = rollout({ envId: "Demo-v0", policy: "careful", episodes: 3, seed: 5 });
    const lines = [
      JSON.stringify({ op: "aggregate", env: "Demo-v0", options: {}, seed: 5, policy: "careful", results }),
      JSON.stringify({ op: "aggregate", env: "Demo-v0", options: { fault: "sometimes" }, seed: 5, policy: "x", results }),
      JSON.stringify({ op: "aggregate", env: "Demo-v0", options: {}, seed: -1, policy: "x", results }),
      JSON.stringify({ op: "layout" }),
    ];
    const input = `${lines.join("\n")}\n`;
    const res = await run(process.execPath, ["--import", "tsx", "scripts/train-report.ts"], { cwd: repoRoot, input });
    expect(res.status, res.stderr).toBe(0);
    const [ok, badOption, badSeed, layout] = res.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(ok.eval).toMatchObject({ env: "Demo-v0", policy: "careful", episodes: 3, seed: 5, metrics: { successRate: 1 } });
    expect(badOption.error).toMatch(/fault/);
    expect(badSeed.error).toMatch(/^invalid request: seed/);
    expect(layout).toEqual({ globals: GLOBAL_FEATURES.length, slot: CANDIDATE_FEATURES.length });
  });

  it("plots held-out metrics and the training return from curve.csv", () => {
    const rows = parseCurveCsv("update,env_steps,train_return,eval_TSR,eval_PRR\n1,64,0.5,,\n2,128,0.7,0.25,0.5\n");
    expect(rows[0]).toEqual({ update: 1, env_steps: 64, train_return: 0.5 });
    const spec = JSON.stringify(curveSpec("t", rows));
    expect(spec).toContain('"metric":"TSR","value":0.25');
    expect(spec).toContain('"metric":"PRR","value":0.5');
  });

  it("measures the steps a run took to reach 80% of its final held-out value", () => {
    const rows = parseCurveCsv("update,env_steps,eval_PRR\n1,100,0.1\n2,200,\n3,300,0.45\n4,400,0.4\n5,500,0.5\n");
    expect(stepsToFraction(rows, "eval_PRR", 0.8)).toBe(300);
    expect(stepsToFraction(parseCurveCsv("update,env_steps,eval_PRR\n1,100,0\n2,200,0\n"), "eval_PRR", 0.8)).toBeNull();
    expect(stepsToFraction(rows, "eval_TSR", 0.8)).toBeNull();
  });
});
