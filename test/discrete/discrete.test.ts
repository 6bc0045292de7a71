import { describe, expect, it } from "vitest";
import {
  type Action,
  ActionError,
  checkEnv,
  type DiscreteToolEnv,
  type Info,
  listEnvs,
  make,
  makeVec,
  OptionsError,
  Rng,
  stableStringify,
  type ToolEnv,
} from "../../src/index.js";
import { readFileSync } from "node:fs";
import { candidateIndexOf, driveDiscrete } from "../../src/engine/discrete/replay.js";
import { CANDIDATE_FEATURES, featureSize, GLOBAL_FEATURES } from "../../src/engine/discrete/features.js";
import { DISCRETE_FAMILIES } from "./families.js";

const discrete = (id: string, options: Record<string, unknown> = {}) =>
  make(id, { ...options, actionMode: "discrete" }) as unknown as DiscreteToolEnv;

function withoutDiscreteKeys(info: Info): Info {
  const { action_mask: _m, structured_action: _s, ...rest } = info;
  return rest;
}

/** Plays a discrete episode with masked random actions; returns the structured actions and the comparable trace. */
function playMasked(id: string, options: Record<string, unknown>, seed: number): { actions: Action[]; trace: string[] } {
  const env = discrete(id, options);
  const rng = new Rng(seed).derive("masked-policy");
  const [, info0] = env.reset({ seed });
  const trace = [stableStringify(withoutDiscreteKeys(info0)), stableStringify(env.structuredObservation())];
  const actions: Action[] = [];
  for (let t = 0; t < 60; t++) {
    const before = env.candidateActions();
    const index = env.actionSpace.sample(rng);
    expect(index).toBeLessThan(before.length);
    const [obs, reward, terminated, truncated, info] = env.step(index);
    // The index maps to exactly the structured action listed in that slot.
    expect(info.structured_action).toEqual(before[index]);
    expect(env.observationSpace.contains(obs)).toBe(true);
    expect(Array.from(info.action_mask as Uint8Array)).toEqual(Array.from(obs.action_mask));
    actions.push(info.structured_action as Action);
    trace.push(stableStringify([reward, terminated, truncated, withoutDiscreteKeys(info)]), stableStringify(env.structuredObservation()));
    if (terminated || truncated) break;
  }
  return { actions, trace };
}

/** The same structured actions in the default mode give the same trace. */
function replayStructured(id: string, options: Record<string, unknown>, seed: number, actions: readonly Action[]): string[] {
  const env = make(id, options) as unknown as ToolEnv<unknown>;
  const [obs0, info0] = env.reset({ seed });
  const trace = [stableStringify(info0), stableStringify(obs0)];
  for (const a of actions) {
    const [obs, reward, terminated, truncated, info] = env.step(a);
    trace.push(stableStringify([reward, terminated, truncated, info]), stableStringify(obs));
  }
  return trace;
}

describe("discrete action mode: options and spaces", () => {
  it("is a make() option on every env id; the structured mode stays the default and unchanged", () => {
    for (const e of listEnvs()) {
      expect(e.options.actionMode).toMatch(/discrete/);
      expect(e.options.maxCandidates).toMatch(/K/);
    }
    const plain = make("Demo-v0");
    expect("actionMode" in plain.spec.entryOptions).toBe(false);
    const env = discrete("Demo-v0", { maxCandidates: 16 });
    expect(env.spec.entryOptions).toMatchObject({ actionMode: "discrete", maxCandidates: 16 });
    expect(env.actionSpace.toJSON()).toEqual({ type: "discrete", n: 16, start: 0 });
    const space = env.observationSpace.toJSON() as unknown as { spaces: Record<string, { type: string; shape?: number[]; n?: number }> };
    expect(space.spaces.observation.type).toBe("box");
    expect(space.spaces.action_mask).toEqual({ type: "multi_binary", n: 16 });
  });

  it("rejects bad mode options and bad actions with typed errors naming the field", () => {
    expect(() => make("Demo-v0", { actionMode: "tabular" })).toThrow(OptionsError);
    expect(() => make("Demo-v0", { actionMode: "discrete", maxCandidates: 1 })).toThrow(/maxCandidates/);
    const env = discrete("Demo-v0", { maxCandidates: 8 });
    env.reset({ seed: 1 });
    for (const bad of [-1, 8, 1.5, "0" as unknown as number]) expect(() => env.step(bad)).toThrow(ActionError);
  });

  it("a slot without a candidate is an in-episode error (an unknown tool), never a crash", () => {
    const env = discrete("Demo-v0", { maxCandidates: 8 });
    const [obs] = env.reset({ seed: 2 });
    const free = Array.from(obs.action_mask).indexOf(0);
    const [, , terminated, , info] = env.step(free);
    expect(terminated).toBe(false);
    expect(info.structured_action).toEqual({ type: "tool_call", name: `masked_slot_${free}`, arguments: {} });
    expect(info.events.some((e) => e.type === "tool_error" && e.source === "unknown_tool")).toBe(true);
  });

  it("vector envs: sync and async (worker threads) sample each env's own mask and give the same trajectories", () => {
    const run = (mode: "sync" | "async") => {
      // Demo keeps the workers' start-up cheap; its envs still differ (city, provider faults) step by step.
      const v = makeVec("Demo-v0", 2, { actionMode: "discrete", maxCandidates: 16, fault: "permanent" }, { mode, workers: 2 });
      const [obs] = v.reset({ seed: 3 });
      const rng = new Rng(1);
      const out: unknown[] = [obs];
      for (let t = 0; t < 20; t++) {
        const r = v.step(v.actionSpace.sample(rng) as never);
        out.push(r[0], Array.from(r[1] as ArrayLike<number>), (r[4] as { structured_action?: unknown }).structured_action);
      }
      v.close();
      return stableStringify(out as never);
    };
    expect(run("async")).toBe(run("sync"));
  });

  it("same seed, same discrete episode (observations, masks, rewards)", () => {
    const run = () => {
      const env = discrete("ToolMaze-v0");
      const rng = new Rng(5);
      const out = [env.reset({ seed: 9 })[0]];
      for (let t = 0; t < 10; t++) {
        const r = env.step(env.actionSpace.sample(rng));
        out.push(r[0]);
        if (r[2] || r[3]) break;
      }
      return out.map((o) => `${Array.from(o.observation).join(",")}|${Array.from(o.action_mask).join("")}`).join("\n");
    };
    expect(run()).toBe(run());
  });
});

for (const fam of DISCRETE_FAMILIES) {
  describe(`discrete mode: ${fam.id} ${JSON.stringify(fam.options)}`, () => {
    it("checkEnv passes", () => {
      checkEnv(discrete(fam.id, fam.options) as never, { episodes: fam.id === "ToolMaze-v1" ? 1 : 2 });
    });

    it("discrete actions map to exactly the structured actions; replaying them in the default mode reproduces the run", () => {
      for (const seed of fam.replaySeeds) {
        const { actions, trace } = playMasked(fam.id, fam.options, seed);
        expect(replayStructured(fam.id, fam.options, seed, actions)).toEqual(trace);
      }
    });

    it.skipIf(fam.reachSeeds.length === 0)(`reachability (sample): the ${fam.policy} policy's actions are candidates`, () => {
      const unreachable = [];
      for (const seed of fam.reachSeeds) {
        const r = driveDiscrete(fam.id, fam.options, fam.policy, seed);
        if (r.unreachable) unreachable.push(r.unreachable);
        // The driven run replays in the default mode too.
        const env = make(fam.id, fam.options) as unknown as ToolEnv<unknown>;
        env.reset({ seed });
        let ended = false;
        for (const a of r.actions) {
          const s = env.step(a);
          ended = s[2] || s[3];
        }
        if (!r.unreachable) expect(ended).toBe(true);
      }
      expect(1 - unreachable.length / fam.reachSeeds.length).toBeGreaterThanOrEqual(fam.minReachable);
    });
  });
}

describe("docs/DISCRETE.md", () => {
  it("documents every feature, in order, and the observation size", () => {
    const doc = readFileSync(new URL("../../docs/DISCRETE.md", import.meta.url), "utf8");
    const names = [...doc.matchAll(/^\| (\d+)(?:–\d+)? \| ([a-z_0-9 …]+?) \|/gm)].map((m) => m[2]);
    const expanded = names.flatMap((n) => (n.includes("…") ? Array.from({ length: 8 }, (_, i) => `id_bit_${i}`) : [n]));
    expect(expanded).toEqual([...GLOBAL_FEATURES, ...CANDIDATE_FEATURES]);
    expect(doc).toContain(`F = ${GLOBAL_FEATURES.length} + ${CANDIDATE_FEATURES.length}·K`);
    expect(featureSize(64)).toBe(GLOBAL_FEATURES.length + 64 * CANDIDATE_FEATURES.length);
  });
});

describe("candidateIndexOf", () => {
  it("finds a structured action among the candidates, and -1 for one that is not", () => {
    const env = discrete("Demo-v0");
    env.reset({ seed: 3 });
    const list = env.candidateActions();
    list.forEach((a, i) => expect(candidateIndexOf(env, a)).toBe(i));
    expect(candidateIndexOf(env, { type: "tool_call", name: "send_email", arguments: { to: "x@y.z", subject: "s", body: "b" } })).toBe(-1);
    expect(candidateIndexOf(env, { type: "abort", reason: "any words" })).toBe(0);
  });
});
