/**
 * `setState` with mutated snapshots (issue 17, item 5): 2,500 seeded mutations of real mid-episode states. Each is
 * either refused with a StateError naming a field — and then the env is exactly as it was — or accepted, and then
 * the env keeps stepping without untyped errors (the reproduction had 93 of 1,543 accepted states fail later with
 * TypeErrors, e.g. `history: 5` or `data: null`).
 */
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { type Action, type Env, make, Rng, stableStringify, StateError } from "../src/index.js";
import type { JsonValue } from "../src/core/json.js";
import { BASE_REPLACEMENTS, mutationTrial } from "./helpers/stateMutation.js";

interface AnyToolEnv {
  getState(): unknown;
  setState(s: never): void;
  reset(a: { seed: number }): unknown;
  close(): void;
}

function stepSome(env: Env<unknown, unknown>, rng: Rng, n: number): void {
  for (let i = 0; i < n; i++) {
    const [, , term, trunc] = env.step(env.actionSpace.sample(rng) as Action);
    if (term || trunc) env.reset({ seed: i });
  }
}

const CASES: Array<[string, (p: (string | number)[]) => boolean]> = [
  // Every path may be mutated: Demo, ToolMisuseBench and PlanBench declare exact world (and family-state) schemas;
  // ToolMaze's and Failing Tools' world and family state are checked against the rebuilt episode's (structurally).
  ["Demo-v0", () => true],
  ["ToolMaze-v0", () => true],
  ["FailingTools-v0", () => true],
  ["ToolMisuseBench-v0", () => true],
  ["PlanBenchXL-v0", () => true],
];
const PER_ENV = 500;

/** Applies `n` mutations of two mid-episode snapshots of `id` to another env of `id`; tallies the outcomes. */
function mutationRun(id: string, allowed: (p: (string | number)[]) => boolean, n: number, rnd: () => number) {
  const source = make(id) as unknown as AnyToolEnv & Env<unknown, unknown>;
  source.reset({ seed: 7 });
  stepSome(source, new Rng(7).derive("src"), 3);
  const snapshots = [source.getState() as JsonValue];
  stepSome(source, new Rng(8).derive("src"), 2);
  snapshots.push(source.getState() as JsonValue);
  const target = make(id) as unknown as AnyToolEnv & Env<unknown, unknown>;
  const tally = mutationTrial(target, snapshots, {
    n,
    rnd,
    replacements: BASE_REPLACEMENTS,
    allowed,
    field: /^state/,
    step: (k) => stepSome(target, new Rng(k).derive("after"), 3),
  });
  tally.laterFailures = tally.laterFailures.map((m) => `${id}: ${m}`);
  source.close();
  target.close();
  return tally;
}

describe("setState with mutated snapshots", () => {
  it(`${PER_ENV * CASES.length} mutations: refused atomically with a typed error, or accepted and steppable`, () => {
    const rnd = seedrandom("issue-17-state-mutations");
    let refused = 0;
    let accepted = 0;
    const failures: string[] = [];
    for (const [id, allowed] of CASES) {
      const t = mutationRun(id, allowed, PER_ENV, rnd);
      refused += t.refused;
      accepted += t.accepted;
      failures.push(...t.laterFailures);
    }
    process.stderr.write(`[state mutations] refused ${refused}, accepted ${accepted}, later untyped failures ${failures.length}\n`);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(refused).toBeGreaterThan(PER_ENV);
  });

  it("every state reached by play is accepted by a fresh env of each family", () => {
    for (const id of ["Demo-v0", "ToolMaze-v0", "FailingTools-v0", "ToolMisuseBench-v0", "PlanBenchXL-v0"]) {
      const env = make(id) as unknown as AnyToolEnv & Env<unknown, unknown>;
      const copy = make(id) as unknown as AnyToolEnv;
      for (let ep = 0; ep < 10; ep++) {
        env.reset({ seed: ep });
        const rng = new Rng(ep).derive("play");
        for (let i = 0; i < 12; i++) {
          copy.setState(env.getState() as never);
          expect(stableStringify(copy.getState())).toBe(stableStringify(env.getState()));
          const [, , term, trunc] = env.step(env.actionSpace.sample(rng) as Action);
          if (term || trunc) break;
        }
      }
      env.close();
      copy.close();
    }
  });

  it("the reproductions: history 5 and data null are refused and leave the env stepping as before", () => {
    const env = make("Demo-v0") as unknown as AnyToolEnv;
    env.reset({ seed: 1 });
    const state = env.getState() as Record<string, unknown>;
    const before = stableStringify(state);
    for (const bad of [
      { ...state, history: 5 },
      { ...state, data: null },
      { ...state, version: 99 },
      { ...state, stepCount: "3" },
    ]) {
      expect(() => env.setState(bad as never)).toThrow(StateError);
      expect(stableStringify(env.getState())).toBe(before);
    }
    expect(() => env.setState({ ...state, history: 5 } as never)).toThrow(/state\.history/);
    expect(() => env.setState({ ...state, data: null } as never)).toThrow(/state\.data/);
    const [obs] = (env as unknown as Env<{ step: number }, unknown>).step({ type: "abort", reason: "done" });
    expect(obs.step).toBe(1);
  });
});
