import { z } from "zod";
import { Env, type EnvMetadata, type EnvSpec, type ResetArgs, type StepResult } from "../../core/env.js";
import { ActionError, OptionsError, StateError } from "../../core/errors.js";
import type { JsonObject } from "../../core/json.js";
import { registerMakeLayer, registryEntry } from "../../core/registry.js";
import type { Rng } from "../../core/rng.js";
import { Box } from "../../core/spaces/box.js";
import { Dict } from "../../core/spaces/composite.js";
import { Discrete } from "../../core/spaces/discrete.js";
import { MultiBinary } from "../../core/spaces/multiBinary.js";
import type { Space } from "../../core/spaces/space.js";
import type { Action } from "../actions.js";
import type { ToolObservation } from "../observation.js";
import { ToolEnv, type ToolEnvState, type ToolResetInfo, type ToolStepInfo } from "../toolEnv.js";
import { type Candidate, CandidateMemo, type CandidateLimits, candidates } from "./candidates.js";
import { FeatureMemo } from "./callHistory.js";
import { encodeFeatures, featureSize } from "./features.js";
import type { ObservableEpisode } from "./source.js";
import { withKeys } from "../../core/objects.js";

/** Default K (`maxCandidates`): enough for every family's largest step in the suites (see docs/DISCRETE.md). */
export const DEFAULT_MAX_CANDIDATES = 64;

/** The discrete mode's observation: features of the step and its candidates, and which slots hold a candidate. */
export interface DiscreteObservation {
  observation: Float32Array;
  action_mask: Uint8Array;
}

/** The make() options of the mode (valid on every env id; the structured mode stays the default). */
export const actionModeOptionsSchema = z
  .object({
    /** `structured` (default): JSON tool calls; `discrete`: Discrete(K) over the step's candidate actions. */
    actionMode: z.enum(["structured", "discrete"]).default("structured"),
    /** K, the number of candidate slots of the discrete mode. */
    maxCandidates: z.number().int().min(2).max(4096).optional(),
  })
  .strict()
  .transform((o): JsonObject => {
    // The default K depends on the env (EnvEntry.discreteCandidates), so `apply` fills it in.
    return o.maxCandidates === undefined ? { actionMode: o.actionMode } : { actionMode: o.actionMode, maxCandidates: o.maxCandidates };
  });

/**
 * Discrete(K) whose `sample()` without a mask draws among the slots the env's current mask allows (as a tool env's
 * action space samples from the tools visible now); Gymnasium's description is a plain Discrete(K).
 */
export class MaskedDiscrete extends Discrete {
  constructor(
    n: number,
    private readonly currentMask: () => Uint8Array | null,
  ) {
    super(n);
  }
  /**
   * Equal only to itself: the mask makes it a per-env space (like a tool env's tool-call space), so a vector env
   * batches it as a Tuple whose slot i samples env i's current mask, in-thread and in workers alike.
   */
  override equals(other: Space<unknown>): boolean {
    return other === this;
  }
  override sample(rng: Rng = this.stream(), mask?: ArrayLike<number>): number {
    const m = mask ?? this.currentMask();
    return m && Array.prototype.some.call(m, (v: number) => v === 1) ? super.sample(rng, m) : super.sample(rng);
  }
}

/** The structured action a slot beyond the step's candidates maps to: an unknown tool (an in-episode error). */
export function maskedSlotAction(slot: number): Action {
  return { type: "tool_call", name: `masked_slot_${slot}`, arguments: {} };
}

const DISCRETE_INFO_KEYS: Readonly<Record<string, string>> = {
  action_mask: "discrete mode: which of the K candidate slots hold an action now (also observation.action_mask)",
  structured_action: "discrete mode: the structured action the chosen slot stood for (replays in the default mode)",
};

/**
 * A tool env in the action-masked discrete mode (`make(id, { actionMode: "discrete" })`). Each step it lists the
 * concrete candidate actions of the observable episode (src/engine/discrete/candidates.ts), encodes features of
 * the step and each candidate, and maps the chosen index to exactly that structured action on the tool env, so
 * events, rewards and metrics are the tool env's own. A slot without a candidate maps to a call of an unknown tool.
 */
export class DiscreteToolEnv extends Env<DiscreteObservation, number, ToolStepInfo, ToolResetInfo> {
  readonly observationSpace: Space<DiscreteObservation>;
  readonly actionSpace: MaskedDiscrete;
  readonly metadata: EnvMetadata;
  readonly maxCandidates: number;
  private list: Candidate[] = [];
  private mask: Uint8Array | null = null;
  private lastStructured: ToolObservation | null = null;
  private readonly limits: CandidateLimits;
  /** What the candidates of the last step leave to the next (the step's work is then only what changed). */
  private readonly candidateMemo = new CandidateMemo();
  private readonly featureMemo = new FeatureMemo();

  constructor(
    /** The structured tool env underneath. */
    readonly inner: ToolEnv<unknown>,
    maxCandidates: number,
    readonly spec: EnvSpec,
  ) {
    super();
    this.maxCandidates = maxCandidates;
    const k = maxCandidates;
    this.limits = { maxCandidates: k, perTool: Math.max(4, k >> 2), perArgument: 8, answers: Math.max(2, k >> 1) };
    const f = featureSize(maxCandidates);
    const space = new Dict({ observation: new Box(0, 1, [f], "float32"), action_mask: new MultiBinary(maxCandidates) });
    this.observationSpace = space as unknown as Space<DiscreteObservation>;
    this.actionSpace = new MaskedDiscrete(maxCandidates, () => this.mask);
    this.metadata = { ...inner.metadata, actionMode: "discrete", infoKeys: { ...inner.metadata.infoKeys, ...DISCRETE_INFO_KEYS } };
  }

  /** The candidate actions of the current step (slot i = index i), as structured actions. */
  candidateActions(): Action[] {
    return this.list.map((c) => c.action);
  }

  /** The current step's candidates with their value provenance. */
  currentCandidates(): readonly Candidate[] {
    return this.list;
  }

  /** The structured observation the tool env gave at the last reset/step (what a structured agent would see). */
  structuredObservation(): ToolObservation | null {
    return this.lastStructured;
  }

  private episodeView(): ObservableEpisode {
    const ep = this.inner.observableEpisode();
    if (!ep) throw new StateError("state", "the tool env has no episode");
    return ep;
  }

  private observe(): DiscreteObservation {
    const ep = this.episodeView();
    this.list = candidates(ep, this.limits, this.candidateMemo);
    const mask = new Uint8Array(this.maxCandidates);
    for (let i = 0; i < this.list.length; i++) mask[i] = 1;
    this.mask = mask;
    return { observation: encodeFeatures(ep, this.list, this.maxCandidates, undefined, this.featureMemo), action_mask: mask };
  }

  /** The structured action slot `index` stands for now; throws an ActionError for a non-integer or out-of-range index. */
  structuredAction(index: number): Action {
    this.checkAction(index);
    return index < this.list.length ? this.list[index].action : maskedSlotAction(index);
  }

  override checkAction(action: number): void {
    if (typeof action !== "number" || !Number.isInteger(action) || action < 0 || action >= this.maxCandidates) {
      const got = JSON.stringify(action)?.slice(0, 80);
      throw new ActionError("action", `discrete mode: action must be an integer in [0, ${this.maxCandidates}), got ${got}`);
    }
  }

  reset(args?: ResetArgs): [DiscreteObservation, ToolResetInfo] {
    const [obs, info] = this.inner.reset(args);
    this.lastStructured = obs;
    const o = this.observe();
    return [o, withKeys(info, { action_mask: o.action_mask })];
  }

  step(action: number): StepResult<DiscreteObservation, ToolStepInfo> {
    const structured = this.structuredAction(action);
    const [obs, reward, terminated, truncated, info] = this.inner.step(structured);
    this.lastStructured = obs;
    const o = this.observe();
    return [o, reward, terminated, truncated, withKeys(info, { action_mask: o.action_mask, structured_action: structured })];
  }

  override render(): string {
    return this.inner.render();
  }

  override close(): void {
    this.inner.close();
  }

  // Counterfactual replay: the tool env's snapshot is the whole state (candidates derive from it).
  getState(): ToolEnvState {
    return this.inner.getState();
  }
  setState(state: ToolEnvState): void {
    this.inner.setState(state);
    this.lastStructured = this.inner.currentObservation();
    this.observe();
  }
  isDone(): boolean {
    return this.inner.isDone();
  }
  /** The full observation of the current state (after `setState`). */
  currentObservation(): DiscreteObservation {
    return this.observe();
  }
}

registerMakeLayer({
  keys: ["actionMode", "maxCandidates"],
  schema: actionModeOptionsSchema,
  docs: {
    actionMode: "structured | discrete (default structured): discrete = Discrete(K) over the step's candidate actions, with a mask",
    maxCandidates: `discrete mode: K, the number of candidate slots (default ${DEFAULT_MAX_CANDIDATES}; PlanBenchXL-v0: 256)`,
  },
  apply(env, options, spec) {
    if (options.actionMode !== "discrete") return env;
    if (!(env instanceof ToolEnv)) throw new OptionsError("actionMode", `${spec.id} is not a tool env: the discrete action mode needs one`);
    const k = (options.maxCandidates as number | undefined) ?? registryEntry(spec.id).discreteCandidates ?? DEFAULT_MAX_CANDIDATES;
    return new DiscreteToolEnv(env, k, { ...spec, entryOptions: { ...spec.entryOptions, maxCandidates: k } });
  },
});
