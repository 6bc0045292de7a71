import { OptionsError } from "../../core/errors.js";
import { stableStringify } from "../../core/json.js";
import { registryEntry } from "../../core/registry.js";
import { withGamma } from "../../ablation.js";
import { groupBy, mean } from "../../metrics/stats.js";
import { formatTable } from "../../metrics/table.js";
import { roundIfNumber } from "../../metrics/units.js";
import { discountedReturn, recomputeRewards } from "../../rewards/compute.js";
import { resolveRewardSpec } from "../../rewards/presets.js";
import type { RewardSpec } from "../../rewards/spec.js";
import type { Trajectory } from "../../core/trajectory.js";
import { readTrajectories } from "../../trajectories/writer.js";
import { parseArgs, stringFlag, existingFile, requiredFlag } from "../args.js";
import { currentRecords } from "./collect.js";
import { makeToolEnv } from "../toolEnv.js";

export const RESCORE_HELP = `recovery-gym rescore FILE.jsonl --reward SPEC [--gamma G] [--include-interrupted] [--json]
  Recomputes the returns of recorded trajectories under another reward spec (preset name or JSON file). Records are
  grouped by (env, options) and the spec is checked against each group's env. Per episode id the last complete record
  counts; interrupted records are skipped unless --include-interrupted. --gamma G discounts the potential term and
  both returns with G (default: the spec's gamma; the original return is then the recorded undiscounted sum).`;

interface Row {
  episodeId: string;
  envId: string;
  original: number;
  rescored: number;
  success: boolean;
  terminationReason: string;
}

export function rescoreCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, {
    flags: { reward: "string", gamma: "string", "include-interrupted": "boolean", json: "boolean", help: "boolean" },
    command: "rescore",
  });
  if (args.flags.help) {
    process.stdout.write(`${RESCORE_HELP}\n`);
    return 0;
  }
  const file = args.positionals[0];
  if (!file) throw new OptionsError("FILE", "rescore: give a trajectory file (JSONL)");
  existingFile(file, "FILE", "rescore");
  const reward = requiredFlag(args, "reward", "rescore", "SPEC");
  const gammaFlag = stringFlag(args, "gamma");
  const gamma = gammaFlag === undefined ? undefined : Number(gammaFlag);
  const all = readTrajectories(file);
  const trajs = currentRecords(all, args.flags["include-interrupted"] === true);
  if (trajs.length === 0)
    throw new OptionsError(
      "FILE",
      `rescore: ${file} holds no ${all.length ? "complete " : ""}trajectories` +
        `${all.length ? " (use --include-interrupted for interrupted ones)" : ""}`,
    );
  const groups = groupBy(trajs, (t) => `${t.envId}\u0000${stableStringify(t.options)}`);
  const rows: Row[] = [];
  const summary: { envId: string; options: Trajectory["options"]; episodes: number; meanOriginal: number; meanRescored: number }[] = [];
  let specName = "";
  for (const group of groups.values()) {
    const { envId, options } = group[0];
    // Each (env, options) group gets its own env: the spec is checked against that env's term catalog.
    const env = makeToolEnv(envId, options, "rescore");
    const spec: RewardSpec = withGamma(resolveRewardSpec(reward, registryEntry(envId).family, env.knownTerms()), gamma);
    env.close();
    specName = spec.name;
    const groupRows = group.map((t): Row => {
      const rewards = recomputeRewards(
        spec,
        t.phi0,
        t.steps.map((s) => ({ rawTerms: s.rawTerms, phi: s.phi })),
      );
      const original =
        gamma === undefined
          ? t.return
          : discountedReturn(
              t.steps.map((s) => s.reward),
              gamma,
            );
      return {
        episodeId: t.episodeId,
        envId,
        original,
        rescored: discountedReturn(rewards, spec.gamma),
        success: t.success,
        terminationReason: t.terminationReason,
      };
    });
    rows.push(...groupRows);
    summary.push({
      envId,
      options,
      episodes: groupRows.length,
      meanOriginal: mean(groupRows.map((r) => r.original)),
      meanRescored: mean(groupRows.map((r) => r.rescored)),
    });
  }
  const skipped = all.length - trajs.length;
  if (args.flags.json) {
    // Numbers rounded as every JSON output rounds them (docs/METRICS.md).
    const meanOriginal = mean(rows.map((r) => r.original));
    const meanRescored = mean(rows.map((r) => r.rescored));
    const json = { file, reward: specName, episodes: rows.length, skipped, meanOriginal, meanRescored, groups: summary, rows };
    process.stdout.write(`${JSON.stringify(json, (_k, v: unknown) => roundIfNumber(v))}\n`);
    return 0;
  }
  process.stdout.write(
    `${formatTable(
      ["episode", "original return", `return under ${specName}`, "success", "end"],
      rows.map((r) => [r.episodeId, r.original, r.rescored, r.success ? "yes" : "no", r.terminationReason]),
    )}\n\n`,
  );
  for (const g of summary)
    process.stdout.write(
      `${g.envId} ${stableStringify(g.options)}: ` +
        `mean ${g.meanOriginal.toFixed(4)} -> ${g.meanRescored.toFixed(4)} over ${g.episodes} episodes\n`,
    );
  if (skipped > 0) process.stdout.write(`(${skipped} superseded or interrupted record(s) skipped)\n`);
  return 0;
}
