// Framework overhead: how much the core adds per step over a bare function call. Run with `npm run bench`.
//
// The headline row is a no-op *tool* stepped through ToolEnv.step: the action is parsed, the call runs the engine's
// pipeline (visibility, argument check, faults, simulator, ledger, pattern events), events, raw terms, the reward
// and the observation are built — everything a family env pays for — while the tool's simulator only returns a
// constant. It is compared, in the same run, with calling that simulator directly (the bare function call).
import Benchmark from "benchmark";
import {
  Discrete,
  Env,
  type EnvMetadata,
  type EnvSpec,
  type EpisodeSetup,
  type Info,
  type JsonObject,
  LIBRARY_VERSION,
  OrderEnforcing,
  RecordEpisodeStatistics,
  type Rng,
  type StepResult,
  SyncVectorEnv,
  TimeLimit,
  type ToolContext,
  type ToolDefinition,
  ToolEnv,
  type ToolEnvOptions,
  make,
  toolEnvOptionsSchema,
} from "../src/index.js";

/** The cheapest possible Env (base class only): measures Env dispatch, not the tool engine. */
class NoopEnv extends Env<number, number> {
  readonly observationSpace = new Discrete(2);
  readonly actionSpace = new Discrete(2);
  readonly spec: EnvSpec = { id: "Noop-v0", entryOptions: {}, maxEpisodeSteps: null, libraryVersion: "bench" };
  readonly metadata: EnvMetadata = { renderModes: [], infoKeys: {} };
  private t = 0;
  reset(): [number, Info] {
    this.t = 0;
    return [0, {}];
  }
  step(action: number): StepResult<number> {
    this.t += 1;
    return [action, 0, false, false, {}];
  }
}

const CONSTANT = { ok: true } as const;
/** A tool whose simulator returns a constant: whatever ToolEnv.step costs beyond calling `run` is framework. */
const NOOP_TOOL: ToolDefinition<null> = {
  name: "noop",
  description: "does nothing",
  parameters: { type: "object", properties: {} },
  run: () => ({ ok: true, output: CONSTANT }),
};
/** Steps per episode in the ToolEnv rows; one reset every EPISODE_STEPS steps is included (amortised). */
export const EPISODE_STEPS = 64;

/** A one-tool ToolEnv with the generic shaped reward and no faults. */
class NoopToolEnv extends ToolEnv<null> {
  constructor() {
    const options = toolEnvOptionsSchema.parse({ maxSteps: EPISODE_STEPS }) as ToolEnvOptions;
    super({ family: "bench", maxEpisodeSteps: EPISODE_STEPS }, options, {
      id: "NoopTool-v0",
      entryOptions: options as unknown as JsonObject,
      maxEpisodeSteps: EPISODE_STEPS,
      libraryVersion: LIBRARY_VERSION,
    });
  }
  protected createEpisode(_rng: Rng): EpisodeSetup<null> {
    return { taskId: "noop", prompt: "call noop", tools: [NOOP_TOOL], visible: ["noop"], world: null };
  }
}

export interface BenchRow {
  name: string;
  opsPerSec: number;
  nsPerOp: number;
  /** Relative margin of error, percent (Benchmark.js), when measured. */
  rme?: number;
}

function run(suite: Benchmark.Suite): Promise<BenchRow[]> {
  return new Promise((resolve) => {
    const rows: BenchRow[] = [];
    suite.on("cycle", (e: Benchmark.Event) => {
      const b = e.target as unknown as Benchmark & { name: string };
      rows.push({ name: b.name, opsPerSec: b.hz, nsPerOp: 1e9 / b.hz, rme: b.stats.rme });
    });
    suite.on("complete", () => resolve(rows));
    suite.run({ async: false });
  });
}

export const ROW = {
  bare: "bare function call (the no-op simulator)",
  envBase: "Env.step (Env base class, no-op env)",
  wrappers: "Env.step + 3 wrappers",
  toolEnv: "ToolEnv.step, no-op tool (full engine)",
  toolEnvReset: "ToolEnv.reset, no-op tool",
  vector: "SyncVectorEnv(8) per env-step",
  demo: "Demo-v0 tool call (family env)",
} as const;

export async function benchCore(): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const noop = new NoopEnv();
  noop.reset();
  const wrapped = new RecordEpisodeStatistics(new TimeLimit(new OrderEnforcing(new NoopEnv()), 1_000_000_000));
  wrapped.reset();
  const vec = new SyncVectorEnv(Array.from({ length: 8 }, () => () => new NoopEnv()));
  vec.reset({ seed: 0 });
  const vecActions = new Array(8).fill(1);
  const toolEnv = new NoopToolEnv();
  toolEnv.reset({ seed: 0 });
  const resetEnv = new NoopToolEnv();
  const noopCall = { type: "tool_call" as const, name: "noop", arguments: {} };
  const ctx: ToolContext<null> = {
    state: null,
    callIndex: 1,
    step: 1,
    rng: () => {
      throw new Error("unused");
    },
  };
  const demo = make("Demo-v0", { fault: "none" }) as Env<unknown, unknown>;
  demo.reset({ seed: 0 });
  const demoCall = { type: "tool_call", name: "celsius_to_fahrenheit", arguments: { temperature_c: 21 } };
  let demoSteps = 0;
  let toolSeed = 0;
  let sink = 0;
  const suite = new Benchmark.Suite()
    .add(ROW.bare, () => {
      sink += NOOP_TOOL.run(noopCall.arguments, ctx).ok ? 1 : 0;
    })
    .add(ROW.envBase, () => {
      sink += noop.step(1)[0];
    })
    .add(ROW.wrappers, () => {
      sink += wrapped.step(1)[0];
    })
    .add(ROW.toolEnv, () => {
      const r = toolEnv.step(noopCall);
      sink += r[1];
      if (r[2] || r[3]) toolEnv.reset({ seed: ++toolSeed });
    })
    .add(ROW.toolEnvReset, () => {
      sink += resetEnv.reset({ seed: ++toolSeed })[0].step;
    })
    .add(ROW.vector, () => {
      vec.step(vecActions);
    })
    .add(ROW.demo, () => {
      if (++demoSteps % 9 === 0) demo.reset({ seed: demoSteps });
      demo.step(demoCall);
    });
  const rows = await run(suite);
  const vecRow = rows.find((r) => r.name === ROW.vector);
  if (vecRow) {
    vecRow.nsPerOp /= 8;
    vecRow.opsPerSec *= 8;
  }
  const ns = (name: string) => (rows.find((r) => r.name === name) as BenchRow).nsPerOp;
  const bare = ns(ROW.bare);
  const us = (x: number) => `${(x / 1000).toFixed(3)} µs`;
  const stepOnly = ns(ROW.toolEnv) - ns(ROW.toolEnvReset) / EPISODE_STEPS;
  const notes = [
    `core overhead per step, ToolEnv.step no-op tool − bare call: ` +
      `${us(ns(ROW.toolEnv) - bare)} (${(ns(ROW.toolEnv) / bare).toFixed(1)}× the bare call; ` +
      `target < 2 µs)`,
    `  of which the amortised reset (1 per ${EPISODE_STEPS} steps): ` +
      `${us(ns(ROW.toolEnvReset) / EPISODE_STEPS)}; step alone − bare call: ` +
      `${us(stepOnly - bare)}`,
    `Env base class dispatch − bare call: ${us(ns(ROW.envBase) - bare)}; with ` +
      `OrderEnforcing+TimeLimit+RecordEpisodeStatistics: ${us(ns(ROW.wrappers) - bare)}`,
    `sink=${sink !== 0 ? "ok" : "?"}`,
  ];
  return { rows, notes };
}
