// One step limit: the TimeLimit wrapper ends an episode exactly as the env's own step limit does (same final info,
// reward and end-of-episode behaviour), and passes checkEnv.
import { describe, expect, it } from "vitest";
import {
  type Action,
  ActionError,
  checkEnv,
  Env,
  type EnvMetadata,
  type EnvSpec,
  type Info,
  listEnvs,
  make,
  ResetNeededError,
  Rng,
  type StepResult,
  TimeLimit,
  ToolEnv,
  type ToolObservation,
  type ToolStepInfo,
} from "../../src/index.js";
import { Discrete } from "../../src/core/spaces/discrete.js";

const LIMIT = 3;

function toolEnvOf(env: Env<ToolObservation, Action>): ToolEnv<unknown> {
  const inner = env.unwrapped;
  if (!(inner instanceof ToolEnv)) throw new Error(`${env.spec.id} is not a ToolEnv`);
  return inner;
}

/** Plays tool calls only (sampled from the visible tools), so the episode runs into the step limit. */
function play(
  env: Env<ToolObservation, Action>,
  toolEnv: ToolEnv<unknown>,
  seed: number,
): { observations: ToolObservation[]; rewards: number[]; infos: Info[]; last: [boolean, boolean] } {
  const observations = [env.reset({ seed })[0]];
  const rng = new Rng(seed).derive("timelimit-test");
  const rewards: number[] = [];
  const infos: Info[] = [];
  for (;;) {
    // A call to a visible tool; with none visible yet (PlanBench-XL before its first retrieval), any action.
    const action: Action =
      toolEnv.toolCallSpace.tools().length > 0
        ? { type: "tool_call", ...toolEnv.toolCallSpace.sample(rng) }
        : toolEnv.actionSpace.sample(rng);
    const [obs, reward, terminated, truncated, info] = env.step(action);
    observations.push(obs);
    rewards.push(reward);
    infos.push(info);
    if (terminated || truncated) return { observations, rewards, infos, last: [terminated, truncated] };
  }
}

describe("TimeLimit", () => {
  for (const { id } of listEnvs()) {
    it(`${id}: the final step under TimeLimit(${LIMIT}) equals maxSteps=${LIMIT} (observations, success, metrics, hidden)`, () => {
      const own = make<ToolObservation, Action>(id, { maxSteps: LIMIT });
      const inner = make<ToolObservation, Action>(id);
      const wrapped = new TimeLimit(inner, LIMIT);
      for (const seed of [0, 1]) {
        const a = play(own, toolEnvOf(own), seed);
        const b = play(wrapped, toolEnvOf(inner), seed);
        expect(b.infos).toEqual(a.infos);
        // The lowered limit is the env's own: the observed step budget counts down to it.
        expect(b.observations).toEqual(a.observations);
        expect(b.rewards).toEqual(a.rewards);
        expect(b.last).toEqual(a.last);
        const final = b.infos.at(-1)!;
        if (b.infos.length === LIMIT && b.last[1]) {
          expect(final.terminationReason).toBe("max_steps");
          expect(final).toHaveProperty("success");
          expect(final).toHaveProperty("metrics");
          expect(final).toHaveProperty("hidden");
        }
        // The wrapped env itself refuses another step, as after its own limit.
        expect(() => wrapped.step({ type: "abort" })).toThrow(ResetNeededError);
      }
    });
  }

  it("passes checkEnv around a family env, with a limit below the env's own", () => {
    expect(() => checkEnv(new TimeLimit(make("Demo-v0"), 2))).not.toThrow();
    expect(() => checkEnv(new TimeLimit(make("FailingTools-v0"), 4))).not.toThrow();
    expect(() => checkEnv(new TimeLimit(make("PlanBenchXL-v0"), 3))).not.toThrow();
  });

  it("PlanBench-XL's official runtime ends at the lowered limit (exceeded_max_steps), never at a raised one", () => {
    const search: Action = { type: "retrieve", meta_tool: "by_output_info", output_information: "no such datatype" };
    for (const [env, steps] of [
      [new TimeLimit(make<ToolObservation, Action>("PlanBenchXL-v0"), 2), 2],
      [new TimeLimit(make<ToolObservation, Action>("PlanBenchXL-v0", { maxSteps: 2 }), 5), 2],
    ] as const) {
      env.reset({ seed: 3 });
      let last: Info = {};
      for (let i = 0; i < steps; i++) last = env.step(search)[4];
      expect(last["terminationReason"]).toBe("max_steps");
      expect(last["metrics"]).toMatchObject({ officialFailure: "exceeded_max_steps" });
    }
  });

  it("a higher limit than the env's own leaves the env's limit in force", () => {
    const env = new TimeLimit(make<ToolObservation, Action, ToolStepInfo>("Demo-v0", { maxSteps: 2 }), 5);
    env.reset({ seed: 1 });
    const list: Action = { type: "tool_call", name: "list_sent_email", arguments: {} };
    env.step(list);
    const [, , , truncated, info] = env.step(list);
    expect([truncated, info.terminationReason]).toEqual([true, "max_steps"]);
  });

  it("truncates an env without a step limit of its own, and passes checkEnv there too", () => {
    /** Counts forever; never ends an episode by itself. */
    class Counter extends Env<number, number> {
      readonly observationSpace = new Discrete(1000);
      readonly actionSpace = new Discrete(2);
      readonly spec: EnvSpec = { id: "Counter", entryOptions: {}, maxEpisodeSteps: null, libraryVersion: "test" };
      readonly metadata: EnvMetadata = { renderModes: [], infoKeys: { terminationReason: "why the episode ended" } };
      private t = -1;
      reset(): [number, Info] {
        this.t = 0;
        return [0, {}];
      }
      step(action: number): StepResult<number> {
        if (this.t < 0) throw new ResetNeededError("step() before reset()");
        if (!this.actionSpace.contains(action)) throw new ActionError("action", "not 0 or 1");
        this.t += 1;
        return [this.t, action, false, false, {}];
      }
    }
    const env = new TimeLimit(new Counter(), 3);
    expect(() => checkEnv(env)).not.toThrow();
    env.reset();
    env.step(0);
    env.step(1);
    expect(env.step(1).slice(2)).toEqual([false, true, { terminationReason: "max_steps" }]);
    expect(() => env.step(0)).toThrow(ResetNeededError);
  });
});
