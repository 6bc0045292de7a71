/**
 * Re-measures the Failing Tools tables through the Gym env, as markdown: every baseline under Clean / Relaxed /
 * Base (score, accuracy, unsafe rates, mean return under the default shaped preset), then, per baseline on Base,
 * score/accuracy/unsafe by failure source × persistence and the failure mode of each failed run (first error).
 * `cycle: true` with seeds 0..N-1 plays every scenario exactly once.
 * Usage: npx tsx scripts/failingtools-tables.ts [--policies random,naive,careful,oracle]
 */
import "../envs/index.js";
import { aggregateFailingTools, generateScenarios } from "../envs/failingtools/index.js";
import { rollout } from "../src/rollout.js";

const i = process.argv.indexOf("--policies");
const policies = (i >= 0 ? process.argv[i + 1] : "random,naive,careful,oracle").split(",");
const n = generateScenarios().length;
const settings = ["clean", "relaxed", "base"] as const;
const main = [
  "| policy | " +
    settings.map((s) => `${s} score | ${s} acc`).join(" | ") +
    " | base unsafe | base unsafe mutation | base mean calls | base return (shaped) |",
  `|---|${settings.map(() => "---|---").join("|")}|---|---|---|---|`,
];
const detail: string[] = [];
for (const policy of policies) {
  const cells: string[] = [];
  let baseTail = "";
  for (const setting of settings) {
    const res = rollout({ envId: "FailingTools-v0", options: { setting, cycle: true }, policy, episodes: n, seed: 0 });
    const a = aggregateFailingTools(res);
    cells.push(`${a.metrics.score.toFixed(1)} | ${a.metrics.accuracy.toFixed(1)}`);
    if (setting === "base") {
      const ret = res.reduce((s, r) => s + r.return, 0) / res.length;
      baseTail =
        `${a.metrics.unsafeRate.toFixed(1)} | ${a.metrics.unsafeMutationRate.toFixed(1)} | ` +
        `${a.metrics.meanToolCalls.toFixed(2)} | ${ret.toFixed(3)}`;
      detail.push(`\n#### ${policy}, Base\n`);
      for (const t of a.breakdown.slice(0, 2)) {
        detail.push(
          `${t.title}:\n`,
          `| ${t.columns.join(" | ")} |`,
          `|${t.columns.map(() => "---").join("|")}|`,
          ...t.rows.map((r) => `| ${r.join(" | ")} |`),
          "",
        );
      }
    }
  }
  main.push(`| ${policy} | ${cells.join(" | ")} | ${baseTail} |`);
}
console.log(`### ${n} scenarios, one episode each (%)\n`);
console.log(main.join("\n"));
console.log(detail.join("\n"));
