import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Info } from "../../core/env.js";
import { OptionsError } from "../../core/errors.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import { make, registryEntry } from "../../core/registry.js";
import { Rng } from "../../core/rng.js";
import { policyEntry } from "../../ablation.js";
import type { Action } from "../../engine/actions.js";
import type { EpisodeEvent } from "../../engine/events.js";
import type { ToolObservation } from "../../engine/observation.js";
import { ToolEnv } from "../../engine/toolEnv.js";
import { JsonlWriter } from "../../trajectories/writer.js";
import { intFlag, parseArgs, stringFlag } from "../args.js";
import { ProgressBar } from "../progress.js";

export const PAIRS_HELP = `recovery-gym pairs --env ID --policy P --contrast Q --episodes N --out FILE.jsonl [--seed 0] [--max-steps 100] [--opt k=v ...]
  For each seed, plays P until the first fault fires, forks the episode at that moment, and continues one branch
  with P and one with Q: a paired, same-prefix comparison for preference or contrastive training.`;

interface Branch {
  policy: string;
  actions: JsonValue[];
  rewards: number[];
  return: number;
  success: boolean;
  terminationReason: string;
}

const isFault = (e: EpisodeEvent) => e.type === "fault_injected" || /blocker|fault/.test(e.type);

function continueWith(env: ToolEnv<unknown>, policyName: string, obs: ToolObservation, info: Info, seed: number, maxSteps: number): Branch {
  const policy = policyEntry(env.spec.id, policyName).create(env as never, new Rng(seed).derive(`pairs:${policyName}`));
  policy.reset?.(obs, info);
  const branch: Branch = { policy: policyName, actions: [], rewards: [], return: 0, success: false, terminationReason: "max_steps" };
  for (let t = 0; t < maxSteps && !env.isDone(); t++) {
    const action = policy.act(obs, info) as Action;
    const [o, r, term, trunc, i] = env.step(action);
    branch.actions.push(action as unknown as JsonValue);
    branch.rewards.push(r);
    branch.return += r;
    obs = o;
    info = i;
    if (term || trunc) {
      branch.success = i.success === true;
      branch.terminationReason = String(i.terminationReason);
    }
  }
  return branch;
}

export function pairsCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, { flags: { env: "string", policy: "string", contrast: "string", episodes: "string", seed: "string", out: "string", "max-steps": "string", quiet: "boolean", help: "boolean" }, command: "pairs" });
  if (args.flags.help) {
    process.stdout.write(`${PAIRS_HELP}\n`);
    return 0;
  }
  const envId = stringFlag(args, "env");
  const out = stringFlag(args, "out");
  if (!envId) throw new OptionsError("--env", "pairs: --env is required");
  if (!out) throw new OptionsError("--out", "pairs: --out FILE.jsonl is required");
  const entry = registryEntry(envId);
  const policy = stringFlag(args, "policy") ?? entry.carefulPolicy ?? "random";
  const contrast = stringFlag(args, "contrast") ?? "random";
  policyEntry(envId, policy);
  policyEntry(envId, contrast);
  const episodes = intFlag(args, "episodes", 20, 1);
  const seed0 = intFlag(args, "seed", 0, 0);
  const maxSteps = intFlag(args, "max-steps", 100, 1);
  const env = make(envId, args.opts);
  if (!(env instanceof ToolEnv)) throw new OptionsError("--env", `pairs: ${envId} does not support getState/fork`);
  mkdirSync(dirname(out), { recursive: true });
  const writer = new JsonlWriter(out);
  const bar = new ProgressBar(episodes, `pairs ${envId}`, process.stderr, args.flags.quiet !== true);
  let written = 0;
  for (let ep = 0; ep < episodes; ep++) {
    const seed = seed0 + ep;
    let [obs, info] = env.reset({ seed }) as [ToolObservation, Info];
    const lead = policyEntry(envId, policy).create(env as never, new Rng(seed).derive(`pairs:${policy}`));
    lead.reset?.(obs, info);
    const prefix: JsonValue[] = [];
    let forkAt = -1;
    for (let t = 0; t < maxSteps && !env.isDone(); t++) {
      const action = lead.act(obs, info) as Action;
      const [o, , , , i] = env.step(action);
      prefix.push(action as unknown as JsonValue);
      obs = o as ToolObservation;
      info = i;
      if (((i.events as EpisodeEvent[] | undefined) ?? []).some(isFault)) {
        forkAt = t + 1;
        break;
      }
    }
    if (forkAt < 0 || env.isDone()) {
      bar.update(ep + 1, `${written} pairs`);
      continue;
    }
    const state = env.getState();
    const a = env.fork();
    const b = env.fork();
    const branches = [continueWith(a, policy, obs, info, seed, maxSteps), continueWith(b, contrast, obs, info, seed, maxSteps)];
    const preferred = branches[0].return === branches[1].return ? null : branches[0].return > branches[1].return ? 0 : 1;
    writer.writeLine({ schema: "recovery-gym/pair", version: 1, pairId: `${envId}:${seed}:${forkAt}`, envId, options: env.spec.entryOptions, seed, forkStep: forkAt, prefix, state: state as unknown as JsonObject, branches, preferred });
    written += 1;
    bar.update(ep + 1, `${written} pairs`);
  }
  writer.close();
  process.stdout.write(`wrote ${written} pair(s) to ${out} (${episodes - written} episodes never hit a fault before ending)\n`);
  return 0;
}
