import { existsSync } from "node:fs";
import { OptionsError } from "../../core/errors.js";
import { stableStringify } from "../../core/json.js";
import { parseEnvOptions, registryEntry } from "../../core/registry.js";
import type { Trajectory } from "../../trajectories/schema.js";
import type { Env } from "../../core/env.js";
import { rollout } from "../../rollout.js";
import { readTrajectories } from "../../trajectories/writer.js";
import { RecordTrajectory } from "../../../wrappers/recordTrajectory.js";
import { intFlag, parseArgs, stringFlag } from "../args.js";
import { ProgressBar } from "../progress.js";

export const COLLECT_HELP = `recovery-gym collect --env ID --policy P --episodes N --out FILE.jsonl [--seed 0] [--opt k=v ...]
  Collects trajectories (versioned schema, exported as trajectorySchema) with per-step hidden annotations and
  per-episode family analyses. Resumable: re-running skips episode ids already in FILE.`;

export function collectCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, { flags: { env: "string", policy: "string", episodes: "string", seed: "string", out: "string", quiet: "boolean", help: "boolean" }, command: "collect" });
  if (args.flags.help) {
    process.stdout.write(`${COLLECT_HELP}\n`);
    return 0;
  }
  const envId = stringFlag(args, "env");
  const out = stringFlag(args, "out");
  if (!envId) throw new OptionsError("--env", "collect: --env is required");
  if (!out) throw new OptionsError("--out", "collect: --out FILE.jsonl is required");
  const entry = registryEntry(envId);
  const policy = stringFlag(args, "policy") ?? entry.carefulPolicy ?? "random";
  const episodes = intFlag(args, "episodes", 100, 1);
  const seed0 = intFlag(args, "seed", 0, 0);
  const existing = existsSync(out) ? readTrajectories(out) : [];
  const done = new Set(existing.filter((t) => t.terminationReason !== "interrupted").map((t) => t.episodeId));
  const wanted = Array.from({ length: episodes }, (_, i) => seed0 + i).filter((s) => !done.has(`${envId}:${s}`));
  if (existing.length > 0 && existing[0].envId !== envId) throw new OptionsError("--out", `collect: ${out} holds ${existing[0].envId} trajectories, not ${envId}`);
  const options = parseEnvOptions(envId, args.opts);
  if (existing.length > 0 && stableStringify(existing[0].options) !== stableStringify(options)) {
    throw new OptionsError("--opt", `collect: ${out} was collected with options ${stableStringify(existing[0].options)}; use another file for different options`);
  }
  const analyzeTrajectory = entry.analyzeTrajectory;
  const analyze = analyzeTrajectory ? (t: Trajectory) => ({ ...t, analysis: analyzeTrajectory(t) }) : undefined;
  const bar = new ProgressBar(episodes, `collect ${envId}/${policy}`, process.stderr, args.flags.quiet !== true);
  let finished = episodes - wanted.length;
  bar.update(finished, finished ? `(${finished} already in ${out})` : "");
  for (const seed of wanted) {
    rollout({
      envId,
      options: args.opts,
      policy,
      episodes: 1,
      seed,
      wrap: (env: Env<unknown, unknown>) => new RecordTrajectory(env, out, { annotate: analyze }),
    });
    finished += 1;
    bar.update(finished);
  }
  process.stdout.write(`${out}: ${finished} episodes (${wanted.length} new)\n`);
  return 0;
}
