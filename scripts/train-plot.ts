/**
 * Learning-curve figures for the trainers (examples/python/ppo_masked.py, examples/train-reinforce.ts), rendered
 * headless by Vega-Lite -> Vega -> `View.toSVG()` like the ablation figure (src/cli/plot.ts): the project already
 * depends on them, so the plot needs no Python plotting stack.
 */
import type { TopLevelSpec } from "vega-lite";

/** One curve.csv row: column name -> number (empty cells, e.g. metrics of non-evaluation updates, are left out). */
export type CurveRow = Record<string, number>;

/** Parses the CSV the trainers write (a header line, then numbers; no quoting is ever needed). */
export function parseCurveCsv(text: string): CurveRow[] {
  const [header, ...lines] = text.trim().split(/\r?\n/);
  const names = header.split(",");
  return lines.map((line) => {
    const row: CurveRow = {};
    line.split(",").forEach((cell, i) => {
      const v = Number(cell);
      if (cell !== "" && Number.isFinite(v)) row[names[i]] = v;
    });
    return row;
  });
}

// Held-out rates worth a line: each family's headline metrics (ToolMaze, Failing Tools, ToolMisuseBench,
// PlanBench-XL); the trainer's own episode success only when the family has none of them.
const FAMILY_METRICS = ["eval_TSR", "eval_PRR", "eval_score", "eval_accuracy", "eval_success", "eval_recovery_success"];
const FALLBACK_METRICS = ["eval_successRate", "eval_episode_success"];

/** The learning-curve spec: held-out greedy metrics (left) and the mean training return (right) vs env steps. */
export function curveSpec(title: string, rows: readonly CurveRow[]): TopLevelSpec {
  const has = (k: string) => rows.some((r) => k in r);
  const present = FAMILY_METRICS.some(has) ? FAMILY_METRICS.filter(has) : FALLBACK_METRICS.filter(has).slice(0, 1);
  const evalPoints = rows.flatMap((r) =>
    present.filter((k) => k in r).map((k) => ({ steps: r.env_steps, metric: k.slice("eval_".length), value: r[k] })),
  );
  const trainPoints = rows.filter((r) => "train_return" in r).map((r) => ({ steps: r.env_steps, value: r.train_return }));
  const x = { field: "steps", type: "quantitative" as const, title: "environment steps", scale: { zero: true } };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: title, fontSize: 14, anchor: "start" },
    background: "white",
    padding: 16,
    config: { view: { stroke: null }, font: "sans-serif", axis: { labelFontSize: 11, titleFontSize: 12, grid: true } },
    hconcat: [
      {
        title: { text: "Held-out seeds, greedy policy", fontSize: 12 },
        width: 320,
        height: 240,
        data: { values: evalPoints },
        mark: { type: "line", point: true },
        encoding: {
          x,
          y: { field: "value", type: "quantitative", title: "rate", scale: { domain: [0, 1] } },
          color: { field: "metric", type: "nominal", title: null, legend: { orient: "bottom" } },
        },
      },
      {
        title: { text: "Training episodes (sampled actions)", fontSize: 12 },
        width: 320,
        height: 240,
        data: { values: trainPoints },
        mark: { type: "line", color: "#4c78a8" },
        encoding: { x, y: { field: "value", type: "quantitative", title: "mean episode return" } },
      },
    ],
  };
}

/** Renders a Vega-Lite spec to a standalone SVG document. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "none" });
  try {
    return `${await view.toSVG()}\n`;
  } finally {
    view.finalize();
  }
}

/** The learning curve as an SVG document. */
export async function curveSvg(title: string, rows: readonly CurveRow[]): Promise<string> {
  return renderSvg(curveSpec(title, rows));
}
