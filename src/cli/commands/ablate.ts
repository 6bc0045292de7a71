import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { registryEntry } from "../../core/registry.js";
import { episodeResults, type RecordedEpisode, recordEpisodes, returnsUnder, withGamma } from "../../ablation.js";
import { ci95, mean } from "../../metrics/stats.js";
import { formatTable } from "../../metrics/table.js";
import { metricsInFractions, roundIfNumber } from "../../metrics/units.js";
import { listRewardPresets, resolveRewardSpec } from "../../rewards/presets.js";
import { intFlag, parseArgs, stringFlag, requiredFlag } from "../args.js";
import { ProgressBar } from "../progress.js";
import { makeToolEnv } from "../toolEnv.js";
import { ablationSvg } from "../plot.js";

export const ABLATE_HELP = `recovery-gym ablate --env ID --policy P --presets a,b,c [--episodes 50] [--seed 0] [--gamma G] [--out-dir DIR]
    [--opt k=v ...]
  Runs the env once per seed and scores the same episodes under each reward preset (recomputed from
  info.rawTerms). Prints mean return ± 95% CI (Student's t, N − 1 degrees of freedom) and success, then the
  family's recovery metrics; writes ablation.csv (one row per preset, recovery metrics as columns; rates as
  fractions) and ablation.svg (return ± CI per preset, success and recovery = success among faulted episodes).
  --gamma G discounts both the potential term and the return with G (default: each preset's own gamma, 1 for all
  shipped presets), so the shaping part of a return stays γ^T·Φ(s_T) − Φ(s_0).`;

/** One CSV field: quoted when it holds a comma, quote or newline. */
const csvField = (v: string | number) => {
  const s = typeof v === "number" ? (Number.isFinite(v) ? String(v) : "") : v;
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export async function ablateCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, {
    flags: {
      env: "string",
      policy: "string",
      presets: "string",
      episodes: "string",
      seed: "string",
      gamma: "string",
      "out-dir": "string",
      quiet: "boolean",
      help: "boolean",
    },
    command: "ablate",
  });
  if (args.flags.help) {
    process.stdout.write(`${ABLATE_HELP}\n`);
    return 0;
  }
  const envId = requiredFlag(args, "env", "ablate");
  const entry = registryEntry(envId);
  const policy = stringFlag(args, "policy") ?? entry.carefulPolicy ?? "random";
  const episodes = intFlag(args, "episodes", 50, 1);
  const seed = intFlag(args, "seed", 0, 0);
  const gammaFlag = stringFlag(args, "gamma");
  const gamma = gammaFlag === undefined ? undefined : Number(gammaFlag);
  const env = makeToolEnv(envId, args.opts, "ablate");
  const terms = env.knownTerms();
  env.close();
  const available = listRewardPresets(entry.family);
  const presets = (stringFlag(args, "presets") ?? available.join(","))
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const specs = presets.map((p) => withGamma(resolveRewardSpec(p, entry.family, terms), gamma));
  const seeds = Array.from({ length: episodes }, (_, i) => seed + i);
  const bar = new ProgressBar(episodes, `ablate ${envId}/${policy}`, process.stderr, args.flags.quiet !== true, "episodes");
  bar.update(0);
  let recorded: RecordedEpisode[];
  try {
    recorded = recordEpisodes(envId, args.opts, policy, seeds, undefined, (done) => bar.update(done));
  } finally {
    bar.stop();
  }
  const success = mean(recorded.map((e) => (e.success ? 1 : 0)));
  const rows = specs.map((spec, i) => {
    const rets = returnsUnder(spec, recorded);
    return { preset: presets[i], gamma: spec.gamma, mean: mean(rets), ci: ci95(rets) };
  });
  // The recovery metrics depend on the episodes only (not on the reward spec), so they are the same for every row.
  const report = entry.aggregate ? entry.aggregate(episodeResults(recorded)) : null;
  const recovery = report ? report.metrics : {};
  const successText = `success ${(100 * success).toFixed(1)}%`;
  process.stdout.write(`${envId} · policy ${policy} · ${episodes} episodes from seed ${seed} · ${successText}\n\n`);
  process.stdout.write(
    `${formatTable(
      ["preset", "gamma", "mean return", "±95% CI (t)", "success"],
      rows.map((r) => [r.preset, r.gamma, r.mean, r.ci, success]),
    )}\n`,
  );
  if (Object.keys(recovery).length > 0) {
    process.stdout.write(
      `\nrecovery metrics (identical across presets: the episodes are the same)\n` +
        `${formatTable(["metric", "value"], Object.entries(recovery))}\n`,
    );
  }
  const outDir = stringFlag(args, "out-dir") ?? join("runs", `ablate-${envId}-${policy}`);
  mkdirSync(outDir, { recursive: true });
  const fixed = ["preset", "mean_return", "ci95", "success", "episodes", "gamma"];
  const metricCols = Object.keys(recovery).filter((k) => !fixed.includes(k));
  const header = [...fixed, ...metricCols];
  // The CSV follows the one unit convention (docs/METRICS.md): rates as fractions, numbers rounded.
  const csvMetrics = report ? metricsInFractions(report) : {};
  const csvRows = rows.map((r) =>
    [r.preset, r.mean, r.ci, success, episodes, r.gamma, ...metricCols.map((k) => csvMetrics[k])].map(roundIfNumber),
  );
  writeFileSync(join(outDir, "ablation.csv"), `${[header, ...csvRows].map((row) => row.map(csvField).join(",")).join("\n")}\n`);
  const faulted = recorded.filter((e) => e.faultMet);
  const recoveryRate = faulted.length ? mean(faulted.map((e) => (e.success ? 1 : 0))) : null;
  const outcomes = { episodes, success, recovery: recoveryRate, faultEpisodes: faulted.length };
  const title = `${envId} · policy ${policy} · ${episodes} episodes from seed ${seed}`;
  const bars = rows.map((r) => ({ preset: r.preset, mean: r.mean, ci: r.ci }));
  writeFileSync(join(outDir, "ablation.svg"), await ablationSvg(title, bars, outcomes));
  process.stdout.write(`\nwrote ${join(outDir, "ablation.csv")} and ${join(outDir, "ablation.svg")}\n`);
  return 0;
}
