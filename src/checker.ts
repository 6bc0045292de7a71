import { BUDGET_NAMES, CORE_EVENT_TYPES } from "./engine/events.js";
import type { Env, Info } from "./core/env.js";
import { RecoveryGymError, ResetNeededError } from "./core/errors.js";
import { stableStringify } from "./core/json.js";
import { Rng } from "./core/rng.js";
import { Space } from "./core/spaces/space.js";

export interface CheckEnvOptions {
  seed?: number;
  /** Episodes to play with sampled actions (each checked twice for determinism). */
  episodes?: number;
  /** Safety cap on steps per episode. */
  maxSteps?: number;
  /** The env was just made (never reset): also check that stepping before reset throws. Default true. */
  fresh?: boolean;
}

/** Thrown by `checkEnv` with every problem found. */
export class CheckEnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`checkEnv found ${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
    this.name = "CheckEnvError";
  }
}

function playEpisode(env: Env<unknown, unknown>, seed: number, maxSteps: number, problems: string[]): string {
  const trace: unknown[] = [];
  const [obs, info] = env.reset({ seed });
  if (!env.observationSpace.contains(obs))
    problems.push(`reset(): observation not in observationSpace: ${stableStringify(obs).slice(0, 200)}`);
  checkInfo(env, info, "reset()", problems);
  trace.push(obs, info);
  const rng = new Rng(seed).derive("checkEnv-actions");
  for (let t = 0; t < maxSteps; t++) {
    const action = env.actionSpace.sample(rng);
    if (!env.actionSpace.contains(action)) problems.push(`actionSpace.sample() returned a value outside actionSpace`);
    const result = env.step(action);
    if (!Array.isArray(result) || result.length !== 5) {
      problems.push("step() must return [obs, reward, terminated, truncated, info]");
      break;
    }
    const [o, r, term, trunc, i] = result;
    if (!env.observationSpace.contains(o)) problems.push(`step(): observation not in observationSpace at t=${t}`);
    if (typeof r !== "number" || !Number.isFinite(r)) problems.push(`step(): reward must be a finite number, got ${r}`);
    if (typeof term !== "boolean" || typeof trunc !== "boolean") problems.push("step(): terminated/truncated must be booleans");
    checkInfo(env, i, `step() t=${t}`, problems);
    if (i.rewardTerms && typeof i.rewardTerms === "object") {
      const sum = Object.values(i.rewardTerms as Record<string, number>).reduce((a, b) => a + b, 0);
      if (Math.abs(sum - r) > 1e-9) problems.push(`info.rewardTerms sum ${sum} != reward ${r} at t=${t}`);
    }
    trace.push(action, o, r, term, trunc, i);
    if (term || trunc) {
      if (!("terminationReason" in i)) problems.push("final step: info.terminationReason missing");
      let threw = false;
      try {
        env.step(env.actionSpace.sample(rng));
      } catch (e) {
        threw = e instanceof ResetNeededError;
      }
      if (!threw) problems.push("step() after the episode ended must throw ResetNeededError");
      break;
    }
  }
  return stableStringify(trace);
}

function checkInfo(env: Env<unknown, unknown>, info: Info, where: string, problems: string[]): void {
  if (typeof info !== "object" || info === null || Array.isArray(info)) {
    problems.push(`${where}: info must be an object`);
    return;
  }
  const documented = env.metadata.infoKeys;
  for (const key of Object.keys(info)) {
    if (!(key in documented)) problems.push(`${where}: info key "${key}" is not documented in metadata.infoKeys`);
  }
  const known = new Set<string>([...CORE_EVENT_TYPES, ...(env.metadata.familyEventTypes ?? [])]);
  for (const e of (info.events as { type: string; budget?: unknown }[] | undefined) ?? []) {
    if (!known.has(e.type)) problems.push(`${where}: event type "${e.type}" is not a core event nor declared in metadata.familyEventTypes`);
    if (e.type === "budget_exceeded" && !(BUDGET_NAMES as readonly unknown[]).includes(e.budget)) {
      problems.push(
        `${where}: budget_exceeded names budget ${JSON.stringify(e.budget)}, not one of ` +
          `${BUDGET_NAMES.join(", ")} (the step limit is a truncation, reason max_steps)`,
      );
    }
  }
}

/**
 * Checks an env against the API contract, in the spirit of Gymnasium's `check_env`: spaces contain what reset and
 * step return, the same seed gives the same episode, info keys and event types are documented, misuse raises
 * typed errors. Throws `CheckEnvError` listing every problem.
 */
export function checkEnv(env: Env<unknown, unknown>, opts: CheckEnvOptions = {}): void {
  const problems: string[] = [];
  const seed = opts.seed ?? 123;
  const maxSteps = opts.maxSteps ?? 200;
  if (!(env.observationSpace instanceof Space)) problems.push("observationSpace must be a Space");
  if (!(env.actionSpace instanceof Space)) problems.push("actionSpace must be a Space");
  if (!env.spec || typeof env.spec.id !== "string") problems.push("spec.id missing");
  if (!env.metadata || typeof env.metadata.infoKeys !== "object") problems.push("metadata.infoKeys missing");
  if (problems.length) throw new CheckEnvError(problems);
  if (opts.fresh !== false) {
    let threw = false;
    try {
      env.step(env.actionSpace.sample(new Rng(seed)));
    } catch (e) {
      threw = e instanceof ResetNeededError;
    }
    if (!threw) problems.push("step() before reset() must throw ResetNeededError");
  }
  const junk = { __not_an_action__: true };
  for (let ep = 0; ep < (opts.episodes ?? 3); ep++) {
    const a = playEpisode(env, seed + ep, maxSteps, problems);
    const b = playEpisode(env, seed + ep, maxSteps, problems);
    if (a !== b) problems.push(`episode with seed ${seed + ep} is not deterministic (two runs differ)`);
  }
  env.reset({ seed });
  if (!env.actionSpace.contains(junk)) {
    try {
      env.step(junk);
      const penalize = (env.spec.entryOptions as { invalidAction?: string }).invalidAction === "penalize";
      if (!penalize) problems.push("step() with an action outside actionSpace must throw a typed error");
    } catch (e) {
      if (!(e instanceof RecoveryGymError)) problems.push(`step() with a malformed action threw an untyped error: ${(e as Error).message}`);
    }
  }
  if (typeof env.render() !== "string") problems.push("render() must return a string");
  if (problems.length) throw new CheckEnvError([...new Set(problems)]);
}
