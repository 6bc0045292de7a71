// A small env whose observation space is a Dict of fixed-shape numeric spaces — the shape of the discrete action
// mode (features + action mask) plus a Discrete key — for the bridge's packed observation encoding. Importing
// this module registers it as PackedGrid-v0.
import { z } from "zod";
import {
  Box,
  Dict,
  Discrete,
  type EnvMetadata,
  type EnvSpec,
  MultiBinary,
  register,
  Rng,
  type StepResult,
} from "../../src/index.js";
import { Env as BaseEnv } from "../../src/core/env.js";

export const PACKED_ENV_ID = "PackedGrid-v0";
export const FEATURES = 6;
export const ACTIONS = 5;

type Obs = { observation: Float32Array | Float64Array | Int32Array; action_mask: Uint8Array; phase: number };

class PackedGridEnv extends BaseEnv<Obs, number> {
  readonly observationSpace = new Dict({
    observation: new Box(-1e6, 1e6, [FEATURES], "float32"),
    action_mask: new MultiBinary(ACTIONS),
    phase: new Discrete(4),
  });
  readonly actionSpace = new Discrete(ACTIONS);
  readonly metadata: EnvMetadata = { renderModes: [], infoKeys: { target: "the hidden target action (tests only)" } };
  private rng = new Rng(0);
  private target = 0;
  private t = 0;

  constructor(readonly spec: EnvSpec) {
    super();
  }

  private observe(): Obs {
    // Values that are not exactly representable in float64 text form, -0 and large magnitudes: packing must keep bits.
    const observation = Float32Array.from({ length: FEATURES }, (_, i) => (i === 0 ? -0 : this.rng.uniform(-1000, 1000) / 3));
    const action_mask = Uint8Array.from({ length: ACTIONS }, (_, i) => (i === this.target || this.rng.int(2) === 1 ? 1 : 0));
    return { observation, action_mask, phase: this.t % 4 };
  }

  reset(args: { seed?: number } = {}): [Obs, Record<string, unknown>] {
    if (args.seed !== undefined) this.rng = new Rng(args.seed);
    this.target = this.rng.int(ACTIONS);
    this.t = 0;
    return [this.observe(), { target: this.target }];
  }

  step(action: number): StepResult<Obs> {
    this.t++;
    const hit = action === this.target;
    const reward = hit ? 1 : -0.1 * this.t + 1 / 3;
    return [this.observe(), reward, hit, !hit && this.t >= 6, { target: this.target }];
  }
}

register({
  id: PACKED_ENV_ID,
  family: "test",
  description: "Dict(Box float32, MultiBinary, Discrete) observations for the packed encoding",
  optionsSchema: z.object({}).strict() as never,
  optionDocs: {},
  maxEpisodeSteps: null,
  factory: (_options, spec) => new PackedGridEnv(spec) as never,
  policies: {},
});
