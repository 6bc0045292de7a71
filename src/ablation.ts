import type { Info } from "./core/env.js";
import type { JsonObject } from "./core/json.js";
import { episodeSteps } from "./episodeLoop.js";
import { OptionsError } from "./core/errors.js";
import { type EpisodeResult, make, registryEntry, type PolicyEntry } from "./core/registry.js";
import { Rng } from "./core/rng.js";
import type { RawTerms } from "./rewards/compute.js";
import { discountedReturn, recomputeRewards } from "./rewards/compute.js";
import type { RewardSpec } from "./rewards/spec.js";
import { ADVERSARIES } from "./policies/adversarial.js";

/** One episode reduced to what any reward spec needs: Φ(s_0) and each step's raw terms and Φ. */
export interface RecordedEpisode {
  seed: number;
  /** The task the reset picked (`info.taskId`); optional so hand-built episodes (tests) need not invent one. */
  taskId?: string;
  phi0: number | null;
  steps: { rawTerms: RawTerms; phi: number | null }[];
  /** Undiscounted return under the reward spec the env ran with (set by `recordEpisodes`). */
  return?: number;
  success: boolean;
  terminationReason: string;
  metrics: JsonObject;
  /** Whether a fault fired during the episode (a `fault_injected` event): recovery is success among these. */
  faultMet?: boolean;
}

/**
 * Uniform over the env's action space (`actionSpace.sample(rng)`): the default policy of every command, so every env
 * has one even when its family registers no `random` of its own (a family's own `random` takes precedence).
 */
export const GENERIC_RANDOM_POLICY: PolicyEntry = {
  description: "samples the action space (the generic random baseline)",
  usesHidden: false,
  create: (env, rng) => ({ name: "random", act: () => env.actionSpace.sample(rng) }),
};

/** The policy names `policyEntry` accepts for an env, in the order `list` shows them. */
export function policyNames(envId: string): string[] {
  const own = Object.keys(registryEntry(envId).policies);
  return own.includes("random") ? own : [...own, "random"];
}

/** A registered policy of the env, the generic `random`, or one of the generic adversaries (`adversary:<name>`). */
export function policyEntry(envId: string, name: string): PolicyEntry {
  const entry = registryEntry(envId);
  const own = entry.policies[name];
  if (own) return own;
  if (name === "random") return GENERIC_RANDOM_POLICY;
  const adv = name.startsWith("adversary:") ? ADVERSARIES[name.slice("adversary:".length)] : undefined;
  if (adv) return adv;
  const available = [...policyNames(envId), ...Object.keys(ADVERSARIES).map((a) => `adversary:${a}`)];
  throw new OptionsError("policy", `unknown policy "${name}" for ${envId}; available: ${available.join(", ")}`);
}

/**
 * The policy stream of one episode: derived from that episode's seed alone, so a seed's episode is the same whether
 * it runs alone or after any other seeds (a policy built once and reused would carry its RNG state across episodes).
 */
export function episodePolicyRng(seed: number, policyName: string): Rng {
  return new Rng(seed).derive(`policy:${policyName}`);
}

/**
 * Runs a policy once per seed and keeps the raw reward signals, so every reward spec can be evaluated on the very
 * same episodes without re-running the environment. Each episode gets a fresh policy seeded from its own seed.
 */
export function recordEpisodes(
  envId: string,
  options: Record<string, unknown>,
  policyName: string,
  seeds: readonly number[],
  maxSteps = 10_000,
  /** Called after each episode with the number recorded so far (progress bars). */
  onEpisode?: (done: number) => void,
): RecordedEpisode[] {
  const env = make(envId, options);
  const entry = policyEntry(envId, policyName);
  const out: RecordedEpisode[] = [];
  try {
    for (const seed of seeds) {
      const policy = entry.create(env, episodePolicyRng(seed, policyName));
      const rec: RecordedEpisode = {
        seed,
        taskId: "",
        phi0: null,
        steps: [],
        return: 0,
        success: false,
        terminationReason: "max_steps",
        metrics: {},
        faultMet: false,
      };
      const onReset = (_obs: unknown, info: Info): void => {
        rec.taskId = String(info.taskId ?? "");
        rec.phi0 = (info.phi as number | null | undefined) ?? null;
      };
      for (const { reward, terminated, truncated, info: i } of episodeSteps(env, policy, seed, { maxSteps, onReset })) {
        rec.return = (rec.return ?? 0) + reward;
        rec.steps.push({ rawTerms: (i.rawTerms as RawTerms | undefined) ?? {}, phi: (i.phi as number | null | undefined) ?? null });
        const events: unknown = i.events;
        if (!rec.faultMet && Array.isArray(events)) rec.faultMet = events.some((e: { type?: unknown }) => e.type === "fault_injected");
        if (terminated || truncated) {
          rec.success = i.success === true;
          rec.terminationReason = String(i.terminationReason ?? "max_steps");
          rec.metrics = (i.metrics as JsonObject | undefined) ?? {};
        }
      }
      out.push(rec);
      onEpisode?.(out.length);
    }
  } finally {
    env.close();
  }
  return out;
}

/** Recorded episodes as the per-episode results a family's `aggregate` reads (task id, live return, metrics). */
export function episodeResults(episodes: readonly RecordedEpisode[]): EpisodeResult[] {
  return episodes.map((e) => ({
    seed: e.seed,
    taskId: e.taskId ?? "",
    return: e.return ?? 0,
    length: e.steps.length,
    success: e.success,
    terminationReason: e.terminationReason,
    metrics: e.metrics,
  }));
}

/**
 * Return of each recorded episode under a spec, discounted by the spec's γ (Σ_t γ^t r_t): the same γ the potential
 * term uses, so the shaping part of a return is exactly γ^T·Φ(s_T) − Φ(s_0) (or −Φ(s_0) under
 * `potentialTerminal: "zero"`). With γ = 1 (every shipped preset) this is the plain sum.
 */
export function returnsUnder(spec: RewardSpec, episodes: readonly RecordedEpisode[]): number[] {
  return episodes.map((e) => discountedReturn(recomputeRewards(spec, e.phi0, e.steps), spec.gamma));
}

/** The spec with another discount factor (CLI `--gamma`): both the potential term and the return use it. */
export function withGamma(spec: RewardSpec, gamma: number | undefined): RewardSpec {
  if (gamma === undefined) return spec;
  if (!(gamma >= 0 && gamma <= 1)) throw new OptionsError("--gamma", `--gamma must be in [0, 1] (got ${gamma})`);
  return { ...spec, gamma };
}
