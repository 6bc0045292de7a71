/**
 * Evaluates a ToolMaze baseline on the canonical suite (2,000 instances; seeds 0..1999 cover them once, stratified)
 * and prints the paper-style C × P tables (TSR, PRR, RC, Avg). Same numbers as
 * `recovery-gym eval --env ToolMaze-v0 --policy <name> --episodes 2000`.
 * Run: npx tsx scripts/toolmaze-eval.ts [policy ...]
 */
import { registryEntry } from "../src/core/registry.js";
import { formatTable } from "../src/metrics/table.js";
import { rollout } from "../src/rollout.js";
import "../envs/toolmaze/index.js";

const policies = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["random", "happy-path", "heuristic", "oracle"];
for (const policy of policies) {
  const results = rollout({ envId: "ToolMaze-v0", policy, episodes: 2000, seed: 0 });
  const agg = registryEntry("ToolMaze-v0").aggregate!(results);
  const m = agg.metrics;
  console.log(`\n### ${policy}: TSR ${(m.TSR! * 100).toFixed(1)}%  PRR ${(m.PRR! * 100).toFixed(1)}%  RC ${(m.RC! * 100).toFixed(1)}%  Avg ${(m.Avg! * 100).toFixed(1)}%`);
  for (const t of agg.breakdown) {
    console.log(`\n${t.title}`);
    console.log(formatTable(t.columns, t.rows));
  }
}
