/**
 * PlanBenchXL-v0's snapshot schema (envs/planbench/stateSchema.ts): states reached by the oracle are accepted, the
 * family state is refused field by field when it contradicts the episode, and seeded mutations of rich snapshots
 * (executed calls, blockers, a final answer) are refused atomically or accepted and steppable without TypeErrors.
 */
import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { type JsonValue, stableStringify } from "../../src/core/json.js";
import { make, registryEntry } from "../../src/core/registry.js";
import { Rng } from "../../src/core/rng.js";
import type { Action } from "../../src/engine/actions.js";
import { BASE_REPLACEMENTS, expectRefusals, familyStateTrial } from "../helpers/stateMutation.js";

const OPTS = { world: "builtin", setting: "blocker" } as const;
type Session = { episode: Record<string, unknown>; lastOutcome: Record<string, unknown> | null };
type State = Record<string, unknown> & { family: { session: Session } };

/** Snapshots along oracle episodes (every step, finished ones included). */
function oracleStates(seeds: number, options: Record<string, unknown> = OPTS): JsonValue[] {
  const oracle = registryEntry("PlanBenchXL-v0").policies["oracle"]!;
  const out: JsonValue[] = [];
  for (let seed = 0; seed < seeds; seed++) {
    const env = make("PlanBenchXL-v0", options) as unknown as PlanBenchEnv;
    const policy = oracle.create(env as never, new Rng(seed));
    let [obs, info] = env.reset({ seed });
    policy.reset?.(obs, info);
    out.push(env.getState() as unknown as JsonValue);
    for (let t = 0; t < 40 && !env.isDone(); t++) {
      [obs, , , , info] = env.step(policy.act(obs, info) as Action);
      out.push(env.getState() as unknown as JsonValue);
    }
    env.close();
  }
  return out;
}

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

const REPLACEMENTS: JsonValue[] = [...BASE_REPLACEMENTS, { $f: 1 }, "get_order_status"];

describe("PlanBenchXL-v0 state schema", () => {
  const states = oracleStates(6);

  it("accepts every state the oracle reaches, finished episodes included", () => {
    const copy = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    let finished = 0;
    for (const s of states) {
      copy.setState(clone(s) as never);
      expect(stableStringify(copy.getState())).toBe(stableStringify(s));
      if ((s as State).family.session.episode["result"] !== null) finished++;
    }
    expect(finished).toBeGreaterThan(0);
  });

  it("accepts states with tool ids in use", () => {
    const opts = { ...OPTS, settings: { capabilities: { tool_id_calling: true } } };
    const withIds = oracleStates(2, opts);
    expect(withIds.some((s) => "toolIds" in (s as State).family.session.episode)).toBe(true);
    const copy = make("PlanBenchXL-v0", opts) as unknown as PlanBenchEnv;
    for (const s of withIds) copy.setState(clone(s) as never);
  });

  it("refuses family states that contradict the episode, naming the field, and leaves the env as it was", () => {
    const traceOf = (s: JsonValue) => (s as State).family.session.episode["trace"] as unknown[];
    const rich = states.find((s) => traceOf(s).length >= 3 && !(s as State)["done"])! as State;
    const env = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    env.reset({ seed: 1 });
    const ep = (s: State) => s.family.session.episode;
    const cases: Array<[string, (s: State) => void, RegExp]> = [
      ["unknown discovered tool", (s) => ((ep(s)["discovered"] as string[])[0] = "no_such_tool"), /episode\.discovered\.0/],
      ["trace index past the end", (s) => (s.family.session.lastOutcome!["entry"] = { traceIndex: 99 }), /lastOutcome\.entry\.traceIndex/],
      ["step count off the trace", (s) => ((ep(s)["counters"] as Record<string, number>)["stepCount"] = 99), /counters\.stepCount/],
      [
        "float tag in a string field",
        (s) => ((ep(s)["trace"] as JsonValue[])[0] = { step_id: 1, action: "others", raw_output: { $f: 1 } }),
        /trace\.0/,
      ],
      ["world not null", (s) => ((s["data"] as Record<string, unknown>)["world"] = {}), /state\.data\.world/],
      ["another query", (s) => ((s.family as unknown as Record<string, unknown>)["queryId"] = "retail_query_9999"), /family\.queryId/],
    ];
    expectRefusals(env, rich, cases);
  });

  it("a finished runtime with a running engine is refused (the runtime would refuse every step)", () => {
    const done = states.find((s) => (s as State).family.session.episode["result"] !== null)! as State;
    const env = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    expect(() => env.setState({ ...clone(done), done: false } as never)).toThrow(/episode\.result/);
  });

  it("1,200 mutations of rich snapshots' world and family state: refused atomically, or accepted and steppable", () => {
    const rich = states.filter((s) => ((s as State).family.session.episode["trace"] as unknown[]).length >= 2);
    const target = make("PlanBenchXL-v0", OPTS) as unknown as PlanBenchEnv;
    const { refused, laterFailures: failures } = familyStateTrial(target, rich, 1200, "planbench-state-mutations", REPLACEMENTS);
    process.stderr.write(`[planbench state mutations] refused ${refused} of 1200, later untyped failures ${failures.length}\n`);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(refused).toBeGreaterThan(600);
  });
});
