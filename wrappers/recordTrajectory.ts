import {
  type Env,
  type Info,
  JsonlWriter,
  type JsonObject,
  type JsonValue,
  isTypedArray,
  type ResetArgs,
  type StepResult,
  type Trajectory,
  TRAJECTORY_SCHEMA_VERSION,
  type TrajectoryStep,
  Wrapper,
} from "../src/index.js";

export interface RecordTrajectoryOptions {
  /** Names episodes `${prefix}${seed ?? counter}` (default: env id). */
  episodeIdPrefix?: string;
  /** Called with each finished trajectory before it is written (e.g. to add family analyses). */
  annotate?: (t: Trajectory) => Trajectory;
}

const asJson = (v: unknown): JsonValue =>
  JSON.parse(
    JSON.stringify(v ?? null, (_k, x) => (ArrayBuffer.isView(x) ? (isTypedArray(x) ? Array.from<number | bigint>(x) : []) : x)),
  ) as JsonValue;

/**
 * Appends one JSON line per finished episode: actions, observations, rewards, terms, events, hidden annotations,
 * seed, env id, options and library version. An episode cut short by `close()` or a signal is written too, marked
 * with terminationReason "interrupted", so no recorded step is lost. An episode that an outer TimeLimit truncates
 * is recorded as truncated (its last step `truncated`, terminationReason "max_steps").
 */
export class RecordTrajectory<Obs, Act> extends Wrapper<Obs, Act> {
  private readonly writer: JsonlWriter;
  private current: Trajectory | null = null;
  private counter = 0;
  episodesWritten = 0;

  constructor(
    env: Env<Obs, Act>,
    readonly path: string,
    private readonly opts: RecordTrajectoryOptions = {},
  ) {
    super(env);
    this.writer = new JsonlWriter(path);
    this.writer.onClose(() => this.flushCurrent("interrupted"));
  }

  override reset(args: ResetArgs = {}): [Obs, Info] {
    this.flushCurrent("interrupted");
    const [obs, info] = this.env.reset(args);
    this.counter += 1;
    const seed = args.seed ?? null;
    this.current = {
      schema: "recovery-gym/trajectory",
      version: TRAJECTORY_SCHEMA_VERSION,
      episodeId: `${this.opts.episodeIdPrefix ?? this.spec.id}:${seed ?? `n${this.counter}`}`,
      envId: this.spec.id,
      options: this.spec.entryOptions,
      seed,
      libraryVersion: this.spec.libraryVersion,
      taskId: (info.taskId as string | undefined) ?? null,
      initialObservation: asJson(obs),
      initialHidden: info.hidden === undefined ? undefined : asJson(info.hidden),
      phi0: (info.phi as number | null | undefined) ?? null,
      steps: [],
      return: 0,
      length: 0,
      success: false,
      terminationReason: "running",
      metrics: {},
    };
    return [obs, info];
  }

  override step(action: Act): StepResult<Obs> {
    const res = this.env.step(action);
    const [obs, reward, terminated, truncated, info] = res;
    const cur = this.current;
    if (cur) {
      const step: TrajectoryStep = {
        t: cur.steps.length,
        action: asJson(action),
        observation: asJson(obs),
        reward,
        terminated,
        truncated,
        rewardTerms: (info.rewardTerms as Record<string, number> | undefined) ?? {},
        rawTerms: (info.rawTerms as Record<string, number> | undefined) ?? {},
        phi: (info.phi as number | null | undefined) ?? null,
        events: asJson(info.events ?? []) as JsonObject[],
        // The final step's own annotation comes apart (hiddenStep); its `hidden` is the episode's ground truth.
        hidden:
          terminated || truncated
            ? info.hiddenStep === undefined
              ? undefined
              : asJson(info.hiddenStep)
            : info.hidden === undefined
              ? undefined
              : asJson(info.hidden),
      };
      cur.steps.push(step);
      cur.return += reward;
      cur.length += 1;
      if (terminated || truncated) {
        cur.success = info.success === true;
        cur.terminationReason = String(info.terminationReason ?? (truncated ? "max_steps" : "terminated"));
        cur.metrics = asJson(info.metrics ?? {}) as JsonObject;
        if (info.hidden !== undefined) cur.hidden = asJson(info.hidden);
        this.flushCurrent(null);
      }
    }
    return res;
  }

  /** An outer TimeLimit truncated the episode after the step just recorded: write it as truncated. */
  override episodeTruncated(reason: string): void {
    const cur = this.current;
    const last = cur?.steps[cur.steps.length - 1];
    if (cur && last) {
      last.truncated = true;
      cur.success = false;
      cur.terminationReason = reason;
      this.flushCurrent(null);
    }
    super.episodeTruncated(reason);
  }

  private flushCurrent(reason: string | null): void {
    const cur = this.current;
    if (!cur) return;
    if (reason !== null) {
      if (cur.steps.length === 0) {
        this.current = null;
        return;
      }
      cur.terminationReason = reason;
    }
    this.writer.writeLine(this.opts.annotate ? this.opts.annotate(cur) : cur);
    this.episodesWritten += 1;
    this.current = null;
  }

  override close(): void {
    this.writer.close();
    super.close();
  }
}
