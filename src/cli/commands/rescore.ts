import { OptionsError } from "../../core/errors.js";
import { make, registryEntry } from "../../core/registry.js";
import type { ToolEnv } from "../../engine/toolEnv.js";
import { mean } from "../../metrics/stats.js";
import { formatTable } from "../../metrics/table.js";
import { recomputeRewards } from "../../rewards/compute.js";
import { resolveRewardSpec } from "../../rewards/presets.js";
import { readTrajectories } from "../../trajectories/writer.js";
import { parseArgs, stringFlag } from "../args.js";

export const RESCORE_HELP = `recovery-gym rescore FILE.jsonl --reward SPEC [--json]
  Recomputes the returns of recorded trajectories under another reward spec (preset name or JSON file).`;

export function rescoreCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, { flags: { reward: "string", json: "boolean", help: "boolean" }, command: "rescore" });
  if (args.flags.help) {
    process.stdout.write(`${RESCORE_HELP}\n`);
    return 0;
  }
  const file = args.positionals[0];
  if (!file) throw new OptionsError("FILE", "rescore: give a trajectory file (JSONL)");
  const reward = stringFlag(args, "reward");
  if (!reward) throw new OptionsError("--reward", "rescore: --reward SPEC is required");
  const trajs = readTrajectories(file);
  if (trajs.length === 0) throw new OptionsError("FILE", `rescore: ${file} holds no trajectories`);
  const { envId, options } = trajs[0];
  const env = make(envId, options) as unknown as ToolEnv<unknown>;
  const spec = resolveRewardSpec(reward, registryEntry(envId).family, env.knownTerms());
  env.close();
  const rows = trajs.map((t) => {
    const rewards = recomputeRewards(spec, t.phi0, t.steps.map((s) => ({ rawTerms: s.rawTerms, phi: s.phi })));
    return { episodeId: t.episodeId, original: t.return, rescored: rewards.reduce((a, b) => a + b, 0), success: t.success };
  });
  if (args.flags.json) {
    process.stdout.write(`${JSON.stringify({ file, reward: spec.name, episodes: rows.length, meanOriginal: mean(rows.map((r) => r.original)), meanRescored: mean(rows.map((r) => r.rescored)), rows })}\n`);
    return 0;
  }
  process.stdout.write(`${formatTable(["episode", "original return", `return under ${spec.name}`, "success"], rows.map((r) => [r.episodeId, r.original, r.rescored, r.success ? "yes" : "no"]))}\n`);
  process.stdout.write(`\nmean: ${mean(rows.map((r) => r.original)).toFixed(4)} -> ${mean(rows.map((r) => r.rescored)).toFixed(4)} over ${rows.length} episodes\n`);
  return 0;
}
