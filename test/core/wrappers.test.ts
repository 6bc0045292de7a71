import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { performance } from "node:perf_hooks";
import {
  type Action,
  ChatObservation,
  type Env,
  OrderEnforcing,
  RecordEpisodeStatistics,
  RecordTrajectory,
  ResetNeededError,
  RewardSpecOverride,
  type StepResult,
  TimeLimit,
  type ToolObservation,
  Wrapper,
  checkEnv,
  make,
  readTrajectories,
  trajectorySchema,
} from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "rg-wrappers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const demo = (o: Record<string, unknown> = {}) => make("Demo-v0", o) as unknown as Env<ToolObservation, Action>;
/** Records one aborted Demo-v0 episode (seed 1) to `path`. */
function recordOneEpisode(path: string): void {
  const env = new RecordTrajectory(demo(), path);
  env.reset({ seed: 1 });
  env.step({ type: "abort" });
  env.close();
}
const list: Action = { type: "tool_call", name: "list_sent_email", arguments: {} };

describe("wrappers", () => {
  it("TimeLimit truncates with reason max_steps", () => {
    const env = new TimeLimit(demo(), 2);
    env.reset({ seed: 1 });
    env.step(list);
    const [, , term, trunc, info] = env.step(list);
    expect([term, trunc, info.terminationReason]).toEqual([false, true, "max_steps"]);
    expect(() => new TimeLimit(demo(), 0)).toThrow(RangeError);
  });

  it("TimeLimit reports its limit in spec.maxEpisodeSteps (the inner env's spec is untouched)", () => {
    const inner = demo();
    const env = new TimeLimit(inner, 3);
    expect(env.spec.maxEpisodeSteps).toBe(3);
    expect(env.spec.id).toBe("Demo-v0");
    expect(inner.spec.maxEpisodeSteps).toBe(10);
  });

  it("a RecordTrajectory inside a TimeLimit records the truncation as truncation (max_steps), at once", () => {
    const path = join(dir, "timelimit.jsonl");
    const env = new TimeLimit(new OrderEnforcing(new RecordTrajectory(demo(), path)), 2);
    env.reset({ seed: 1 });
    env.step(list);
    expect(env.step(list)[3]).toBe(true);
    const [first] = readTrajectories(path);
    expect(first).toMatchObject({ terminationReason: "max_steps", success: false, length: 2 });
    expect(first.steps.map((s) => s.truncated)).toEqual([false, true]);
    env.reset({ seed: 2 });
    env.step({ type: "abort" });
    env.close();
    expect(readTrajectories(path).map((t) => t.terminationReason)).toEqual(["max_steps", "aborted"]);
  });

  it("RecordEpisodeStatistics adds info.episode at the end only", () => {
    const env = new RecordEpisodeStatistics(demo());
    env.reset({ seed: 1 });
    expect(env.step(list)[4]).not.toHaveProperty("episode");
    const [, r, , , info] = env.step({ type: "abort" });
    expect(info.episode).toMatchObject({ l: 2 });
    expect((info.episode as { r: number }).r).toBeCloseTo(-0.01 + r, 9);
    expect(env.returnQueue).toHaveLength(1);
  });

  it("RecordEpisodeStatistics t is the episode's wall time in seconds", () => {
    class Slow extends Wrapper<ToolObservation, Action> {
      override step(a: Action): StepResult<ToolObservation> {
        const until = performance.now() + 30;
        while (performance.now() < until);
        return this.env.step(a);
      }
    }
    const env = new RecordEpisodeStatistics(new Slow(demo()));
    env.reset({ seed: 1 });
    env.step(list);
    const { t } = env.step({ type: "abort" })[4].episode as { t: number };
    expect(t).toBeGreaterThanOrEqual(0.06);
    expect(t).toBeLessThan(5);
    env.reset({ seed: 2 });
    const quick = (env.step({ type: "abort" })[4].episode as { t: number }).t;
    expect(quick).toBeGreaterThanOrEqual(0.03);
    expect(quick).toBeLessThan(5);
  });

  it("OrderEnforcing guards any env", () => {
    const env = new OrderEnforcing(demo());
    expect(() => env.step(list)).toThrow(ResetNeededError);
    expect(() => env.render()).toThrow(ResetNeededError);
  });

  it("RewardSpecOverride equals making the env with that spec", () => {
    const spec = {
      name: "alt",
      terms: { success: { weight: 3, kind: "terminal" as const }, tool_call: { weight: -0.2, kind: "cost" as const } },
    };
    const over = new RewardSpecOverride(demo({ fault: "none" }), spec as never);
    const direct = demo({ fault: "none", reward: spec });
    over.reset({ seed: 2 });
    direct.reset({ seed: 2 });
    for (const a of [list, list, { type: "abort" } as Action]) expect(over.step(a)[1]).toBe(direct.step(a)[1]);
  });

  it("ChatObservation renders OpenAI-style messages and tools", () => {
    const env = new ChatObservation(demo({ fault: "none" }));
    const [obs0] = env.reset({ seed: 3 });
    expect(obs0.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(obs0.tools[0]).toMatchObject({ type: "function", function: { name: "weather_com_forecast" } });
    const [obs1] = env.step(list);
    expect(obs1.messages.slice(2).map((m) => m.role)).toEqual(["assistant", "tool"]);
    expect(obs1.messages[2].tool_calls?.[0].function.name).toBe("list_sent_email");
    expect(obs1.messages[3].tool_call_id).toBe(obs1.messages[2].tool_calls?.[0].id);
    checkEnv(new ChatObservation(demo()) as never, { fresh: false });
  });

  it("RecordTrajectory writes one valid JSON line per episode, and the cut-short episode on close", () => {
    const path = join(dir, "t.jsonl");
    const env = new RecordTrajectory(demo({ fault: "permanent" }), path);
    for (const seed of [1, 2]) {
      env.reset({ seed });
      env.step({ type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } });
      env.step({ type: "abort", reason: "tool down" });
    }
    env.reset({ seed: 3 });
    env.step(list);
    env.close();
    const lines = readFileSync(path, "utf8").trim().split("\n");
    expect(lines).toHaveLength(3);
    const trajs = readTrajectories(path);
    expect(trajs.map((t) => t.terminationReason)).toEqual(["aborted", "aborted", "interrupted"]);
    expect(trajs[0]).toMatchObject({ envId: "Demo-v0", seed: 1, length: 2, options: { fault: "permanent" } });
    expect(trajs[0].steps[0].events.map((e) => e.type)).toContain("fault_injected");
    expect(trajs[0].hidden).toMatchObject({ faultyGroup: "forecast" });
    expect(trajectorySchema.safeParse(JSON.parse(lines[0])).success).toBe(true);
  });

  it("the last recorded step keeps its own hidden annotation; the episode keeps the merged ground truth", () => {
    const path = join(dir, "last-hidden.jsonl");
    // The episode ends on a tool call (step limit 2), whose annotation ToolMaze reports per call.
    const env = new RecordTrajectory(make<ToolObservation, Action>("ToolMaze-v0", { perturbation: "P2", maxSteps: 2 }), path);
    const [obs] = env.reset({ seed: 5 });
    let last: Record<string, unknown> | undefined;
    for (let t = 0; t < 2; t++) {
      const [, , term, trunc, info] = env.step({ type: "tool_call", name: obs.visibleTools[t], arguments: {} });
      if (term || trunc) last = info;
    }
    env.close();
    expect(last?.hiddenStep).toBeDefined();
    const [traj] = readTrajectories(path);
    expect(traj.steps.at(-1)!.hidden).toEqual(last!.hiddenStep);
    expect(traj.hidden).toMatchObject(last!.hiddenStep as object);
    expect(traj.hidden).toMatchObject({ perturbation: "P2" });
  });

  it("a torn last line (crash mid-write) is skipped by the reader", () => {
    const path = join(dir, "torn.jsonl");
    recordOneEpisode(path);
    const good = readFileSync(path, "utf8");
    const torn = join(dir, "torn2.jsonl");
    writeFileSync(torn, `${good}${good.slice(0, 40)}`);
    expect(readTrajectories(torn)).toHaveLength(1);
  });

  it("resuming after a crash: a cut tail is dropped before appending, a whole last record without newline is kept", () => {
    const one = join(dir, "one.jsonl");
    recordOneEpisode(one);
    const line = readFileSync(one, "utf8");
    const resume = (path: string) => {
      const again = new RecordTrajectory(demo(), path);
      again.reset({ seed: 2 });
      again.step({ type: "abort" });
      again.close();
      const lines = readFileSync(path, "utf8").split("\n");
      expect(lines.pop()).toBe("");
      for (const l of lines) expect(trajectorySchema.safeParse(JSON.parse(l)).success).toBe(true);
      return readTrajectories(path).map((t) => t.seed);
    };
    const torn = join(dir, "resume-torn.jsonl");
    writeFileSync(torn, `${line}${line.slice(0, 60)}`);
    expect(resume(torn)).toEqual([1, 2]);
    const noNewline = join(dir, "resume-whole.jsonl");
    writeFileSync(noNewline, `${line}${line.trimEnd()}`);
    expect(resume(noNewline)).toEqual([1, 1, 2]);
    const onlyTorn = join(dir, "resume-only-torn.jsonl");
    writeFileSync(onlyTorn, line.slice(0, 60));
    expect(resume(onlyTorn)).toEqual([2]);
  });
});
