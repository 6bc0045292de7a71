import { existsSync, renameSync, writeFileSync } from "node:fs";
import { OptionsError } from "../../core/errors.js";
import { recordStringify, stableStringify } from "../../core/json.js";
import { parseEnvOptions, registryEntry } from "../../core/registry.js";
import type { Trajectory } from "../../core/trajectory.js";
import type { Env } from "../../core/env.js";
import { policyEntry } from "../../ablation.js";
import { rolloutAsync } from "../../rollout.js";
import { SIGNAL_EXIT_CODES, stopOnSignals } from "../signals.js";
import { readTrajectories } from "../../trajectories/writer.js";
import { RecordTrajectory } from "../../../wrappers/recordTrajectory.js";
import { intFlag, parseArgs, stringFlag, requiredFlag } from "../args.js";
import { ProgressBar } from "../progress.js";

export const COLLECT_HELP = `recovery-gym collect --env ID --policy P --episodes N --out FILE.jsonl [--seed 0] [--opt k=v ...]
  Collects trajectories (versioned schema, exported as trajectorySchema) with per-step hidden annotations and
  per-episode family analyses; each record names its env, options and policy. Resumable: re-running skips episode
  ids already complete in FILE and re-collects interrupted ones (their interrupted records are dropped, by an atomic
  rewrite of FILE); resuming with another env, options or policy is refused.`;

const INTERRUPTED = "interrupted";

/**
 * The records a reader should use from a trajectory file: per episode id the last complete record (a re-collected
 * episode supersedes an earlier interrupted or repeated one). Ids with only interrupted records are left out unless
 * `includeInterrupted`, which then keeps the last of them. Ids keep the order of their first appearance.
 */
export function currentRecords(trajs: readonly Trajectory[], includeInterrupted = false): Trajectory[] {
  const byId = new Map<string, { complete: Trajectory | null; interrupted: Trajectory | null }>();
  for (const t of trajs) {
    const slot = byId.get(t.episodeId) ?? { complete: null, interrupted: null };
    if (t.terminationReason === INTERRUPTED) slot.interrupted = t;
    else slot.complete = t;
    byId.set(t.episodeId, slot);
  }
  const out: Trajectory[] = [];
  for (const { complete, interrupted } of byId.values()) {
    if (complete) out.push(complete);
    else if (includeInterrupted && interrupted) out.push(interrupted);
  }
  return out;
}

/** Refuses to resume a file collected with another env, options or policy: the file would mix two experiments. */
function checkResume(out: string, existing: readonly Trajectory[], envId: string, options: unknown, policy: string): void {
  for (const t of existing) {
    if (t.envId !== envId)
      throw new OptionsError("--env", `collect: ${out} holds ${t.envId} trajectories (${t.episodeId}), not ${envId}; use another file`);
    if (stableStringify(t.options) !== stableStringify(options)) {
      throw new OptionsError(
        "--opt",
        `collect: ${out} was collected with options ${stableStringify(t.options)}, not ${stableStringify(options)}; ` +
          "use another file for different options",
      );
    }
    if (t.policy === undefined)
      throw new OptionsError(
        "--policy",
        `collect: ${out} has records without a recorded policy (${t.episodeId}: not written by collect); ` +
          `cannot check they come from ${policy}; use another file`,
      );
    if (t.policy !== policy)
      throw new OptionsError(
        "--policy",
        `collect: ${out} was collected with policy ${t.policy}, not ${policy}; use another file for another policy`,
      );
  }
}

/**
 * Rewrites FILE without the records this run supersedes (interrupted records of ids it re-collects, repeated
 * records of an id), atomically: a new file is written next to it and renamed over it, so a crash leaves either the
 * old or the new file, never a mix.
 */
function compact(out: string, existing: readonly Trajectory[], recollect: ReadonlySet<string>): number {
  const kept = currentRecords(existing, true).filter((t) => !(t.terminationReason === INTERRUPTED && recollect.has(t.episodeId)));
  if (kept.length === existing.length) return 0;
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, kept.map((t) => `${recordStringify(t)}\n`).join(""));
  renameSync(tmp, out);
  return existing.length - kept.length;
}

export async function collectCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, {
    flags: { env: "string", policy: "string", episodes: "string", seed: "string", out: "string", quiet: "boolean", help: "boolean" },
    command: "collect",
  });
  if (args.flags.help) {
    process.stdout.write(`${COLLECT_HELP}\n`);
    return 0;
  }
  const envId = requiredFlag(args, "env", "collect");
  const out = requiredFlag(args, "out", "collect", "FILE.jsonl");
  const entry = registryEntry(envId);
  const policy = stringFlag(args, "policy") ?? entry.carefulPolicy ?? "random";
  policyEntry(envId, policy);
  const episodes = intFlag(args, "episodes", 100, 1);
  const seed0 = intFlag(args, "seed", 0, 0);
  const options = parseEnvOptions(envId, args.opts);
  const existing = existsSync(out) ? readTrajectories(out) : [];
  checkResume(out, existing, envId, options, policy);
  const done = new Set(currentRecords(existing).map((t) => t.episodeId));
  const wanted = Array.from({ length: episodes }, (_, i) => seed0 + i).filter((s) => !done.has(`${envId}:${s}`));
  const dropped = compact(out, existing, new Set(wanted.map((s) => `${envId}:${s}`)));
  const analyzeTrajectory = entry.analyzeTrajectory;
  const annotate = (t: Trajectory): Trajectory => ({ ...t, policy, ...(analyzeTrajectory ? { analysis: analyzeTrajectory(t) } : {}) });
  const bar = new ProgressBar(episodes, `collect ${envId}/${policy}`, process.stderr, args.flags.quiet !== true, "episodes");
  let finished = episodes - wanted.length;
  bar.update(finished, finished ? `(${finished} already in ${out})` : "");
  // Ctrl-C / SIGTERM stop at the next pause: the episode in progress is written as interrupted (a later run
  // resumes it) and every finished one is already on disk.
  const stop = stopOnSignals();
  try {
    await rolloutAsync(
      {
        envId,
        options: args.opts,
        policy,
        episodes: wanted.length,
        seeds: wanted,
        wrap: (env: Env<unknown, unknown>) => new RecordTrajectory(env, out, { annotate }),
        onEpisode: () => bar.update(++finished),
      },
      { signal: stop.signal },
    );
  } finally {
    bar.stop();
    stop.dispose();
  }
  const stoppedBy = stop.received();
  process.stdout.write(
    `${out}: ${finished} episodes (${finished - (episodes - wanted.length)} new` +
      `${dropped ? `, ${dropped} superseded record(s) removed` : ""})` +
      `${stoppedBy ? ` — stopped by ${stoppedBy}; run the same command again to resume` : ""}\n`,
  );
  return stoppedBy ? SIGNAL_EXIT_CODES[stoppedBy] : 0;
}
