/**
 * ToolMisuseBench-v0's snapshot schema (envs/toolmisuse/stateSchema.ts): states reached by the baselines are
 * accepted in both compat modes, the family state is refused field by field when it contradicts the episode, and
 * seeded mutations of rich snapshots (faults fired, calls made) are refused atomically or accepted and steppable
 * without TypeErrors.
 */
import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { type JsonValue, stableStringify } from "../../src/core/json.js";
import { make, registryEntry } from "../../src/core/registry.js";
import { Rng } from "../../src/core/rng.js";
import type { Action } from "../../src/engine/actions.js";
import { BASE_REPLACEMENTS, expectRefusals, familyStateTrial } from "../helpers/stateMutation.js";

interface StateEnv {
  reset(o: { seed: number }): [unknown, unknown];
  step(a: Action): [unknown, number, boolean, boolean, unknown];
  getState(): unknown;
  setState(s: never): void;
  isDone(): boolean;
  actionSpace: { sample(r: Rng): unknown };
}
type Session = { faultStreams: unknown[]; annotations: Array<Record<string, unknown>> };
type State = Record<string, unknown> & { family: { session: Session }; data: { calls: Array<Record<string, unknown>> } };

/** Snapshots along baseline episodes (every step, finished ones included). */
function baselineStates(options: Record<string, unknown>, policies: readonly string[], seeds: number): JsonValue[] {
  const out: JsonValue[] = [];
  for (const name of policies) {
    for (let seed = 0; seed < seeds; seed++) {
      const env = make("ToolMisuseBench-v0", options) as unknown as StateEnv;
      const policy = registryEntry("ToolMisuseBench-v0").policies[name]!.create(env as never, new Rng(seed));
      let [obs, info] = env.reset({ seed });
      policy.reset?.(obs as never, info as never);
      out.push(env.getState() as JsonValue);
      for (let t = 0; t < 30 && !env.isDone(); t++) {
        [obs, , , , info] = env.step(policy.act(obs as never, info as never) as Action);
        out.push(env.getState() as JsonValue);
      }
    }
  }
  return out;
}

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;


const REPLACEMENTS: JsonValue[] = [...BASE_REPLACEMENTS, { code: "timeout", message: "m", details: {} }];
const POLICIES = ["heuristic", "schema-repair", "oracle"];

describe("ToolMisuseBench-v0 state schema", () => {
  for (const compat of ["fixed", "official"] as const) {
    it(`accepts every state the baselines reach (compat ${compat})`, () => {
      const states = baselineStates({ compat }, POLICIES, 6);
      const copy = make("ToolMisuseBench-v0", { compat }) as unknown as StateEnv;
      for (const s of states) {
        copy.setState(clone(s) as never);
        expect(stableStringify(copy.getState())).toBe(stableStringify(s));
      }
      expect(states.some((s) => (s as State).family.session.annotations.some((a) => (a["faults"] as unknown[]).length > 0))).toBe(true);
    });
  }

  const rich = baselineStates({}, POLICIES, 6).filter((s) => (s as State).data.calls.length >= 2);

  it("refuses family states that contradict the episode, naming the field, and leaves the env as it was", () => {
    const base = rich.find((s) => !(s as State)["done"])! as State;
    const env = make("ToolMisuseBench-v0") as unknown as StateEnv;
    env.reset({ seed: 1 });
    const session = (s: State) => s.family.session;
    const cases: Array<[string, (s: State) => void, RegExp]> = [
      ["an annotation too many", (s) => session(s).annotations.push(session(s).annotations[0]!), /session\.annotations/],
      ["annotation out of order", (s) => (session(s).annotations[0]!["step"] = 2), /session\.annotations\.0/],
      ["a recorded response that is no transcript entry", (s) => (s.data.calls[0]!["response"] = { tool_name: "x" }),
        /data\.calls\.0\.response/],
      ["an extra fault stream", (s) => session(s).faultStreams.push({ mt: [], index: 0 }), /faultStreams/],
      ["no session", (s) => ((s as Record<string, unknown>)["family"] = null), /^state\.family$/],
    ];
    expectRefusals(env, base, cases);
  });

  it("1,200 mutations of rich snapshots' world and family state: refused atomically, or accepted and steppable", () => {
    const target = make("ToolMisuseBench-v0") as unknown as StateEnv;
    const { refused, laterFailures: failures } = familyStateTrial(target, rich, 1200, "toolmisuse-state-mutations", REPLACEMENTS);
    process.stderr.write(`[toolmisuse state mutations] refused ${refused} of 1200, later untyped failures ${failures.length}\n`);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(refused).toBeGreaterThan(300);
  });
});
