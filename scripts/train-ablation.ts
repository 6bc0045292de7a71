/**
 * The reward ablation by training (docs/TRAINING.md): reads the curve.csv of runs of ppo_masked.py under several
 * reward presets and seeds, prints one Markdown table (final held-out metric, environment steps until it first
 * reached 80% of its final value) and writes one figure with every run's held-out curve, coloured by preset.
 *
 *   node --import tsx scripts/train-ablation.ts --metric PRR --out docs/training/ablation.svg \
 *     sparse=runs/abl-sparse-1 sparse=runs/abl-sparse-2 shaped=runs/abl-shaped-1 ...
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { TopLevelSpec } from "vega-lite";
import { type CurveRow, parseCurveCsv, renderSvg } from "./train-plot.js";

const argsSchema = z.object({
  metric: z.string().min(1),
  out: z.string().min(1),
  runs: z.array(z.object({ preset: z.string().min(1), dir: z.string().min(1) })).min(1),
});

/**
 * Environment steps at the first evaluation reaching `fraction` of the last evaluation's value; null when there is
 * no evaluation or the final value is not positive (nothing was learned, so no step count is meaningful).
 */
export function stepsToFraction(rows: readonly CurveRow[], key: string, fraction: number): number | null {
  const evals = rows.filter((r) => key in r);
  if (evals.length === 0 || !(evals[evals.length - 1][key] > 0)) return null;
  const target = fraction * evals[evals.length - 1][key];
  return evals.find((r) => r[key] >= target)?.env_steps ?? null;
}

function parseArgv(argv: readonly string[]) {
  const raw: { metric?: string; out?: string; runs: { preset: string; dir: string }[] } = { runs: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--metric") raw.metric = argv[++i];
    else if (argv[i] === "--out") raw.out = argv[++i];
    else {
      const eq = argv[i].indexOf("=");
      if (eq < 1) throw new Error(`train-ablation: expected PRESET=DIR, got ${JSON.stringify(argv[i])}`);
      raw.runs.push({ preset: argv[i].slice(0, eq), dir: argv[i].slice(eq + 1) });
    }
  }
  return argsSchema.parse(raw);
}

function main(argv: readonly string[]): void {
  const args = parseArgv(argv);
  const key = `eval_${args.metric}`;
  const points: { preset: string; run: string; steps: number; value: number }[] = [];
  const lines = [`| preset | run | final ${args.metric} | env steps to 80% of final | env steps trained |`, "|---|---|---|---|---|"];
  const byPreset = new Map<string, { finals: number[]; reach: (number | null)[] }>();
  for (const { preset, dir } of args.runs) {
    const rows = parseCurveCsv(readFileSync(path.join(dir, "curve.csv"), "utf8"));
    const run = path.basename(dir);
    for (const r of rows) if (key in r) points.push({ preset, run, steps: r.env_steps, value: r[key] });
    const evals = rows.filter((r) => key in r);
    const final = evals.length ? evals[evals.length - 1][key] : Number.NaN;
    const reach = stepsToFraction(rows, key, 0.8);
    lines.push(`| ${preset} | ${run} | ${final.toFixed(3)} | ${reach ?? "never"} | ${rows.length ? rows[rows.length - 1].env_steps : 0} |`);
    const agg = byPreset.get(preset) ?? { finals: [], reach: [] };
    agg.finals.push(final);
    agg.reach.push(reach);
    byPreset.set(preset, agg);
  }
  // Per preset: mean final value over its runs, and the median steps to 80% (a run that never got there counts as
  // never, so a preset whose final value is 0 does not look fast).
  lines.push("", `| preset | runs | mean final ${args.metric} | median env steps to 80% of final |`, "|---|---|---|---|");
  for (const [preset, { finals, reach }] of byPreset) {
    const steps = reach.map((r) => r ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
    const median = steps[Math.floor((steps.length - 1) / 2)];
    const meanFinal = finals.reduce((a, b) => a + b, 0) / finals.length;
    lines.push(`| ${preset} | ${finals.length} | ${meanFinal.toFixed(3)} | ${Number.isFinite(median) ? median : "never"} |`);
  }
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: `Reward ablation by training: held-out ${args.metric} (greedy)`, fontSize: 14, anchor: "start" },
    background: "white",
    padding: 16,
    width: 480,
    height: 280,
    data: { values: points },
    mark: { type: "line", point: true, opacity: 0.8 },
    encoding: {
      x: { field: "steps", type: "quantitative", title: "environment steps" },
      y: { field: "value", type: "quantitative", title: args.metric, scale: { domain: [0, 1] } },
      color: { field: "preset", type: "nominal", title: "reward preset" },
      detail: { field: "run", type: "nominal" },
    },
  };
  void renderSvg(spec).then((svg) => {
    writeFileSync(args.out, svg);
    process.stdout.write(`${lines.join("\n")}\n`);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
