import type { JsonObject } from "./core/json.js";
import { OptionsError } from "./core/errors.js";
import { make, registryEntry, type PolicyEntry } from "./core/registry.js";
import { Rng } from "./core/rng.js";
import type { RawTerms } from "./rewards/compute.js";
import { recomputeRewards } from "./rewards/compute.js";
import type { RewardSpec } from "./rewards/spec.js";
import { ADVERSARIES } from "./policies/adversarial.js";

/** One episode reduced to what any reward spec needs: Φ(s_0) and each step's raw terms and Φ. */
export interface RecordedEpisode {
  seed: number;
  phi0: number | null;
  steps: { rawTerms: RawTerms; phi: number | null }[];
  success: boolean;
  terminationReason: string;
  metrics: JsonObject;
}

/** A registered policy of the env, or one of the generic adversaries (`adversary:<name>`). */
export function policyEntry(envId: string, name: string): PolicyEntry {
  const entry = registryEntry(envId);
  const own = entry.policies[name];
  if (own) return own;
  const adv = name.startsWith("adversary:") ? ADVERSARIES[name.slice("adversary:".length)] : undefined;
  if (adv) return adv;
  throw new OptionsError("policy", `unknown policy "${name}" for ${envId}; available: ${[...Object.keys(entry.policies), ...Object.keys(ADVERSARIES).map((a) => `adversary:${a}`)].join(", ")}`);
}

/**
 * Runs a policy once per seed and keeps the raw reward signals, so every reward spec can be evaluated on the very
 * same episodes without re-running the environment.
 */
export function recordEpisodes(envId: string, options: Record<string, unknown>, policyName: string, seeds: readonly number[], maxSteps = 10_000): RecordedEpisode[] {
  const env = make(envId, options);
  const policy = policyEntry(envId, policyName).create(env, new Rng(seeds[0] ?? 0).derive(`policy:${policyName}`));
  const out: RecordedEpisode[] = [];
  for (const seed of seeds) {
    let [obs, info] = env.reset({ seed });
    policy.reset?.(obs, info);
    const rec: RecordedEpisode = { seed, phi0: (info.phi as number | null | undefined) ?? null, steps: [], success: false, terminationReason: "max_steps", metrics: {} };
    for (let t = 0; t < maxSteps; t++) {
      const [o, , term, trunc, i] = env.step(policy.act(obs, info));
      obs = o;
      info = i;
      rec.steps.push({ rawTerms: (i.rawTerms as RawTerms | undefined) ?? {}, phi: (i.phi as number | null | undefined) ?? null });
      if (term || trunc) {
        rec.success = i.success === true;
        rec.terminationReason = String(i.terminationReason ?? "max_steps");
        rec.metrics = (i.metrics as JsonObject | undefined) ?? {};
        break;
      }
    }
    out.push(rec);
  }
  env.close();
  return out;
}

/** Undiscounted return of each recorded episode under a spec (γ of the spec applies inside potential terms). */
export function returnsUnder(spec: RewardSpec, episodes: readonly RecordedEpisode[]): number[] {
  return episodes.map((e) => recomputeRewards(spec, e.phi0, e.steps).reduce((a, b) => a + b, 0));
}
