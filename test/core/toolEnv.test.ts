import { describe, expect, it } from "vitest";
import {
  ActionError,
  CheckEnvError,
  type Env,
  OptionsError,
  ResetNeededError,
  type ToolObservation,
  type ToolResetInfo,
  type ToolStepInfo,
  UnknownEnvError,
  checkEnv,
  listEnvs,
  make,
  stableStringify,
} from "../../src/index.js";
import { type Action, type StepResult, Wrapper } from "../../src/index.js";

// Typed info: `info.events`, `info.rawTerms`, `info.terminationReason` need no casts.
const demo = (opts: Record<string, unknown> = {}) => make<ToolObservation, Action, ToolStepInfo, ToolResetInfo>("Demo-v0", opts);
const call = (name: string, args: Record<string, unknown> = {}): Action => ({ type: "tool_call", name, arguments: args as never });

describe("registry and make()", () => {
  it("lists envs with option docs and policies", () => {
    const demoEntry = listEnvs().find((e) => e.id === "Demo-v0");
    expect(demoEntry?.policies).toContain("random");
    expect(demoEntry?.options.fault).toMatch(/transient/);
  });

  it("bad options name the field, the value and the expectation", () => {
    expect(() => make("Demo-v0", { fault: "sometimes" })).toThrow(OptionsError);
    expect(() => make("Demo-v0", { fault: "sometimes" })).toThrow(/fault: .*"sometimes"/);
    // toThrow (not try/catch) so the test fails when nothing is thrown.
    expect(() => make("Demo-v0", { maxSteps: -3 })).toThrow(
      expect.objectContaining({ name: "OptionsError", field: "maxSteps", message: expect.stringMatching(/maxSteps: .*\(got -3\)/) }),
    );
    expect(() => make("Demo-v0", { falt: "none" })).toThrow(
      expect.objectContaining({ name: "OptionsError", field: "falt", message: expect.stringMatching(/falt: unknown option/) }),
    );
    expect(() => make("Nope-v0")).toThrow(UnknownEnvError);
    expect(() => make("Demo-v0", { reward: "no-such-preset" })).toThrow(/unknown reward preset/);
    expect(() => make("Demo-v0", { reward: { name: "x", terms: { made_up: { weight: 1, kind: "terminal" } } } })).toThrow(/made_up/);
  });

  it("spec records id, options with defaults, step limit and version", () => {
    const env = demo({ fault: "none" });
    expect(env.spec.id).toBe("Demo-v0");
    expect(env.spec.entryOptions).toMatchObject({ fault: "none", reward: "shaped", invalidAction: "raise" });
    expect(env.spec.maxEpisodeSteps).toBe(10);
    expect(env.spec.libraryVersion).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("ToolEnv contract (Demo-v0)", () => {
  it("passes checkEnv under every fault setting", () => {
    for (const fault of ["none", "transient", "permanent", "implicit"]) checkEnv(demo({ fault }) as never);
  });

  it("checkEnv catches a broken env", () => {
    class Leaky extends Wrapper<ToolObservation, Action> {
      override step(a: Action): StepResult<ToolObservation> {
        const r = this.env.step(a);
        return [r[0], r[1], r[2], r[3], { ...r[4], undocumented: 1 }];
      }
    }
    expect(() => checkEnv(new Leaky(demo()) as never, { episodes: 1 })).toThrow(/undocumented/);
    class Flaky extends Wrapper<ToolObservation, Action> {
      private n = 0;
      override step(a: Action): StepResult<ToolObservation> {
        const r = this.env.step(a);
        return [r[0], r[1] + (this.n++ % 7 === 3 ? 1 : 0), r[2], r[3], r[4]];
      }
    }
    expect(() => checkEnv(new Flaky(demo()) as never, { episodes: 2 })).toThrow(CheckEnvError);
  });

  it("enforces reset/step order with typed errors", () => {
    const env = demo();
    expect(() => env.step({ type: "abort" })).toThrow(ResetNeededError);
    env.reset({ seed: 1 });
    env.step({ type: "abort" });
    expect(() => env.step({ type: "abort" })).toThrow(ResetNeededError);
  });

  it("malformed actions throw ActionError by default and are events with invalidAction=penalize", () => {
    const env = demo();
    env.reset({ seed: 1 });
    expect(() => env.step({ type: "tool_call" } as unknown as Action)).toThrow(ActionError);
    const lenient = demo({ invalidAction: "penalize" });
    lenient.reset({ seed: 1 });
    const [obs, reward, , , info] = lenient.step({ type: "tool_call" } as unknown as Action);
    expect(info.events[0].type).toBe("invalid_action");
    expect(obs.response).toMatchObject({ error: { code: "invalid_action" } });
    expect(reward).toBeLessThan(0);
  });

  it("wrong-but-well-formed calls are in-episode errors that count as steps", () => {
    const env = demo();
    env.reset({ seed: 1 });
    const [obs, , term, , info] = env.step(call("teleport", {}));
    expect(term).toBe(false);
    expect(obs.step).toBe(1);
    expect(obs.response).toMatchObject({ error: { code: "unknown_tool" } });
    expect(info.rawTerms).toMatchObject({ invalid_call: 1, tool_call: 1 });
  });

  it("observations send tool schemas once and report budgets", () => {
    const env = demo();
    const [obs0] = env.reset({ seed: 2 });
    expect(obs0.newTools.map((t) => t.name)).toEqual(obs0.visibleTools);
    expect(obs0.newTools[0]).not.toHaveProperty("meta");
    expect(obs0.budget).toEqual({ steps: 10, toolCalls: 8, retries: 3 });
    const [obs1] = env.step(call("list_sent_email"));
    expect(obs1.newTools).toEqual([]);
    expect(obs1.budget.toolCalls).toBe(7);
  });

  it("hidden ground truth is in info.hidden, never in observations", () => {
    const env = demo({ fault: "permanent" });
    const [obs, info] = env.reset({ seed: 3 });
    expect(info.hidden).toMatchObject({ faultyGroup: "forecast" });
    expect(JSON.stringify(obs)).not.toMatch(/faultyGroup|expectedFahrenheit/);
    const noHidden = demo({ hiddenInfo: false });
    expect(noHidden.reset({ seed: 3 })[1]).not.toHaveProperty("hidden");
  });

  it("the same seed gives the same episode, bit for bit; unseeded resets continue deterministically", () => {
    const play = (env: Env<ToolObservation, Action>, seed?: number) => {
      const trace: unknown[] = [env.reset(seed === undefined ? {} : { seed })];
      trace.push(env.step(call("weather_com_forecast", { city: "Oslo" })));
      trace.push(env.step(call("yahoo_weather_forecast", { city: "Oslo" })));
      trace.push(env.step({ type: "answer", content: "done" }));
      return stableStringify(trace);
    };
    expect(play(demo(), 11)).toBe(play(demo(), 11));
    const a = demo();
    const b = demo();
    play(a, 5);
    play(b, 5);
    expect(play(a)).toBe(play(b));
  });

  it("terminal info carries reason, success and metrics; render shows the episode", () => {
    const env = demo({ fault: "none" });
    env.reset({ seed: 4 });
    const [, , term, , info] = env.step({ type: "abort", reason: "giving up" });
    expect(term).toBe(true);
    expect(info).toMatchObject({ terminationReason: "aborted", success: false, metrics: { success: 0 } });
    expect(env.render()).toMatch(/abort: giving up/);
  });

  it("truncates at the step limit: a truncation (max_steps), not a budget event", () => {
    const env = demo({ maxSteps: 2 });
    env.reset({ seed: 1 });
    expect(env.step(call("list_sent_email"))[3]).toBe(false);
    const [, , term, trunc, info] = env.step(call("list_sent_email"));
    expect([term, trunc, info.terminationReason]).toEqual([false, true, "max_steps"]);
    expect(info.events.map((e) => e.type)).not.toContain("budget_exceeded");
    expect(info.rawTerms.budget_exceeded).toBeUndefined();
  });

  it("budgets: exceeding the tool-call budget terminates", () => {
    const env = demo();
    env.reset({ seed: 1 });
    let last: StepResult<ToolObservation, ToolStepInfo> | null = null;
    for (let i = 0; i < 9; i++) {
      last = env.step(call("list_sent_email"));
      if (last[2] || last[3]) break;
    }
    const info = (last as StepResult<ToolObservation, ToolStepInfo>)[4];
    expect(info.terminationReason).toBe("budget_exceeded");
    expect(info.events).toContainEqual({ type: "budget_exceeded", budget: "tool_calls", limit: 8 });
  });

  it("budgets: one retry more than the retry budget terminates with retry_exceeded", () => {
    // Demo's budget is 3 retries; a permanent fault makes every repeat of the forecast call a retry.
    const env = demo({ fault: "permanent" });
    env.reset({ seed: 1 });
    const forecast = call("weather_com_forecast", { city: "Oslo" });
    const infos: ToolStepInfo[] = [];
    for (let i = 0; i < 5; i++) {
      const [, , term, trunc, info] = env.step(forecast);
      infos.push(info);
      if (term || trunc) break;
    }
    expect(infos.map((i) => i.events.filter((e) => e.type === "retry").length)).toEqual([0, 1, 1, 1, 1]);
    expect(infos.slice(0, 4).map((i) => i.terminationReason)).toEqual([undefined, undefined, undefined, undefined]);
    const last = infos[4];
    expect(last.terminationReason).toBe("retry_exceeded");
    expect(last.events).toContainEqual({ type: "budget_exceeded", budget: "retries", limit: 3 });
    expect(last.rawTerms.budget_exceeded).toBe(1);
    expect(() => env.step(forecast)).toThrow(ResetNeededError);
  });

  it("checkEnv rejects a budget_exceeded event naming an unknown budget (e.g. the step limit)", () => {
    class StepBudget extends Wrapper<ToolObservation, Action> {
      override step(a: Action): StepResult<ToolObservation> {
        const r = this.env.step(a);
        return [
          r[0],
          r[1],
          r[2],
          r[3],
          { ...r[4], events: [...(r[4].events as object[]), { type: "budget_exceeded", budget: "steps", limit: 10 }] },
        ];
      }
    }
    expect(() => checkEnv(new StepBudget(demo()) as never, { episodes: 1 })).toThrow(/budget_exceeded names budget "steps"/);
  });

  it("a bad seed is an OptionsError naming the field, not an ActionError", () => {
    const env = demo();
    for (const seed of [1.5, Number.NaN, 2 ** 60, "7" as unknown as number]) {
      expect(() => env.reset({ seed })).toThrow(
        expect.objectContaining({ name: "OptionsError", field: "seed", message: expect.stringMatching(/^reset\(\): invalid seed: /) }),
      );
    }
    expect(() => env.reset({ options: [] as never })).toThrow(expect.objectContaining({ name: "OptionsError", field: "options" }));
  });

  it("wrong seed types say what a seed must be: bigint, negative, non-integer, string, positional", () => {
    const env = demo();
    const rule = /must be a non-negative integer no larger than 2\^53 - 1 \(a plain number such as 42\)/;
    const cases = [
      [42n, /got 42n \(a bigint\)/],
      [-3, /got -3$/],
      [1.5, /got 1\.5 \(not an integer\)/],
      ["42", /got "42" \(a string\)/],
    ] as const;
    for (const [seed, got] of cases) {
      const typed = expect.objectContaining({ name: "OptionsError", field: "seed", message: expect.stringMatching(rule) });
      expect(() => env.reset({ seed: seed as never })).toThrow(typed);
      expect(() => env.reset({ seed: seed as never })).toThrow(got);
    }
    // Gymnasium's keyword argument written positionally would otherwise start an unseeded episode unnoticed.
    const positional = expect.objectContaining({ name: "OptionsError", message: expect.stringMatching(/call reset\(\{ seed: 42 \}\)/) });
    expect(() => env.reset(42 as never)).toThrow(positional);
    expect(() => env.reset({ Seed: 42 } as never)).toThrow(expect.objectContaining({ name: "OptionsError", field: "Seed" }));
    expect(env.reset({ seed: 0 })[1].taskId).toMatch(/^demo-/);
    expect(env.reset({ seed: Number.MAX_SAFE_INTEGER })[1].taskId).toMatch(/^demo-/);
  });

  it("stepping a single env after its end speaks of that env, not of vector envs", () => {
    const env = demo();
    expect(() => env.step({ type: "abort" })).toThrow(/^step\(\) called before reset\(\)/);
    env.reset({ seed: 1 });
    env.step({ type: "abort" });
    const single = expect.objectContaining({ name: "ResetNeededError", message: expect.not.stringMatching(/vector/) });
    expect(() => env.step({ type: "abort" })).toThrow(single);
  });
});

describe("register(id, factory, defaults)", () => {
  it("registers a custom env that make() validates and builds", async () => {
    const { register, registryEntry } = await import("../../src/index.js");
    const base = registryEntry("Demo-v0");
    register("CustomDemo-v1", base.factory, { ...base, description: "a re-registered demo" });
    expect(listEnvs().map((e) => e.id)).toContain("CustomDemo-v1");
    expect(() => make("CustomDemo-v1", { fault: "nope" })).toThrow(OptionsError);
    const env = make("CustomDemo-v1", { fault: "none" });
    expect(env.reset({ seed: 1 })[1]).toHaveProperty("taskId");
    expect(() => register("bad id", base.factory, base)).toThrow(/Name-v0/);
  });
});
