/**
 * Measures every baseline table of docs/RESULTS.md and prints them as Markdown: `npm run results` (a few minutes).
 * Each row is one `rollout` + the family's `aggregate`, exactly what `recovery-gym eval --json` reports, so any row
 * can be re-checked with the CLI command printed under its table.
 *
 *   node --import tsx scripts/results.ts [--only toolmaze,planbench,failingtools,toolmisuse]
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type AggregateReport, registryEntry, rollout } from "../src/index.js";

const argv = process.argv.slice(2);
const only = argv.includes("--only") ? new Set(argv[argv.indexOf("--only") + 1].split(",")) : null;
const wanted = (family: string) => only === null || only.has(family);

function evaluate(envId: string, policy: string, episodes: number, options: Record<string, unknown> = {}): AggregateReport {
  const results = rollout({ envId, policy, episodes, seed: 0, options });
  return registryEntry(envId).aggregate!(results);
}

const pct = (x: number) => (x * 100).toFixed(1);
const fix = (x: number | undefined, d = 3) => (x === undefined || x === null ? "—" : x.toFixed(d));
const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const table = (head: string[], rows: (string | number)[][]) => [row(head), row(head.map(() => "---")), ...rows.map(row)].join("\n");
const cli = (envId: string, policy: string, episodes: number, opts: Record<string, unknown>) =>
  `npx recovery-gym eval --env ${envId} --policy ${policy} --episodes ${episodes}${Object.entries(opts)
    .map(([k, v]) => ` --opt ${k}=${String(v)}`)
    .join("")} --json`;

function toolmaze(): string {
  const policies = ["random", "happy-path", "heuristic", "oracle"];
  const reports = new Map(policies.map((p) => [p, evaluate("ToolMaze-v1", p, 2000)]));
  const rows = [...reports].map(([p, { metrics: m }]) => [
    p,
    pct(m.TSR),
    pct(m.PRR),
    pct(m.PRR_success),
    pct(m.RC),
    pct(m.RC_literal),
    pct(m.Avg),
  ]);
  const h = reports.get("heuristic")!;
  const pick = (title: string) => h.breakdown.find((b) => b.title.startsWith(title))!;
  const v0 = policies.map((p) => {
    const m = evaluate("ToolMaze-v0", p, 2000).metrics;
    return [p, pct(m.TSR), pct(m.PRR), pct(m.RC), pct(m.Avg)];
  });
  return [
    "## ToolMaze-v1 — canonical suite, 2,000 instances (400 tasks × NP, P1–P4), each once",
    "PRR as the paper defines it (a valid recovery strategy executed, whatever the outcome); PRR_success also requires success.\n",
    "RC is measured against an observable policy's c* (one confirming retry before a wise abort); RC_literal against the oracle's.\n",
    table(["policy", "TSR %", "PRR %", "PRR_success %", "RC %", "RC_literal %", "Avg %"], rows),
    ...["TSR", "PRR %", "RC %", "RC_literal"].flatMap((t) => [
      `\nHeuristic by level × perturbation (${pick(t).title}):\n`,
      table(pick(t).columns, pick(t).rows),
    ]),
    `\nRow command: \`${cli("ToolMaze-v1", "<policy>", 2000, {})}\`; acceptance: \`npx tsx scripts/toolmaze-eval.ts --check\``,
    "\n## ToolMaze-v0 (frozen world, kept for reproducibility) — canonical suite, 2,000 instances, each once",
    "PRR here is success-conditioned (v0's definition; equal to its PRR_success).\n",
    table(["policy", "TSR %", "PRR %", "RC %", "Avg %"], v0),
    `\nRow command: \`${cli("ToolMaze-v0", "<policy>", 2000, {})}\``,
  ].join("\n");
}

function planbench(): string {
  const out: string[] = [];
  const official = [process.env.PLANBENCH_DATA_DIR, path.resolve("../shared/planbench-xl")].find(
    (d) => d && existsSync(path.join(d, "tasks.json")),
  );
  const cols = ["policy / setting", "accuracy", "turns", "explored", "S/C", "ITCR", "UIRR", "EGT-P", "EGT-R"];
  const runs = (opts: Record<string, unknown>, episodes: number, cases: [string, string][]) =>
    cases.map(([policy, setting]) => {
      const m = evaluate("PlanBenchXL-v0", policy, episodes, { ...opts, setting, cycle: true }).metrics;
      return [
        `${policy} / ${setting}`,
        fix(m.accuracy),
        fix(m.avgTurns, 2),
        fix(m.meanExploredDatatypes, 2),
        fix(m.searchToCallRatio, 2),
        fix(m.itcr),
        fix(m.uirr, 4),
        fix(m.egtPrecision),
        fix(m.egtRecall),
      ];
    });
  const cases: [string, string][] = [
    ["oracle", "default"],
    ["oracle", "blocker"],
    ["planner", "default"],
    ["planner", "blocker"],
    ["random", "default"],
  ];
  if (official) {
    const n = (JSON.parse(readFileSync(path.join(official, "queries.json"), "utf8")) as unknown[]).length;
    out.push(
      `## PlanBenchXL-v0 — official data (${n} queries present), each query once (\`cycle=true\`)`,
      table(cols, runs({ dataDir: official }, n, cases)),
    );
    const rowOpts = { dataDir: path.relative(process.cwd(), official), setting: "<setting>", cycle: true };
    out.push(`\nRow command: \`${cli("PlanBenchXL-v0", "<policy>", n, rowOpts)}\``);
  }
  out.push(
    "\n## PlanBenchXL-v0 — built-in generated world (seed 42, 330 queries), each once",
    table(cols, runs({ world: "builtin" }, 330, cases.slice(0, 4))),
  );
  return out.join("\n");
}

function failingtools(): string {
  const n = 286;
  const rows = ["random", "naive", "careful", "oracle"].map((p) => {
    const m = (setting: string) => evaluate("FailingTools-v0", p, n, { setting, cycle: true }).metrics;
    const [clean, relaxed, base] = [m("clean"), m("relaxed"), m("base")];
    // This family reports percentages already.
    return [
      p,
      fix(clean.accuracy, 1),
      fix(relaxed.accuracy, 1),
      `${fix(base.score, 1)} / ${fix(base.accuracy, 1)}`,
      `${fix(base.unsafeRate, 1)} / ${fix(base.unsafeMutationRate, 1)}`,
    ];
  });
  return [
    `## FailingTools-v0 — ${n} scenarios, each once (\`cycle=true\`)`,
    table(["policy", "Clean acc %", "Relaxed acc %", "Base score / acc %", "Base unsafe % (any / mutations)"], rows),
    `\nRow command: \`${cli("FailingTools-v0", "<policy>", n, { setting: "<setting>", cycle: true })}\``,
  ].join("\n");
}

function toolmisuse(): string {
  const rows = ["heuristic", "schema-repair", "policy-aware", "instruction-parser", "oracle"].map((p) => {
    const m = evaluate("ToolMisuseBench-v0", p, 1000).metrics;
    return [p, fix(m.success), fix(m["S@4"]), fix(m["S@8"]), fix(m.auc), fix(m.recovery_success), fix(m.invalid_call_rate)];
  });
  // The paper profile (v0.1 reconstruction): the suite the paper's baseline table describes.
  const paper = ["heuristic", "schema-repair", "policy-aware", "instruction-parser", "oracle"].map((p) => {
    const m = evaluate("ToolMisuseBench-v0", p, 1000, { profile: "paper" }).metrics;
    return [p, fix(m.success), fix(m["S@4"]), fix(m["S@8"]), fix(m.auc), fix(m.recovery_success), fix(m.invalid_call_rate)];
  });
  return [
    "## ToolMisuseBench-v0 — our test_public split (1,000 tasks), each once",
    table(["policy", "success", "S(4)", "S(8)", "AUC", "recovery", "invalid call rate"], rows),
    `\nRow command: \`${cli("ToolMisuseBench-v0", "<policy>", 1000, {})}\``,
    '\n### `profile: "paper"` (the v0.1 reconstruction, test_public, 1,000 tasks)',
    table(["policy", "success", "S(4)", "S(8)", "AUC", "recovery", "invalid call rate"], paper),
    `\nRow command: \`${cli("ToolMisuseBench-v0", "<policy>", 1000, { profile: "paper" })}\``,
  ].join("\n");
}

const sections: [string, () => string][] = [
  ["toolmaze", toolmaze],
  ["planbench", planbench],
  ["failingtools", failingtools],
  ["toolmisuse", toolmisuse],
];
for (const [name, run] of sections) {
  if (!wanted(name)) continue;
  const t0 = performance.now();
  const md = run();
  process.stdout.write(`${md}\n\n`);
  process.stderr.write(`${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
