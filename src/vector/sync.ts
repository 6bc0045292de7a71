import type { Env, EnvSpec, Info } from "../core/env.js";
import type { JsonValue } from "../core/json.js";
import { batchSpaces } from "../core/spaces/batch.js";
import type { Space } from "../core/spaces/space.js";
import { EnvSlot } from "./slot.js";
import {
  type AutoresetMode,
  type BatchedInfo,
  batchActionError,
  batchInfos,
  type InfoKeyFilter,
  infoKeyFilter,
  parseAutoresetMode,
  seedsFor,
  type VectorEnv,
  type VectorResetArgs,
  type VectorStepResult,
} from "./vectorEnv.js";

/** Steps `numEnvs` envs one after another in this thread (Gymnasium's SyncVectorEnv). */
export class SyncVectorEnv<Obs = unknown, Act = unknown> implements VectorEnv<Obs, Act> {
  readonly numEnvs: number;
  readonly singleObservationSpace: Space<Obs>;
  readonly singleActionSpace: Space<Act>;
  readonly observationSpace: Space<unknown>;
  readonly actionSpace: Space<unknown>;
  readonly metadata: { autoresetMode: AutoresetMode; envId: string };
  readonly spec: EnvSpec;
  readonly envs: readonly Env<Obs, Act>[];
  private readonly slots: EnvSlot<Obs, Act>[];
  private lastObs: Obs[] = [];
  private readonly infoKeys: InfoKeyFilter;

  /** `infoKeys`: batch only these info keys (see `VectorEnvOptions.infoKeys`); all of them when absent. */
  constructor(envFns: readonly (() => Env<Obs, Act>)[], autoresetMode: AutoresetMode = "NextStep", infoKeys?: readonly string[]) {
    if (envFns.length === 0) throw new RangeError("SyncVectorEnv needs at least one env");
    autoresetMode = parseAutoresetMode(autoresetMode);
    this.infoKeys = infoKeyFilter(infoKeys);
    this.envs = envFns.map((f) => f());
    this.numEnvs = this.envs.length;
    this.slots = this.envs.map((e) => new EnvSlot(e, autoresetMode));
    this.singleObservationSpace = this.envs[0].observationSpace;
    this.singleActionSpace = this.envs[0].actionSpace;
    // Each slot keeps its own env's spaces: a tool env's action space samples from *its* visible tools.
    this.observationSpace = batchSpaces(this.envs.map((e) => e.observationSpace));
    this.actionSpace = batchSpaces(this.envs.map((e) => e.actionSpace));
    this.metadata = { autoresetMode, envId: this.envs[0].spec.id };
    this.spec = this.envs[0].spec;
  }

  reset(args: VectorResetArgs = {}): [Obs[], BatchedInfo] {
    const seeds = seedsFor(args, this.numEnvs);
    const { resetMask, ...options } = args.options ?? {};
    if (resetMask && resetMask.length !== this.numEnvs)
      throw new RangeError(`options.resetMask: expected ${this.numEnvs} flags, got ${resetMask.length}`);
    const infos: (Info | null)[] = [];
    for (let i = 0; i < this.numEnvs; i++) {
      if (resetMask && !resetMask[i]) {
        infos.push(null);
        continue;
      }
      const [obs, info] = this.slots[i].reset(seeds[i], options);
      this.lastObs[i] = obs;
      infos.push(info);
    }
    return [this.lastObs.slice(), batchInfos(infos, this.infoKeys)];
  }

  step(actions: readonly Act[]): VectorStepResult<Obs> {
    if (actions.length !== this.numEnvs) throw new RangeError(`actions: expected ${this.numEnvs}, got ${actions.length}`);
    const n = this.numEnvs;
    const rewards = new Float64Array(n);
    // Sized once: arrays grown by push would be reallocated several times per batch.
    const terminated = new Array<boolean>(n);
    const truncated = new Array<boolean>(n);
    const infos = new Array<Info>(n);
    const slots = this.slots;
    // Every action is checked before any env steps: a malformed one refuses the whole batch, none half-stepped.
    for (let i = 0; i < n; i++) {
      try {
        slots[i].check(actions[i]);
      } catch (e) {
        throw batchActionError(i, e);
      }
    }
    for (let i = 0; i < n; i++) {
      const slot = slots[i];
      this.lastObs[i] = slot.advance(actions[i]);
      rewards[i] = slot.lastReward;
      terminated[i] = slot.lastTerminated;
      truncated[i] = slot.lastTruncated;
      infos[i] = slot.lastInfo;
    }
    return [this.lastObs.slice(), rewards, terminated, truncated, batchInfos(infos, this.infoKeys)];
  }

  private slotAt(index: number): EnvSlot<Obs, Act> {
    if (!Number.isInteger(index) || index < 0 || index >= this.numEnvs)
      throw new RangeError(`index: expected 0..${this.numEnvs - 1}, got ${index}`);
    return this.slots[index];
  }

  getEnvState(index: number): JsonValue {
    return this.slotAt(index).getState();
  }

  setEnvState(index: number, state: JsonValue): Obs {
    const obs = this.slotAt(index).setState(state);
    this.lastObs[index] = obs;
    return obs;
  }

  close(): void {
    for (const e of this.envs) e.close();
  }
}
