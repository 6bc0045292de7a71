/**
 * ToolMisuseBench benchmarks: generation time for the full 6,800-task suite (cold, in a
 * fresh process) and episode throughput (steps/s) for the raw episode runner and for the
 * Gym env, per baseline. Run: npx tsx bench/toolmisuse.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generateSplit } from "../envs/toolmisuse/tasks.js";
import { generateToolMisuseBench } from "../envs/toolmisuse/suiteOutput.js";
import { runEpisode } from "../envs/toolmisuse/runner.js";
import { makeBaseline, BASELINE_NAMES } from "../envs/toolmisuse/baselines.js";
import { rollout } from "../src/rollout.js";
import "../envs/toolmisuse/index.js";

/** Env steps/s: a registered policy through the full Gym env (events, rewards, observations). */
function benchEnvSteps(policy: string, episodes: number): number {
  const t = performance.now();
  const res = rollout({ envId: "ToolMisuseBench-v0", options: { split: "test_public" }, policy, episodes, seed: 0 });
  const steps = res.reduce((a, r) => a + r.length, 0);
  return steps / ((performance.now() - t) / 1000);
}

const dir = mkdtempSync(path.join(tmpdir(), "tmb-bench-"));
let t0 = performance.now();
const manifest = generateToolMisuseBench({ outDir: dir, seed: 42 });
const genMs = performance.now() - t0;
rmSync(dir, { recursive: true, force: true });
console.log(
  `generation: ${String(manifest.total)} tasks (validated, written, hashed) in ` +
    `${(genMs / 1000).toFixed(2)} s  (${(Number(manifest.total) / (genMs / 1000)).toFixed(0)} ` +
    `tasks/s)`,
);

const tasks = generateSplit("test_public");
const rows: string[][] = [["policy", "runner steps/s", "env steps/s", "env/runner"]];
for (const name of BASELINE_NAMES) {
  const agent = makeBaseline(name);
  let steps = 0;
  t0 = performance.now();
  for (let rep = 0; rep < 3; rep++) {
    for (const t of tasks) steps += runEpisode(t.record, agent, { compat: "fixed" }).metrics.steps;
  }
  const runnerRate = steps / ((performance.now() - t0) / 1000);
  const envRate = benchEnvSteps(name, 1000);
  rows.push([name, runnerRate.toFixed(0), envRate.toFixed(0), (envRate / runnerRate).toFixed(2)]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(r.map((c, i) => c.padStart(widths[i]!)).join("  "));
