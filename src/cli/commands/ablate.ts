import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OptionsError } from "../../core/errors.js";
import { make, registryEntry } from "../../core/registry.js";
import type { ToolEnv } from "../../engine/toolEnv.js";
import { recordEpisodes, returnsUnder } from "../../ablation.js";
import { ci95, mean } from "../../metrics/stats.js";
import { formatTable } from "../../metrics/table.js";
import { listRewardPresets, resolveRewardSpec } from "../../rewards/presets.js";
import { intFlag, parseArgs, stringFlag } from "../args.js";
import { ProgressBar } from "../progress.js";
import { barChartSvg } from "../svg.js";

export const ABLATE_HELP = `recovery-gym ablate --env ID --policy P --presets a,b,c [--episodes 50] [--seed 0] [--out-dir DIR] [--opt k=v ...]
  Runs the env once per seed and scores the same episodes under each reward preset (recomputed from
  info.rawTerms). Prints mean return ± 95% CI and success, writes ablation.csv and ablation.svg.`;

export function ablateCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, { flags: { env: "string", policy: "string", presets: "string", episodes: "string", seed: "string", "out-dir": "string", quiet: "boolean", help: "boolean" }, command: "ablate" });
  if (args.flags.help) {
    process.stdout.write(`${ABLATE_HELP}\n`);
    return 0;
  }
  const envId = stringFlag(args, "env");
  if (!envId) throw new OptionsError("--env", "ablate: --env is required");
  const entry = registryEntry(envId);
  const policy = stringFlag(args, "policy") ?? entry.carefulPolicy ?? "random";
  const episodes = intFlag(args, "episodes", 50, 1);
  const seed = intFlag(args, "seed", 0, 0);
  const env = make(envId, args.opts) as unknown as ToolEnv<unknown>;
  const terms = env.knownTerms();
  const available = listRewardPresets(entry.family);
  const presets = (stringFlag(args, "presets") ?? available.join(",")).split(",").map((p) => p.trim()).filter(Boolean);
  const specs = presets.map((p) => resolveRewardSpec(p, entry.family, terms));
  const seeds = Array.from({ length: episodes }, (_, i) => seed + i);
  const bar = new ProgressBar(1, `ablate ${envId}/${policy}`, process.stderr, args.flags.quiet !== true);
  const recorded = recordEpisodes(envId, args.opts, policy, seeds);
  bar.update(1, `${episodes} episodes recorded`);
  const success = mean(recorded.map((e) => (e.success ? 1 : 0)));
  const rows = specs.map((spec, i) => {
    const rets = returnsUnder(spec, recorded);
    return { preset: presets[i], mean: mean(rets), ci: ci95(rets) };
  });
  process.stdout.write(`${envId} · policy ${policy} · ${episodes} episodes from seed ${seed} · success ${(100 * success).toFixed(1)}%\n\n`);
  process.stdout.write(`${formatTable(["preset", "mean return", "±95% CI", "success"], rows.map((r) => [r.preset, r.mean, r.ci, success]))}\n`);
  if (entry.aggregate) {
    const report = entry.aggregate(recorded.map((e) => ({ seed: e.seed, taskId: "", return: 0, length: e.steps.length, success: e.success, terminationReason: e.terminationReason, metrics: e.metrics })));
    process.stdout.write(`\nrecovery metrics (identical across presets: the episodes are the same)\n${formatTable(["metric", "value"], Object.entries(report.metrics))}\n`);
  }
  const outDir = stringFlag(args, "out-dir") ?? join("runs", `ablate-${envId}-${policy}`);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "ablation.csv"), `preset,mean_return,ci95,success,episodes\n${rows.map((r) => `${r.preset},${r.mean},${r.ci},${success},${episodes}`).join("\n")}\n`);
  writeFileSync(join(outDir, "ablation.svg"), barChartSvg(`${envId} · ${policy} · mean return ± 95% CI`, rows.map((r) => ({ label: r.preset, value: r.mean, err: r.ci }))));
  process.stdout.write(`\nwrote ${join(outDir, "ablation.csv")} and ${join(outDir, "ablation.svg")}\n`);
  return 0;
}
