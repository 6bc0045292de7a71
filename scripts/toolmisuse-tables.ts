/**
 * Re-measures the ToolMisuseBench Table I / Table II figures on our generated test_public split
 * through the Gym env (every baseline, 1,000 episodes: seed i plays task i), as markdown.
 * Usage: npx tsx scripts/toolmisuse-tables.ts [--compat fixed|official] [--split test_public] [--profile solvable|paper]
 */
import "../envs/index.js";
import { rollout } from "../src/rollout.js";
import { aggregateResults } from "../envs/toolmisuse/index.js";
import { BASELINE_NAMES } from "../envs/toolmisuse/baselines.js";
import { SPLIT_SIZES } from "../envs/toolmisuse/tasks.js";

const arg = (k: string, d: string) => {
  const i = process.argv.indexOf(`--${k}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : d;
};
const compat = arg("compat", "fixed");
const split = arg("split", "test_public") as keyof typeof SPLIT_SIZES;
const profile = arg("profile", "solvable");
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "–");
const table1: string[] = [
  "| policy | success | recovery | mean calls | invalid-call rate | policy viol. | budget exc. | S@4 | S@8 | AUC | mean return (shaped) |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
];
const perFault: Record<string, Record<string, string>> = {};
const perDiff: Record<string, Record<string, string>> = {};
for (const policy of BASELINE_NAMES) {
  const options = profile === "solvable" ? { split, compat } : { split, compat, profile };
  const res = rollout({ envId: "ToolMisuseBench-v0", options, policy, episodes: SPLIT_SIZES[split], seed: 0 });
  const a = aggregateResults(res);
  const m = a.metrics;
  const ret = res.reduce((s, r) => s + r.return, 0) / res.length;
  table1.push(
    `| ${policy} | ${f3(m.success!)} | ${f3(m.recovery_success!)} | ` +
      `${m.mean_tool_calls!.toFixed(2)} | ${f3(m.invalid_call_rate!)} | ` +
      `${m.policy_violations!.toFixed(2)} | ${f3(m.budget_exceeded!)} | ` +
      `${f3(m["S@4"] ?? m.s_4 ?? Number.NaN)} | ${f3(m["S@8"] ?? m.s_8 ?? Number.NaN)} | ` +
      `${f3(m.auc!)} | ${ret.toFixed(3)} |`,
  );
  for (const [title, into] of [
    ["by primary fault (Table II)", perFault],
    ["by difficulty", perDiff],
  ] as const) {
    const t = a.breakdown.find((b) => b.title === title)!;
    for (const row of t.rows) (into[String(row[0])] ??= {})[policy] = `${Number(row[2]).toFixed(2)}/${Number(row[3]).toFixed(2)}`;
  }
  if (policy === BASELINE_NAMES[0]) console.error("metric keys:", Object.keys(m).join(", "));
}
console.log(`### ${split}, compat ${compat}${profile === "solvable" ? "" : `, profile ${profile}`}\n`);
console.log(table1.join("\n"));
for (const [title, t] of [
  ["primary fault", perFault],
  ["difficulty", perDiff],
] as const) {
  console.log(`\nSuccess / recovery by ${title}:\n`);
  console.log(`| ${title} | ${BASELINE_NAMES.join(" | ")} |\n|---|${BASELINE_NAMES.map(() => "---").join("|")}|`);
  for (const [k, row] of Object.entries(t)) console.log(`| ${k} | ${BASELINE_NAMES.map((p) => row[p] ?? "–").join(" | ")} |`);
}
