import type { Info } from "../../core/env.js";
import { OptionsError, StateError } from "../../core/errors.js";
import { asJson, toJsonValue, type JsonObject, type JsonValue, isJsonObject, stableStringify } from "../../core/json.js";
import { parseEnvOptions, registryEntry } from "../../core/registry.js";
import { episodePolicyRng, policyEntry } from "../../ablation.js";
import { episodeSteps } from "../../episodeLoop.js";
import type { Action } from "../../engine/actions.js";
import type { EpisodeEvent } from "../../engine/events.js";
import type { ToolEnv } from "../../engine/toolEnv.js";
import { JsonlWriter } from "../../trajectories/writer.js";
import { intFlag, parseArgs, stringFlag, requiredFlag } from "../args.js";
import { ProgressBar } from "../progress.js";
import { makeToolEnv } from "../toolEnv.js";

export const PAIRS_HELP = `recovery-gym pairs --env ID --policy P --contrast Q|fault --episodes N --out FILE.jsonl [--seed 0]
    [--max-steps 100] [--opt k=v ...]
  Paired episodes for preference or contrastive training, one JSON line per seed whose episode meets a fault.
  --contrast Q (a policy): P plays until the first fault fires; at that moment one branch continues with P and one
    with Q, from the same state. Both policies are fresh instances that saw every observation of the episode from
    reset (Q's own proposals during the prefix are discarded: the prefix actions are P's).
  --contrast fault: P plays the same seed with the fault and without it (the family's no-fault options, e.g.
    ToolMaze perturbation NP, Failing Tools setting clean, PlanBench-XL blockers off, ToolMisuseBench faults none).`;

/** One continuation: `actions`/`rewards` from the fork on; `episodeReturn` is the whole episode's return. */
interface Branch {
  policy: string;
  options: JsonObject;
  actions: JsonValue[];
  rewards: number[];
  return: number;
  episodeReturn: number;
  success: boolean;
  terminationReason: string;
}

/** A fault fired this step: the engine's fault_injected event, or a family's fault/blocker event. */
const isFault = (e: EpisodeEvent) => e.type === "fault_injected" || /blocker|fault/.test(e.type);

interface Played {
  actions: Action[];
  observations: string[];
  rewards: number[];
  /** Steps played before the first step on which a fault fired, plus that step (-1: no fault). */
  faultAt: number;
  /** Env state right after the fault step (policy contrast only). */
  stateAtFault: JsonValue | null;
  success: boolean;
  terminationReason: string;
  ended: boolean;
}

/**
 * Plays one episode from reset with a fresh env and a fresh policy instance seeded from the episode seed. Up to
 * `forced.length` steps the env executes the forced actions while the policy still sees each observation (it is
 * asked to act and its proposal is discarded), so at the fork its view is that of a policy that lived through the
 * prefix: tool schemas it was sent once, transcripts, plans.
 */
function play(
  envId: string,
  options: JsonObject,
  policyName: string,
  seed: number,
  maxSteps: number,
  forced: readonly Action[] = [],
  snapshotAtFault = false,
): { played: Played; env: ToolEnv<unknown>; resetInfo: Info } {
  const env = makeToolEnv(envId, options, "pairs");
  const policy = policyEntry(envId, policyName).create(env as never, episodePolicyRng(seed, policyName));
  let resetInfo: Info = {};
  const played: Played = {
    actions: [],
    observations: [],
    rewards: [],
    faultAt: -1,
    stateAtFault: null,
    success: false,
    terminationReason: "max_steps",
    ended: false,
  };
  const onReset = (obs: unknown, info: Info): void => {
    resetInfo = info;
    played.observations.push(stableStringify(obs));
  };
  const override = (t: number, proposed: unknown): unknown => (t < forced.length ? forced[t] : proposed);
  for (const { t, action, obs, reward, terminated, truncated, info: i } of episodeSteps(env, policy, seed, {
    maxSteps,
    onReset,
    override,
  })) {
    played.actions.push(action as Action);
    played.observations.push(stableStringify(obs));
    played.rewards.push(reward);
    if (played.faultAt < 0 && ((i.events as EpisodeEvent[] | undefined) ?? []).some(isFault)) {
      played.faultAt = t + 1;
      if (snapshotAtFault && !(terminated || truncated)) played.stateAtFault = asJson(env.getState());
    }
    if (terminated || truncated) {
      played.ended = true;
      played.success = i.success === true;
      played.terminationReason = String(i.terminationReason);
    }
  }
  return { played, env, resetInfo };
}

function branch(policy: string, options: JsonObject, p: Played, from: number): Branch {
  const rewards = p.rewards.slice(from);
  return {
    policy,
    options,
    actions: p.actions.slice(from).map((a) => toJsonValue(a)),
    rewards,
    return: rewards.reduce((a, b) => a + b, 0),
    episodeReturn: p.rewards.reduce((a, b) => a + b, 0),
    success: p.success,
    terminationReason: p.terminationReason,
  };
}

/** Deep-merges a family's no-fault options into the env's options (objects merge, everything else replaces). */
export function mergeOptions(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = isJsonObject(v) && isJsonObject(out[k]) ? mergeOptions(out[k] as JsonObject, v) : v;
  return out;
}

const preferredOf = (a: Branch, b: Branch) => (a.episodeReturn === b.episodeReturn ? null : a.episodeReturn > b.episodeReturn ? 0 : 1);

/** Policy contrast: fork at the first fault; P's branch is P's own episode, Q's is rebuilt by replaying the prefix. */
function policyPair(
  envId: string,
  options: JsonObject,
  policy: string,
  contrast: string,
  seed: number,
  maxSteps: number,
): JsonObject | null {
  const lead = play(envId, options, policy, seed, maxSteps, [], true);
  lead.env.close();
  const { faultAt, stateAtFault } = lead.played;
  if (faultAt < 0 || stateAtFault === null) return null;
  const prefix = lead.played.actions.slice(0, faultAt);
  const other = play(envId, options, contrast, seed, maxSteps, prefix, true);
  other.env.close();
  // The replayed env must be exactly where the lead's was at the fork (whole state, RNG streams included).
  if (other.played.faultAt !== faultAt || stableStringify(other.played.stateAtFault) !== stableStringify(stateAtFault)) {
    throw new StateError(
      "pairs",
      `pairs: ${envId} seed ${seed}: replaying the prefix did not reproduce the env state at the fork (step ${faultAt}); ` +
        "the env is not deterministic",
    );
  }
  const branches = [branch(policy, options, lead.played, faultAt), branch(contrast, options, other.played, faultAt)];
  return {
    contrast: "policy",
    forkStep: faultAt,
    prefix: prefix.map((a) => toJsonValue(a)),
    state: stateAtFault,
    branches: asJson(branches),
    preferred: preferredOf(branches[0], branches[1]),
  };
}

/** The no-fault counterpart's options for this episode (the registration's patch, or its function of the episode). */
function noFaultFor(envId: string, options: JsonObject, resetInfo: Info): JsonObject {
  const nf = registryEntry(envId).noFaultOptions;
  if (!nf)
    throw new OptionsError(
      "--contrast",
      `pairs: ${envId} declares no way to turn its faults off (noFaultOptions in its registration), so --contrast fault is unavailable`,
    );
  return parseEnvOptions(envId, typeof nf === "function" ? nf(options, resetInfo) : mergeOptions(options, nf));
}

/** Fault contrast: the same seed and policy with and without the fault; the branches start where they diverge. */
function faultPair(envId: string, options: JsonObject, policy: string, seed: number, maxSteps: number): JsonObject | null {
  const faulty = play(envId, options, policy, seed, maxSteps);
  faulty.env.close();
  if (faulty.played.faultAt < 0) return null;
  const noFault = noFaultFor(envId, options, faulty.resetInfo);
  const clean = play(envId, noFault, policy, seed, maxSteps);
  clean.env.close();
  if (clean.played.observations[0] !== faulty.played.observations[0]) {
    throw new OptionsError(
      "--contrast",
      `pairs: ${envId} seed ${seed}: the no-fault options ${stableStringify(noFault)} start a different episode than ` +
        `${stableStringify(options)} (the initial observations differ), so they are no counterfactual; ` +
        "the family's noFaultOptions must keep the task",
    );
  }
  // Longest common prefix: same action and same resulting observation.
  let fork = 0;
  const a = faulty.played;
  const b = clean.played;
  while (
    fork < a.actions.length &&
    fork < b.actions.length &&
    stableStringify(a.actions[fork]) === stableStringify(b.actions[fork]) &&
    a.observations[fork + 1] === b.observations[fork + 1]
  )
    fork++;
  const branches = [branch(policy, options, a, fork), branch(policy, noFault, b, fork)];
  // No preference: the branches run under different fault settings (different MDPs, possibly scored on different
  // tiers), so their returns do not rank behaviours; the pair is a contrast, not a preference.
  return {
    contrast: "fault",
    forkStep: fork,
    faultStep: a.faultAt,
    prefix: a.actions.slice(0, fork).map((a) => toJsonValue(a)),
    noFaultOptions: noFault,
    branches: asJson(branches),
    preferred: null,
  };
}

export function pairsCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, {
    flags: {
      env: "string",
      policy: "string",
      contrast: "string",
      episodes: "string",
      seed: "string",
      out: "string",
      "max-steps": "string",
      quiet: "boolean",
      help: "boolean",
    },
    command: "pairs",
  });
  if (args.flags.help) {
    process.stdout.write(`${PAIRS_HELP}\n`);
    return 0;
  }
  const envId = requiredFlag(args, "env", "pairs");
  const out = requiredFlag(args, "out", "pairs", "FILE.jsonl");
  const entry = registryEntry(envId);
  const policy = stringFlag(args, "policy") ?? entry.carefulPolicy ?? "random";
  const contrast = stringFlag(args, "contrast") ?? "random";
  policyEntry(envId, policy);
  const options = parseEnvOptions(envId, args.opts);
  const faultContrast = contrast === "fault";
  if (faultContrast) {
    if (!entry.noFaultOptions)
      throw new OptionsError(
        "--contrast",
        `pairs: ${envId} declares no way to turn its faults off (noFaultOptions in its registration), so --contrast fault is unavailable`,
      );
  } else policyEntry(envId, contrast);
  const episodes = intFlag(args, "episodes", 20, 1);
  const seed0 = intFlag(args, "seed", 0, 0);
  const maxSteps = intFlag(args, "max-steps", 100, 1);
  // Pairs are not resumable: a re-run rewrites the file rather than appending duplicates.
  const writer = new JsonlWriter(out, "truncate");
  const bar = new ProgressBar(episodes, `pairs ${envId}`, process.stderr, args.flags.quiet !== true, "episodes");
  bar.update(0);
  let written = 0;
  try {
    for (let ep = 0; ep < episodes; ep++) {
      const seed = seed0 + ep;
      const pair = faultContrast
        ? faultPair(envId, options, policy, seed, maxSteps)
        : policyPair(envId, options, policy, contrast, seed, maxSteps);
      if (pair) {
        writer.writeLine({
          schema: "recovery-gym/pair",
          version: 2,
          pairId: `${envId}:${seed}:${String(pair.forkStep)}`,
          envId,
          options,
          seed,
          ...pair,
        });
        written += 1;
      }
      bar.update(ep + 1, `${written} pairs`);
    }
  } finally {
    bar.stop();
    writer.close();
  }
  process.stdout.write(
    `wrote ${written} pair(s) to ${out} (${episodes - written} episodes met no fault${faultContrast ? "" : " before ending"})\n`,
  );
  return 0;
}
