/**
 * The ablation figure, rendered headless by Vega-Lite -> Vega -> `View.toSVG()` (no browser, no canvas): one panel
 * compares mean return ± 95% CI across reward presets, the other shows what the episodes achieved (success, and
 * recovery = success among episodes in which a fault fired), which is the same under every preset because the
 * presets rescore the same episodes. Vega is imported on first use so other commands do not pay for loading it.
 */
import type { TopLevelSpec } from "vega-lite";

export interface AblationBar {
  preset: string;
  mean: number;
  ci: number;
}

export interface AblationOutcomes {
  episodes: number;
  success: number;
  /** Success among episodes that met a fault, or null when none did. */
  recovery: number | null;
  faultEpisodes: number;
}

// labelLimit 0: preset names are never cut (they are long: shaped-no-alternative_switch).
const AXIS = { labelFontSize: 11, titleFontSize: 12, labelLimit: 0, titlePadding: 10, tickCount: 6, grid: true };

/** The Vega-Lite spec of the figure (exported for tests and for readers who want to restyle it). */
export function ablationSpec(title: string, bars: readonly AblationBar[], outcomes: AblationOutcomes): TopLevelSpec {
  const returns = bars.map((b) => ({ preset: b.preset, mean: b.mean, lo: b.mean - b.ci, hi: b.mean + b.ci, label: b.mean.toFixed(3) }));
  const rates = [
    { metric: "success", value: outcomes.success, label: `${(100 * outcomes.success).toFixed(1)}% of ${outcomes.episodes}` },
    outcomes.recovery === null
      ? { metric: "recovery", value: 0, label: "no episode met a fault" }
      : { metric: "recovery", value: outcomes.recovery, label: `${(100 * outcomes.recovery).toFixed(1)}% of ${outcomes.faultEpisodes}` },
  ];
  const angle = bars.some((b) => b.preset.length > 10) ? -30 : 0;
  // Room beyond the whiskers for the value labels, and 0 always in view.
  const lo = Math.min(0, ...returns.map((r) => r.lo));
  const hi = Math.max(0, ...returns.map((r) => r.hi));
  const pad = 0.15 * (hi - lo || 1);
  const domain = [lo < 0 ? lo - pad : 0, hi > 0 ? hi + pad : 0];
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: title, fontSize: 14, anchor: "start" },
    background: "white",
    padding: 16,
    config: { view: { stroke: null }, font: "sans-serif", axis: AXIS },
    hconcat: [
      {
        title: { text: "Return under each reward preset", fontSize: 12 },
        width: Math.max(220, 56 * bars.length),
        height: 260,
        data: { values: returns },
        encoding: { x: { field: "preset", type: "nominal", sort: null, title: null, axis: { labelAngle: angle } } },
        layer: [
          {
            mark: { type: "bar", color: "#4c78a8", width: { band: 0.6 } },
            encoding: { y: { field: "mean", type: "quantitative", title: "mean return (± 95% CI, t)", scale: { domain, nice: true } } },
          },
          {
            mark: { type: "rule", color: "#222", strokeWidth: 1.5 },
            encoding: { y: { field: "lo", type: "quantitative" }, y2: { field: "hi" } },
          },
          { mark: { type: "tick", color: "#222", thickness: 1.5, size: 10 }, encoding: { y: { field: "hi", type: "quantitative" } } },
          { mark: { type: "tick", color: "#222", thickness: 1.5, size: 10 }, encoding: { y: { field: "lo", type: "quantitative" } } },
          // Value labels sit beyond the whisker's outer end (above for positive means, below for negative ones),
          // so no whisker or bar crosses them.
          {
            transform: [{ filter: "datum.mean >= 0" }],
            mark: { type: "text", dy: -6, fontSize: 11, baseline: "bottom" },
            encoding: { y: { field: "hi", type: "quantitative" }, text: { field: "label" } },
          },
          {
            transform: [{ filter: "datum.mean < 0" }],
            mark: { type: "text", dy: 6, fontSize: 11, baseline: "top" },
            encoding: { y: { field: "lo", type: "quantitative" }, text: { field: "label" } },
          },
        ],
      },
      {
        title: {
          text: "Episode outcomes (the same under every preset)",
          subtitle: "recovery = success among the episodes in which a fault fired",
          fontSize: 12,
        },
        width: 240,
        height: 260,
        data: { values: rates },
        encoding: { x: { field: "metric", type: "nominal", sort: null, title: null, axis: { labelAngle: 0 } } },
        layer: [
          {
            mark: { type: "bar", color: "#54a24b", width: { band: 0.6 } },
            encoding: {
              y: { field: "value", type: "quantitative", title: "share of episodes", scale: { domain: [0, 1] }, axis: { format: ".0%" } },
            },
          },
          {
            mark: { type: "text", dy: -6, fontSize: 11, baseline: "bottom" },
            encoding: { y: { field: "value", type: "quantitative" }, text: { field: "label" } },
          },
        ],
      },
    ],
  };
}

/** The figure as a standalone SVG document. */
export async function ablationSvg(title: string, bars: readonly AblationBar[], outcomes: AblationOutcomes): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
  const compiled = vegaLite.compile(ablationSpec(title, bars, outcomes)).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return `${await view.toSVG()}\n`;
  } finally {
    view.finalize();
  }
}
