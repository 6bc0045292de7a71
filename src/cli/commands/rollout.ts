import type { Env } from "../../core/env.js";
import { OptionsError } from "../../core/errors.js";
import type { JsonObject } from "../../core/json.js";
import { type AggregateReport, type EpisodeResult, parseEnvOptions, registryEntry } from "../../core/registry.js";
import { ci95, mean } from "../../metrics/stats.js";
import { formatTable } from "../../metrics/table.js";
import { reportInFractions } from "../../metrics/units.js";
import { rolloutAsync } from "../../rollout.js";
import { policyEntry } from "../../ablation.js";
import { RecordTrajectory } from "../../../wrappers/recordTrajectory.js";
import { type FlagKind, intFlag, type ParsedArgs, parseArgs, peekBoolean, peekFlag, stringFlag } from "../args.js";
import { ProgressBar } from "../progress.js";
import { SIGNAL_EXIT_CODES, type StopSignal, stopOnSignals } from "../signals.js";

export const ROLLOUT_FLAGS: Readonly<Record<string, FlagKind>> = {
  env: "string",
  policy: "string",
  episodes: "string",
  seed: "string",
  out: "string",
  json: "boolean",
  quiet: "boolean",
  help: "boolean",
};

export const ROLLOUT_HELP = `recovery-gym rollout --env ID [--policy random] [--episodes 10] [--seed 0] [--out FILE.jsonl]
    [--opt key=value ...]
  Runs a policy for N seeded episodes (episode i uses seed+i) with a progress bar; --out records trajectories.`;

export const EVAL_HELP = `recovery-gym eval --env ID [--policy random] [--episodes N] [--seed 0] [--json] [--opt key=value ...]
  Like rollout (the same summary: success, mean return ± 95% CI by Student's t, mean length), then prints the
  family's paper metrics and breakdown tables. --json prints one object:
  { env, options (validated, defaults filled in), policy, episodes, seed, metrics, breakdown }.
  Ctrl-C / SIGTERM stop either command after flushing --out; the exit code is then 130 / 143.`;

interface EpisodesRun {
  results: EpisodeResult[];
  envId: string;
  /** The validated env options, defaults filled in (what `make()` used). */
  options: JsonObject;
  policy: string;
  seed: number;
  episodes: number;
  /** The signal that stopped the run early (the recorder has flushed), or null when every episode ran. */
  stoppedBy: StopSignal | null;
}

/**
 * Parses a rollout/eval command line. The options of the env that `--env` names are accepted as plain flags
 * (`--setting base`); make() validates their values against the env's strict options schema.
 */
function parseRolloutArgs(argv: readonly string[], command: string): ParsedArgs | null {
  if (peekBoolean(argv, "help")) return null;
  const envId = peekFlag(argv, "env");
  if (!envId) return parseArgs(argv, { flags: ROLLOUT_FLAGS, command }); // runEpisodes says --env is required
  const envOptions = Object.keys(registryEntry(envId).optionDocs).filter((name) => !(name in ROLLOUT_FLAGS) && name !== "opt");
  const flags: Record<string, FlagKind> = { ...ROLLOUT_FLAGS };
  for (const name of envOptions) flags[name] = "option";
  const accepted = `accepted: ${Object.keys(ROLLOUT_FLAGS)
    .map((f) => `--${f}`)
    .join(", ")}, --opt key=value, or an option of ${envId}: ${envOptions.join(", ")}`;
  return parseArgs(argv, { flags, command, accepted });
}

async function runEpisodes(args: ParsedArgs, command: string): Promise<EpisodesRun> {
  const envId = stringFlag(args, "env");
  if (!envId) throw new OptionsError("--env", `${command}: --env is required (see 'recovery-gym list')`);
  const policy = stringFlag(args, "policy") ?? "random";
  try {
    policyEntry(envId, policy);
  } catch (e) {
    throw new OptionsError("--policy", `${command}: ${(e as Error).message}`);
  }
  const options = parseEnvOptions(envId, args.opts);
  const episodes = intFlag(args, "episodes", 10, 1);
  const seed = intFlag(args, "seed", 0, 0);
  const out = stringFlag(args, "out");
  const bar = new ProgressBar(episodes, `${command} ${envId}/${policy}`, process.stderr, args.flags.quiet !== true, "episodes");
  bar.update(0);
  let successes = 0;
  const stop = stopOnSignals();
  try {
    const { results } = await rolloutAsync(
      {
        envId,
        options: args.opts,
        policy,
        episodes,
        seed,
        wrap: out ? (env: Env<unknown, unknown>) => new RecordTrajectory(env, out) : undefined,
        onEpisode: (r, i) => {
          if (r.success) successes += 1;
          bar.update(i + 1, `success ${((100 * successes) / (i + 1)).toFixed(1)}%`);
        },
      },
      { signal: stop.signal },
    );
    const stoppedBy = stop.received();
    bar.stop();
    if (stoppedBy)
      process.stderr.write(
        `\n${command}: stopped by ${stoppedBy} after ${results.length} of ${episodes} episodes${out ? `; ${out} is flushed` : ""}\n`,
      );
    return { results, envId, options, policy, seed, episodes, stoppedBy };
  } finally {
    bar.stop();
    stop.dispose();
  }
}

/** What `eval` reports for a family without an aggregate: success rate, mean return and length. */
export function genericReport(results: readonly EpisodeResult[]): AggregateReport {
  return {
    metrics: {
      successRate: mean(results.map((r) => (r.success ? 1 : 0))),
      meanReturn: mean(results.map((r) => r.return)),
      meanLength: mean(results.map((r) => r.length)),
    },
    breakdown: [],
  };
}

export async function rolloutCommand(argv: readonly string[]): Promise<number> {
  const args = parseRolloutArgs(argv, "rollout");
  if (!args) {
    process.stdout.write(`${ROLLOUT_HELP}\n`);
    return 0;
  }
  const { results, stoppedBy } = await runEpisodes(args, "rollout");
  if (stoppedBy) return SIGNAL_EXIT_CODES[stoppedBy];
  const reasons = new Map<string, number>();
  for (const r of results) reasons.set(r.terminationReason, (reasons.get(r.terminationReason) ?? 0) + 1);
  process.stdout.write(`${summaryTable(results)}\ntermination: ${[...reasons].map(([k, v]) => `${k}=${v}`).join(" ")}\n`);
  return 0;
}

/** The run at a glance, the same for rollout and eval: success, mean return ± the 95% CI (Student's t), length. */
function summaryTable(results: readonly EpisodeResult[]): string {
  const returns = results.map((r) => r.return);
  const success = mean(results.map((r) => (r.success ? 1 : 0)));
  const row = [results.length, success, mean(returns), ci95(returns), mean(results.map((r) => r.length))];
  return formatTable(["episodes", "success", "mean return", "±95% CI (t)", "mean length"], [row]);
}

export async function evalCommand(argv: readonly string[]): Promise<number> {
  const args = parseRolloutArgs(argv, "eval");
  if (!args) {
    process.stdout.write(`${EVAL_HELP}\n`);
    return 0;
  }
  const { results, envId, options, policy, seed, episodes, stoppedBy } = await runEpisodes(args, "eval");
  if (stoppedBy) return SIGNAL_EXIT_CODES[stoppedBy];
  const entry = registryEntry(envId);
  const report = entry.aggregate ? entry.aggregate(results) : genericReport(results);
  if (args.flags.json) {
    // Rates as fractions, rounded, whatever unit the family's paper uses (docs/METRICS.md).
    const { metrics, breakdown } = reportInFractions(report);
    process.stdout.write(`${JSON.stringify({ env: envId, options, policy, episodes, seed, metrics, breakdown })}\n`);
    return 0;
  }
  process.stdout.write(`${envId} · policy ${policy} · ${episodes} episodes from seed ${seed}\n\n${summaryTable(results)}\n\n`);
  const percent = new Set(report.percentMetrics ?? []);
  const metricRows = Object.entries(report.metrics).map(([k, v]) => [percent.has(k) ? `${k} (%)` : k, v]);
  process.stdout.write(`${formatTable(["metric", "value"], metricRows)}\n`);
  for (const table of report.breakdown) process.stdout.write(`\n${table.title}\n${formatTable(table.columns, table.rows)}\n`);
  return 0;
}
