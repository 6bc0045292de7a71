import type { JsonObject } from "./core/json.js";
import { OptionsError } from "./core/errors.js";
import { type EpisodeResult, make, registryEntry, type PolicyEntry } from "./core/registry.js";
import { Rng } from "./core/rng.js";
import type { RawTerms } from "./rewards/compute.js";
import { discountedReturn, recomputeRewards } from "./rewards/compute.js";
import type { RewardSpec } from "./rewards/spec.js";
import { std } from "./metrics/stats.js";
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
      let [obs, info] = env.reset({ seed });
      policy.reset?.(obs, info);
      const rec: RecordedEpisode = {
        seed,
        taskId: String(info.taskId ?? ""),
        phi0: (info.phi as number | null | undefined) ?? null,
        steps: [],
        return: 0,
        success: false,
        terminationReason: "max_steps",
        metrics: {},
        faultMet: false,
      };
      for (let t = 0; t < maxSteps; t++) {
        const [o, r, term, trunc, i] = env.step(policy.act(obs, info));
        obs = o;
        info = i;
        rec.return = (rec.return ?? 0) + r;
        rec.steps.push({ rawTerms: (i.rawTerms as RawTerms | undefined) ?? {}, phi: (i.phi as number | null | undefined) ?? null });
        const events: unknown = i.events;
        if (!rec.faultMet && Array.isArray(events)) rec.faultMet = events.some((e: { type?: unknown }) => e.type === "fault_injected");
        if (term || trunc) {
          rec.success = i.success === true;
          rec.terminationReason = String(i.terminationReason ?? "max_steps");
          rec.metrics = (i.metrics as JsonObject | undefined) ?? {};
          break;
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
  return episodes.map((e) => ({ seed: e.seed, taskId: e.taskId ?? "", return: e.return ?? 0, length: e.steps.length, success: e.success, terminationReason: e.terminationReason, metrics: e.metrics }));
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

// ---- small-sample confidence intervals -------------------------------------------------------------------------

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; |error| < 1e-13 for the arguments used here). */
function lnGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularised incomplete beta I_x(a, b) (continued fraction, modified Lentz). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const front = Math.exp(a * Math.log(x) + b * Math.log(1 - x) - (lnGamma(a) + lnGamma(b) - lnGamma(a + b))) / a;
  const tiny = 1e-300;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 400; i++) {
    const m = Math.floor(i / 2);
    const num = i === 0 ? 1 : i % 2 === 0 ? (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)) : -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + num * d;
    d = Math.abs(d) < tiny ? tiny : d;
    d = 1 / d;
    c = 1 + num / c;
    c = Math.abs(c) < tiny ? tiny : c;
    const cd = c * d;
    f *= cd;
    if (Math.abs(1 - cd) < 1e-15) break;
  }
  return front * (f - 1);
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** Quantile of Student's t (p in (0, 1)), by bisection on the CDF: t_{0.975, 4} = 2.776, t_{0.975, 29} = 2.045. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) throw new RangeError(`studentTQuantile: need 0 < p < 1 and df > 0 (got p=${p}, df=${df})`);
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Half-width of the 95% confidence interval of the mean from Student's t with n − 1 degrees of freedom:
 * t_{0.975, n−1}·s/√n. For the small N of ablations the normal 1.96 understates the width (by 30% at N = 5);
 * the two agree as N grows. 0 when N < 2 (no spread to estimate).
 */
export function ci95t(xs: readonly number[]): number {
  return xs.length < 2 ? 0 : (studentTQuantile(0.975, xs.length - 1) * std(xs)) / Math.sqrt(xs.length);
}
