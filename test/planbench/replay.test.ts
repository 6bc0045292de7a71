import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { PyFloat } from "../../envs/planbench/compat/pyvalue.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { decodeValue, encodeValue } from "../../envs/planbench/world/snapshot.js";
import type { Info } from "../../src/core/env.js";
import { stableStringify, type JsonObject } from "../../src/core/json.js";
import { make, registryEntry } from "../../src/core/registry.js";
import { Rng } from "../../src/core/rng.js";
import type { Action } from "../../src/engine/actions.js";
import type { ToolObservation } from "../../src/engine/observation.js";

const OPTS = { world: "builtin", setting: "blocker" } as const;

/** Runs the oracle until a retrieval shows a blocker in place of a path tool; returns the env at that moment. */
function untilBlockerShown(): { env: PlanBenchEnv; blocker: string; obs: ToolObservation; info: Info; seed: number } {
  const oracle = registryEntry("PlanBenchXL-v0").policies["oracle"]!;
  for (let seed = 0; seed < 40; seed++) {
    const env = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    const policy = oracle.create(env as never, new Rng(seed));
    let [obs, info] = env.reset({ seed });
    policy.reset?.(obs, info);
    for (let t = 0; t < 40 && !env.isDone(); t++) {
      [obs, , , , info] = env.step(policy.act(obs, info) as Action);
      const listed = ((obs.response as JsonObject | null)?.["listed"] ?? []) as string[];
      const blocker = listed.find((n) => env.release.toolByName.get(n)!.tool_type === "blocker_misleading");
      if (blocker && !env.isDone()) return { env, blocker, obs, info, seed };
    }
  }
  throw new Error("no episode showed a blocker in 40 seeds");
}

/** A call of `name` with the trusted values the agent holds for its inputs. */
function callWithHeld(env: PlanBenchEnv, name: string): Action {
  const tool = env.release.toolByName.get(name)!;
  const args: Record<string, unknown> = {};
  const inputs = env.session!.hidden().inputValues;
  for (const [surface, dt] of Object.entries(tool.surface_argument_to_datatype))
    args[surface] = [...(env.session!.episode.trusted.get(dt) ?? [])][0] ?? inputs[dt] ?? "?";
  return { type: "tool_call", name, arguments: args } as unknown as Action;
}

function play(env: PlanBenchEnv, actions: readonly Action[]): string {
  const out: unknown[] = [];
  for (const a of actions) if (!env.isDone()) out.push(env.step(a));
  return stableStringify(out);
}

describe("PlanBenchXL-v0 counterfactual replay", () => {
  it("forks right after a blocker replacement is shown; both branches continue exactly and independently", () => {
    const { env, blocker } = untilBlockerShown();
    const baseline = env.release.toolByName.get(blocker)!.baseline_tool_name!;
    const state = JSON.parse(JSON.stringify(env.getState()));
    const fork = env.fork();
    const restored = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    restored.setState(state);

    // Branch A takes the blocker's bait; branch B insists on the (blocked, never shown) baseline tool.
    const branchA = [callWithHeld(env, blocker), { type: "answer", content: "whatever" } as unknown as Action];
    const branchB = [callWithHeld(env, baseline)];
    const a1 = play(fork, branchA);
    const b1 = play(env, branchB);
    // The original was not touched by the fork's steps, and vice versa.
    expect(play(restored, branchA)).toBe(a1);
    const again = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    again.setState(state);
    expect(play(again, branchB)).toBe(b1);

    const [stepA] = JSON.parse(a1) as Array<[unknown, number, boolean, boolean, { events: Array<{ type: string }> }]>;
    expect(stepA![4].events.map((e) => e.type)).toContain("planbench:untrusted_output");
    const [stepB] = JSON.parse(b1) as Array<[{ response: { error: string } }, number, boolean, boolean, unknown]>;
    expect(stepB![0].response.error).toBe("not_retrieved");
    expect(fork.session!.episode.untrusted.size).toBe(1);
    expect(env.session!.episode.untrusted.size).toBe(0);
    // The blocker's value never counts as held: branch A's answer is judged on the official rules.
    expect(fork.isDone()).toBe(true);
  });

  it("round-trips a finished episode and refuses a state for another query", () => {
    const { env } = untilBlockerShown();
    env.step({ type: "answer", content: "nope" } as unknown as Action);
    const restored = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    restored.setState(JSON.parse(JSON.stringify(env.getState())));
    expect(restored.isDone()).toBe(true);
    expect(stableStringify(restored.session!.snapshot() as never)).toBe(stableStringify(env.session!.snapshot() as never));
    const bad = JSON.parse(JSON.stringify(env.getState()));
    bad.family.queryId = "retail_query_nope";
    expect(() => restored.setState(bad)).toThrow(/state\.family\.queryId|retail_query_nope/);
  });

  it("keeps Python floats apart from ints and escapes look-alike keys", () => {
    const v = { a: new PyFloat(129), b: 129, c: [new PyFloat(-0), new PyFloat(NaN), -0], d: { $f: 1 }, e: { $esc: { x: 1 } } };
    const back = decodeValue(JSON.parse(JSON.stringify(encodeValue(v)))) as typeof v;
    expect(back.a).toBeInstanceOf(PyFloat);
    expect(back.a.value).toBe(129);
    expect(back.b).toBe(129);
    expect(Object.is((back.c[0] as PyFloat).value, -0)).toBe(true);
    expect(Number.isNaN((back.c[1] as PyFloat).value)).toBe(true);
    expect(Object.is(back.c[2], -0)).toBe(true);
    expect(back.d).toEqual({ $f: 1 });
    expect(back.e).toEqual({ $esc: { x: 1 } });
  });
});
