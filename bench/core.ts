// Framework overhead: how much the core adds per step over a bare function call. Run with `npm run bench`.
import Benchmark from "benchmark";
import { Discrete, Env, type EnvMetadata, type EnvSpec, type Info, OrderEnforcing, RecordEpisodeStatistics, SyncVectorEnv, TimeLimit, make } from "../src/index.js";
import type { StepResult } from "../src/index.js";

/** The cheapest possible env: the numbers measure the framework, not a simulator. */
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

function bareStep(action: number): [number, number, boolean, boolean, Info] {
  return [action, 0, false, false, {}];
}

export interface BenchRow {
  name: string;
  opsPerSec: number;
  nsPerOp: number;
}

function run(suite: Benchmark.Suite): Promise<BenchRow[]> {
  return new Promise((resolve) => {
    const rows: BenchRow[] = [];
    suite.on("cycle", (e: Benchmark.Event) => {
      const b = e.target as unknown as Benchmark & { name: string };
      rows.push({ name: b.name, opsPerSec: b.hz, nsPerOp: 1e9 / b.hz });
    });
    suite.on("complete", () => resolve(rows));
    suite.run({ async: false });
  });
}

export async function benchCore(): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const noop = new NoopEnv();
  noop.reset();
  const wrapped = new RecordEpisodeStatistics(new TimeLimit(new OrderEnforcing(new NoopEnv()), 1_000_000_000));
  wrapped.reset();
  const vec = new SyncVectorEnv(Array.from({ length: 8 }, () => () => new NoopEnv()));
  vec.reset({ seed: 0 });
  const vecActions = new Array(8).fill(1);
  const demo = make("Demo-v0", { fault: "none" }) as Env<unknown, unknown>;
  demo.reset({ seed: 0 });
  const demoCall = { type: "tool_call", name: "celsius_to_fahrenheit", arguments: { temperature_c: 21 } };
  let demoSteps = 0;
  let sink = 0;
  const suite = new Benchmark.Suite()
    .add("bare function call", () => {
      sink += bareStep(1)[0];
    })
    .add("Env.step (no-op env)", () => {
      sink += noop.step(1)[0];
    })
    .add("Env.step + 3 wrappers", () => {
      sink += wrapped.step(1)[0];
    })
    .add("SyncVectorEnv(8) per env-step", () => {
      vec.step(vecActions);
    })
    .add("Demo-v0 tool call (full engine)", () => {
      if (++demoSteps % 9 === 0) demo.reset({ seed: demoSteps });
      demo.step(demoCall);
    });
  const rows = await run(suite);
  const vecRow = rows.find((r) => r.name.startsWith("SyncVectorEnv"));
  if (vecRow) {
    vecRow.nsPerOp /= 8;
    vecRow.opsPerSec *= 8;
  }
  const bare = rows[0].nsPerOp;
  const noopRow = rows[1];
  const notes = [
    `core overhead per step (Env.step no-op − bare call): ${((noopRow.nsPerOp - bare) / 1000).toFixed(3)} µs (target < 2 µs)`,
    `with OrderEnforcing+TimeLimit+RecordEpisodeStatistics: ${((rows[2].nsPerOp - bare) / 1000).toFixed(3)} µs`,
    `sink=${sink > 0 ? "ok" : "?"}`,
  ];
  return { rows, notes };
}
