import type { RewardSpec } from "./spec.js";

/** Raw, unweighted signals of one step (counts, flags, costs), as the env reports them in `info.rawTerms`. */
export type RawTerms = Record<string, number>;

/**
 * Turns raw term signals into a scalar reward under a spec, enforcing per-episode caps. The same class runs inside
 * the env and offline (`rescore`, `ablate`), so an ablation recomputed from recorded raw terms equals a live run.
 */
export class RewardComputer {
  private totals: Record<string, number> = {};
  private phi: number | null = null;
  private t = 0;
  private readonly compiled: CompiledSpec;

  /** `spec` is read at construction (specs are values: make a new computer for another spec). */
  constructor(readonly spec: RewardSpec) {
    this.compiled = compileSpec(spec);
  }

  /** Serialisable progress of the current episode (for getState/setState). */
  getState(): { totals: Record<string, number>; phi: number | null; t: number } {
    return { totals: { ...this.totals }, phi: this.phi, t: this.t };
  }

  setState(s: { totals: Record<string, number>; phi: number | null; t: number }): void {
    this.totals = { ...s.totals };
    this.phi = s.phi;
    this.t = s.t;
  }

  /** Starts an episode; `phi0` is Φ(s_0) when the env defines a potential. */
  reset(phi0: number | null): void {
    this.totals = {};
    this.phi = phi0;
    this.t = 0;
  }

  /**
   * Reward of one step and its per-term contributions. `phi` is Φ(s′) after the step. Under `potentialTerminal:
   * "zero"` the final step (the one whose raw terms carry `success` or `failure`: the core terms mark every step
   * that ends an episode, terminated or truncated) is shaped towards Φ = 0 instead of Φ(s_T).
   */
  step(raw: RawTerms, phi: number | null): { reward: number; terms: Record<string, number> } {
    const terms: Record<string, number> = {};
    let reward = 0;
    const c = this.compiled;
    const target = phi !== null && c.zeroTerminal && isFinalStep(raw) ? 0 : phi;
    const list = c.terms;
    // A step reports a few signals out of the spec's terms: look up the ones present (raw is small), then walk
    // the terms in spec order (the order of `terms` and of the floating-point sum). `signals` is scratch shared by
    // every computer of the spec (steps never interleave); `dirty` covers a raw object whose getter threw.
    const signals = c.signals;
    if (c.dirty) signals.fill(undefined);
    c.dirty = true;
    // for…in with an own-key check reads what Object.keys would, without a key array per step.
    for (const k in raw) {
      if (!Object.hasOwn(raw, k)) continue;
      const i = c.index.get(k);
      if (i !== undefined) signals[i] = raw[k];
    }
    c.dirty = false;
    for (let i = 0; i < list.length; i++) {
      const term = list[i];
      const name = term.name;
      const x = signals[i];
      signals[i] = undefined;
      let value: number;
      if (term.potential) {
        value = target !== null && this.phi !== null ? term.weight * (c.gamma * target - this.phi) : 0;
      } else {
        // An absent signal contributes weight * 0 = ±0, which is never recorded: skip it early.
        if (x === undefined || x === null) continue;
        value = term.weight * x;
        if (term.cap !== undefined && value !== 0) {
          const used = this.totals[name] ?? 0;
          const room = term.cap - Math.abs(used);
          value = Math.sign(value) * Math.max(0, Math.min(Math.abs(value), room));
        }
      }
      if (value !== 0) {
        this.totals[name] = (this.totals[name] ?? 0) + value;
        terms[name] = value;
        reward += value;
      }
    }
    if (phi !== null) this.phi = phi;
    this.t += 1;
    return { reward, terms };
  }
}

/** A spec term as `RewardComputer.step` reads it. */
interface CompiledTerm {
  readonly name: string;
  readonly potential: boolean;
  readonly weight: number;
  readonly cap: number | undefined;
}

/** A spec as `RewardComputer.step` reads it: its terms in spec order, read once. */
interface CompiledSpec {
  readonly terms: readonly CompiledTerm[];
  readonly index: ReadonlyMap<string, number>;
  /** Scratch: the raw signal of term i during a step (undefined when absent). */
  readonly signals: (number | null | undefined)[];
  dirty: boolean;
  readonly gamma: number;
  readonly zeroTerminal: boolean;
}

const MAX_COMPILED_SPECS = 256;
const compiledSpecs = new Map<string, CompiledSpec>();
/**
 * The compiled form of a spec, shared by every computer of an equal spec (same JSON, so the same terms in the same
 * order): a vector env makes one computer per env, and a batch step over hundreds of envs stays in cache when they
 * read one term list rather than one each.
 */
function compileSpec(spec: RewardSpec): CompiledSpec {
  const key = JSON.stringify(spec);
  let c = compiledSpecs.get(key);
  if (!c) {
    const terms = Object.entries(spec.terms).map(
      ([name, term]): CompiledTerm => ({ name, potential: term.kind === "potential", weight: term.weight, cap: term.cap }),
    );
    c = {
      terms,
      index: new Map(terms.map((t, i) => [t.name, i])),
      signals: terms.map(() => undefined),
      dirty: false,
      gamma: spec.gamma,
      zeroTerminal: spec.potentialTerminal === "zero",
    };
    if (compiledSpecs.size >= MAX_COMPILED_SPECS) compiledSpecs.clear();
    compiledSpecs.set(key, c);
  }
  return c;
}

/** True on the step that ends an episode: the core terms report `success` or `failure` exactly there. */
export function isFinalStep(raw: RawTerms): boolean {
  return (raw.success ?? 0) > 0 || (raw.failure ?? 0) > 0;
}

/** Recomputes per-step rewards of a recorded episode under another spec. */
export function recomputeRewards(
  spec: RewardSpec,
  phi0: number | null,
  steps: readonly { rawTerms: RawTerms; phi: number | null }[],
): number[] {
  const rc = new RewardComputer(spec);
  rc.reset(phi0);
  return steps.map((s) => rc.step(s.rawTerms, s.phi).reward);
}

/** Discounted return. */
export function discountedReturn(rewards: readonly number[], gamma = 1): number {
  let g = 0;
  for (let i = rewards.length - 1; i >= 0; i--) g = rewards[i] + gamma * g;
  return g;
}
