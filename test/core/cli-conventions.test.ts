import { describe, expect, it } from "vitest";
import { listEnvs, policyEntry } from "../../src/index.js";
import { rollout } from "../../src/rollout.js";
import { failure, runCli } from "../helpers/cli.js";

describe("CLI rough edges", () => {
  it("every env has a working random policy (the CLI default), its own or the generic one", () => {
    for (const { id } of listEnvs()) {
      expect(policyEntry(id, "random").usesHidden, id).toBe(false);
      const results = rollout({ envId: id, policy: "random", episodes: 2, seed: 0 });
      expect(
        results.map((r) => r.seed),
        id,
      ).toEqual([0, 1]);
      // The same seed, the same episode: the generic policy draws from the episode's policy stream.
      expect(rollout({ envId: id, policy: "random", episodes: 2, seed: 0 }), id).toEqual(results);
    }
  });

  it("eval without --policy runs an env whose family registers no random policy", async () => {
    const run = await runCli(["eval", "--env", "ToolMisuseBench-v0", "--episodes", "2", "--json", "--quiet"]);
    expect(run.status, failure(run)).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ env: "ToolMisuseBench-v0", policy: "random", episodes: 2 });
  });

  it("export and rescore of a missing file (or a directory) fail with exit 2 naming it", async () => {
    const missing = await runCli(["export", "runs/does-not-exist.jsonl"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/export: no such file: runs\/does-not-exist\.jsonl/);
    const dir = await runCli(["rescore", "test", "--reward", "sparse"]);
    expect(dir.status).toBe(2);
    expect(dir.stderr).toMatch(/rescore: test is not a file/);
  });
});

describe("the ablation figure (Vega-Lite, rendered headless)", () => {
  it("shows return ± CI per preset with full labels, success and recovery, axes titled, on white", async () => {
    const { ablationSvg } = await import("../../src/cli/plot.js");
    const bars = [
      { preset: "shaped", mean: 1.17, ci: 0.2 },
      { preset: "shaped-no-alternative_switch", mean: -0.4, ci: 0.3 },
    ];
    const outcomes = { episodes: 50, success: 0.62, recovery: 0.41, faultEpisodes: 34 };
    const svg = await ablationSvg("ToolMaze-v0 · policy heuristic · 50 episodes from seed 0", bars, outcomes);
    expect(svg).toMatch(/^<svg[^>]*>\s*<rect width="\d+" height="\d+" fill="white"\/>/);
    const texts = ["shaped-no-alternative_switch", "mean return (± 95% CI, t)", "share of episodes", "success", "recovery"];
    for (const text of [...texts, "62.0% of 50", "41.0% of 34", "1.170", "-0.400"]) {
      expect(svg).toContain(`>${text.replace(/&/g, "&amp;")}<`);
    }
    // More than two y ticks on the return axis (the hand-drawn chart had only min and max).
    const yTicks = svg.match(/<text[^>]*text-anchor="end"[^>]*>-?\d+\.\d<\/text>/g) ?? [];
    expect(yTicks.length).toBeGreaterThanOrEqual(4);
    const none = await ablationSvg("t", bars, { episodes: 5, success: 0, recovery: null, faultEpisodes: 0 });
    expect(none).toContain(">no episode met a fault<");
  });
});
