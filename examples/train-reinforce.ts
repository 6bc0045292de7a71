// REINFORCE in plain TypeScript on an env's action-masked discrete mode, in process (no Python, no bridge): the
// TypeScript twin of examples/python/ppo_masked.py, small enough to read in one sitting.
//
//   npx tsx examples/train-reinforce.ts --env Demo-v0 --episodes 1500 --seed 0 [--opt fault=permanent ...]
//
// The policy scores every candidate slot with one shared one-hidden-layer network over [global features, the
// slot's features] (the discrete observation is laid out as G global features then K slots of C features), so it
// generalises across slots; masked slots are never chosen. Updates use the return-to-go minus a per-batch baseline
// and Adam. All randomness (initial weights, action sampling) comes from seedrandom, so a seed fixes the run.
import seedrandom from "seedrandom";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { CANDIDATE_FEATURES, type DiscreteObservation, GLOBAL_FEATURES, make, type ToolStepInfo } from "../src/index.js";

const GLOBAL_SIZE = GLOBAL_FEATURES.length;
const CANDIDATE_SIZE = CANDIDATE_FEATURES.length;

export const reinforceConfigSchema = z
  .object({
    env: z.string().min(1).default("Demo-v0"),
    /** Env options besides the action mode (e.g. Demo's `fault`). */
    options: z.record(z.string(), z.unknown()).default({}),
    episodes: z.number().int().min(1).default(1500),
    /** Episodes per update (also the baseline's batch). */
    batch: z.number().int().min(1).default(16),
    seed: z.number().int().min(0).default(0),
    hidden: z.number().int().min(1).default(32),
    lr: z.number().positive().default(0.01),
    gamma: z.number().min(0).max(1).default(0.99),
    /** Held-out reset seeds for the greedy evaluation at the end (training uses seed * 1_000_003 + episode). */
    evalSeeds: z.array(z.number().int().min(0)).default(Array.from({ length: 100 }, (_, i) => 1_000_000_000 + i)),
  })
  .strict();
export type ReinforceConfig = z.input<typeof reinforceConfigSchema>;

/** One update: mean return and success of its batch of (sampled-action) episodes. */
export interface CurvePoint {
  episodes: number;
  meanReturn: number;
  success: number;
}

/** A shared per-slot scorer: logit_k = v . tanh(W [g; c_k] + b). */
class SlotPolicy {
  readonly inputs = GLOBAL_SIZE + CANDIDATE_SIZE;
  readonly params: Float64Array;
  private readonly m: Float64Array;
  private readonly v2: Float64Array;
  private t = 0;

  constructor(
    readonly hidden: number,
    rng: () => number,
  ) {
    const n = hidden * this.inputs + hidden + hidden;
    this.params = new Float64Array(n);
    const scale = 1 / Math.sqrt(this.inputs);
    for (let i = 0; i < hidden * this.inputs; i++) this.params[i] = (2 * rng() - 1) * scale;
    // Output weights start at 0: the first policy is uniform over the valid slots.
    this.m = new Float64Array(n);
    this.v2 = new Float64Array(n);
  }

  private get bOffset(): number {
    return this.hidden * this.inputs;
  }
  private get vOffset(): number {
    return this.hidden * this.inputs + this.hidden;
  }

  /** Hidden activations of every valid slot and the masked softmax over the slots. */
  forward(obs: DiscreteObservation): { slots: number[]; h: Float64Array[]; probs: Float64Array } {
    const { observation: f, action_mask: mask } = obs;
    const slots: number[] = [];
    const h: Float64Array[] = [];
    const logits: number[] = [];
    for (let k = 0; k < mask.length; k++) {
      if (mask[k] !== 1) continue;
      const hk = new Float64Array(this.hidden);
      let logit = 0;
      for (let j = 0; j < this.hidden; j++) {
        const row = j * this.inputs;
        let s = this.params[this.bOffset + j];
        for (let i = 0; i < GLOBAL_SIZE; i++) s += this.params[row + i] * f[i];
        const base = GLOBAL_SIZE + k * CANDIDATE_SIZE;
        for (let i = 0; i < CANDIDATE_SIZE; i++) s += this.params[row + GLOBAL_SIZE + i] * f[base + i];
        hk[j] = Math.tanh(s);
        logit += this.params[this.vOffset + j] * hk[j];
      }
      slots.push(k);
      h.push(hk);
      logits.push(logit);
    }
    const max = Math.max(...logits);
    const exps = logits.map((l) => Math.exp(l - max));
    const total = exps.reduce((a, b) => a + b, 0);
    return { slots, h, probs: Float64Array.from(exps, (e) => e / total) };
  }

  /** Adds weight * d log pi(slot index `chosen`) / d params to `grad`. */
  accumulate(grad: Float64Array, obs: DiscreteObservation, fw: ReturnType<SlotPolicy["forward"]>, chosen: number, weight: number): void {
    const f = obs.observation;
    fw.slots.forEach((k, idx) => {
      const dLogit = weight * ((idx === chosen ? 1 : 0) - fw.probs[idx]);
      if (dLogit === 0) return;
      const hk = fw.h[idx];
      for (let j = 0; j < this.hidden; j++) {
        grad[this.vOffset + j] += dLogit * hk[j];
        const dPre = dLogit * this.params[this.vOffset + j] * (1 - hk[j] * hk[j]);
        if (dPre === 0) continue;
        const row = j * this.inputs;
        grad[this.bOffset + j] += dPre;
        for (let i = 0; i < GLOBAL_SIZE; i++) grad[row + i] += dPre * f[i];
        const base = GLOBAL_SIZE + k * CANDIDATE_SIZE;
        for (let i = 0; i < CANDIDATE_SIZE; i++) grad[row + GLOBAL_SIZE + i] += dPre * f[base + i];
      }
    });
  }

  /** One Adam ascent step along `grad`. */
  ascend(grad: Float64Array, lr: number): void {
    const b1 = 0.9;
    const b2 = 0.999;
    this.t += 1;
    for (let i = 0; i < grad.length; i++) {
      this.m[i] = b1 * this.m[i] + (1 - b1) * grad[i];
      this.v2[i] = b2 * this.v2[i] + (1 - b2) * grad[i] * grad[i];
      const mh = this.m[i] / (1 - b1 ** this.t);
      const vh = this.v2[i] / (1 - b2 ** this.t);
      this.params[i] += (lr * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
}

function sample(probs: Float64Array, u: number): number {
  let acc = 0;
  for (let i = 0; i < probs.length; i++) {
    acc += probs[i];
    if (u < acc) return i;
  }
  return probs.length - 1;
}

function argmax(probs: Float64Array): number {
  let best = 0;
  for (let i = 1; i < probs.length; i++) if (probs[i] > probs[best]) best = i;
  return best;
}

/** The learning curve (one point per update) and the greedy policy's results on the held-out seeds. */
export interface ReinforceResult {
  curve: CurvePoint[];
  heldOut: { episodes: number; success: number; meanReturn: number };
}

/** Trains, then evaluates the greedy policy (argmax over the valid slots) on `evalSeeds`. */
export function trainReinforce(config: ReinforceConfig): ReinforceResult {
  const c = reinforceConfigSchema.parse(config);
  const env = make<DiscreteObservation, number, ToolStepInfo>(c.env, { ...c.options, actionMode: "discrete" });
  const rng = seedrandom(`train-reinforce:${c.seed}`);
  const policy = new SlotPolicy(c.hidden, rng);
  const curve: CurvePoint[] = [];
  const runEpisode = (seed: number, greedy: boolean) => {
    let [obs] = env.reset({ seed });
    const steps: { obs: DiscreteObservation; fw: ReturnType<SlotPolicy["forward"]>; chosen: number; reward: number }[] = [];
    for (;;) {
      const fw = policy.forward(obs);
      const chosen = greedy ? argmax(fw.probs) : sample(fw.probs, rng());
      const [next, reward, terminated, truncated, info] = env.step(fw.slots[chosen]);
      steps.push({ obs, fw, chosen, reward });
      obs = next;
      if (terminated || truncated) return { steps, success: info.success === true };
    }
  };
  try {
    for (let done = 0; done < c.episodes; ) {
      const n = Math.min(c.batch, c.episodes - done);
      const episodes = Array.from({ length: n }, (_, i) => runEpisode(c.seed * 1_000_003 + done + i, false));
      done += n;
      // Returns-to-go, then a baseline and scale shared by the batch's steps.
      const togo = episodes.map((e) => {
        const g = new Float64Array(e.steps.length);
        let acc = 0;
        for (let t = e.steps.length - 1; t >= 0; t--) g[t] = acc = e.steps[t].reward + c.gamma * acc;
        return g;
      });
      const all = togo.flatMap((g) => [...g]);
      const mean = all.reduce((a, b) => a + b, 0) / all.length;
      const sd = Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / all.length) || 1;
      const grad = new Float64Array(policy.params.length);
      episodes.forEach((e, ei) => e.steps.forEach((s, t) => policy.accumulate(grad, s.obs, s.fw, s.chosen, (togo[ei][t] - mean) / sd / n)));
      policy.ascend(grad, c.lr);
      curve.push({
        episodes: done,
        meanReturn: episodes.reduce((a, e) => a + e.steps.reduce((r, s) => r + s.reward, 0), 0) / n,
        success: episodes.filter((e) => e.success).length / n,
      });
    }
    const runs = c.evalSeeds.map((s) => runEpisode(s, true));
    const heldOut = {
      episodes: runs.length,
      success: runs.filter((r) => r.success).length / Math.max(1, runs.length),
      meanReturn: runs.reduce((a, r) => a + r.steps.reduce((x, s) => x + s.reward, 0), 0) / Math.max(1, runs.length),
    };
    return { curve, heldOut };
  } finally {
    env.close();
  }
}

const cliSchema = z.object({
  env: z.string().optional(),
  episodes: z.coerce.number().int().min(1).optional(),
  seed: z.coerce.number().int().min(0).optional(),
  opt: z.array(z.string().regex(/^[^=]+=/, "must be key=value")).default([]),
});

function main(argv: string[]): void {
  const raw: Record<string, unknown> = { opt: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, "");
    if (name === "opt") (raw.opt as string[]).push(argv[i + 1]);
    else raw[name] = argv[i + 1];
  }
  const args = cliSchema.strict().parse(raw);
  const options: Record<string, unknown> = {};
  for (const kv of args.opt) {
    const [k, v] = [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)];
    try {
      options[k] = JSON.parse(v);
    } catch {
      options[k] = v;
    }
  }
  const t0 = performance.now();
  const { curve, heldOut } = trainReinforce({ env: args.env, episodes: args.episodes, seed: args.seed, options });
  const every = Math.max(1, Math.floor(curve.length / 10));
  for (const p of curve.filter((_, i) => i % every === 0 || i === curve.length - 1)) {
    const pct = (100 * p.success).toFixed(0);
    console.log(`episodes ${String(p.episodes).padStart(5)}  mean return ${p.meanReturn.toFixed(3)}  success ${pct}%`);
  }
  const pct = (100 * heldOut.success).toFixed(0);
  console.log(`greedy on ${heldOut.episodes} held-out seeds: success ${pct}%, mean return ${heldOut.meanReturn.toFixed(3)}`);
  console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
