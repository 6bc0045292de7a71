/**
 * Evaluates ToolMaze baselines on a canonical suite (2,000 instances; seeds 0..1999 cover them once, stratified)
 * and prints the paper-style C × P tables (TSR, PRR, PRR_success, RC, Avg) plus the per-mode and per-level summary the
 * v1 acceptance reads. Same numbers as `recovery-gym eval --env ToolMaze-v1 --policy <name> --episodes 2000`.
 * Run: npx tsx scripts/toolmaze-eval.ts [--env ToolMaze-v0] [policy ...]
 */
import { registryEntry } from "../src/core/registry.js";
import { formatTable } from "../src/metrics/table.js";
import { rollout } from "../src/rollout.js";
import "../envs/toolmaze/index.js";

const args = process.argv.slice(2);
const at = args.indexOf("--env");
const envId = at >= 0 ? args[at + 1]! : "ToolMaze-v1";
const named = at < 0 ? args : args.filter((_, i) => i !== at && i !== at + 1);
const policies = named.length > 0 ? named : ["random", "happy-path", "heuristic", "oracle"];
const pct = (x: number | undefined): string => (x === undefined ? "-" : (x * 100).toFixed(1));
for (const policy of policies) {
  const results = rollout({ envId, policy, episodes: 2000, seed: 0 });
  const agg = registryEntry(envId).aggregate!(results);
  const m = agg.metrics;
  console.log(`\n### ${envId} ${policy}: TSR ${pct(m.TSR)}%  PRR ${pct(m.PRR)}%  PRR_success ${pct(m.PRR_success)}%  RC ${pct(m.RC)}%  Avg ${pct(m.Avg)}%`);
  const modes = ["P1", "P2", "P3", "P4"];
  console.log(`PRR by mode ${modes.map((p) => `${p} ${pct(m[`PRR_${p}`])}`).join(", ")}; RC by mode ${modes.map((p) => `${p} ${pct(m[`RC_${p}`])}`).join(", ")}; `
    + `TSR by level ${["C1", "C2", "C3", "C4"].map((c) => `${c} ${pct(m[`TSR_${c}`])}`).join(", ")}`);
  for (const t of agg.breakdown) {
    console.log(`\n${t.title}`);
    console.log(formatTable(t.columns, t.rows));
  }
}
