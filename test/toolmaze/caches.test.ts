// ToolMaze's hot-path caches (per canonical instance, per task, per step) must be invisible: each test compares one
// of them with the direct computation, or checks that what an episode hands out is its own.
import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make, Rng } from "../../src/index.js";
import type { JsonObject, JsonValue } from "../../src/core/json.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import { ToolEpisode } from "../../src/engine/episode.js";
import { PlanExecutor } from "../../envs/toolmaze/baselines.js";
import type { ToolMazeEnv } from "../../envs/toolmaze/env.js";
import { buildProfile } from "../../envs/toolmaze/faults.js";
import { buildView } from "../../envs/toolmaze/instanceCache.js";
import { taskPrompt } from "../../envs/toolmaze/setup.js";
import { analyseCalls, type CallRecord, minRemainingCalls, scoreEpisode, slotSolutions } from "../../envs/toolmaze/scorer.js";
import { alternativeTools, downstreamPositions, downstreamTools } from "../../envs/toolmaze/task/facts.js";
import { CANONICAL_INSTANCES, CANONICAL_SEED, canonicalInstance, canonicalTasks } from "../../envs/toolmaze/tasks.js";
import { fnv1a, sub } from "../../envs/toolmaze/world/hash.js";
import { fieldType } from "../../envs/toolmaze/world/types.js";

type AnyEnv = ReturnType<typeof make> & ToolMazeEnv;

/** Victims as the scorer defines them: per slot, the tool of the first perturbed call. */
function victimsOf(env: AnyEnv, log: readonly CallRecord[]): Map<number, string> {
  const byId = new Map(env.current().profile.faults.map((f) => [f.id, f]));
  const victims = new Map<number, string>();
  for (const c of log) {
    const f = c.faultId !== undefined ? byId.get(c.faultId) : undefined;
    if (c.perturbed && f && !victims.has(f.slot)) victims.set(f.slot, c.tool);
  }
  return victims;
}

/** Random play (the bridge benchmark's workload), checking `check` after every step. */
function randomPlay(
  options: Record<string, unknown>,
  episodes: number,
  check: (env: AnyEnv, info: Record<string, unknown>, ended: boolean) => void,
): void {
  const env = make("ToolMaze-v0", options) as AnyEnv;
  const rng = new Rng("caches-test");
  for (let ep = 0; ep < episodes; ep++) {
    env.reset({ seed: ep * 7 });
    for (;;) {
      const [, , term, trunc, info] = env.step(env.actionSpace.sample(rng));
      check(env, info, term || trunc);
      if (term || trunc) break;
    }
  }
}

/** Every object and array reachable from `v` is frozen. */
const frozenAll = (v: unknown): boolean => typeof v !== "object" || v === null || (Object.isFrozen(v) && Object.values(v).every(frozenAll));

describe("ToolMaze caches are invisible", () => {
  it("a canonical instance's cached profile is the profile built from its stream", () => {
    for (let index = 3; index < CANONICAL_INSTANCES; index += 97) {
      const env = make("ToolMaze-v0", { taskIndex: index }) as AnyEnv;
      env.reset({ seed: 1 });
      const { task, profile } = env.current();
      const inst = canonicalInstance(index);
      expect(profile).toEqual(buildProfile(task, inst.perturbation, new Rng(`${CANONICAL_SEED}/${task.id}/${inst.perturbation}`)));
    }
  });

  it("the hidden truth is shared read-only: deep-frozen, edits throw, the next episode sees it unchanged", () => {
    const env = make("ToolMaze-v0", { taskIndex: 1207 }) as AnyEnv;
    const hidden = env.reset({ seed: 0 })[1].hidden as JsonObject;
    const snapshot = JSON.stringify(hidden);
    expect(frozenAll(hidden)).toBe(true);
    expect(() => (hidden.sStar as string[]).push("mutated")).toThrow(TypeError);
    expect(() => {
      (hidden.positions as JsonObject[])[0]!.members = [];
    }).toThrow(TypeError);
    expect(() => {
      hidden.extra = true;
    }).toThrow(TypeError);
    const next = env.reset({ seed: 1 })[1].hidden as JsonObject;
    expect(next).toBe(hidden);
    expect(JSON.stringify(next)).toBe(snapshot);
    // A copy is the caller's to edit.
    const copy = structuredClone(hidden);
    (copy.sStar as string[]).push("mine");
    expect(JSON.stringify(env.reset({ seed: 2 })[1].hidden)).toBe(snapshot);
  });

  it("an instance's entry reads its view and prompt from a visited sibling only in its own option set", () => {
    // Bases 120 and 121, instances visited out of order, under two option sets whose views and prompts differ.
    const base = 120 * 5;
    for (const order of [
      [3, 0, 4, 1, 2],
      [1, 2, 0, 4, 3],
    ]) {
      for (const opts of [
        { distractors: 5, hint: true },
        { distractors: 0, hint: false },
      ]) {
        for (const j of order) {
          const index = base + (order[0] === 3 ? 0 : 5) + j;
          const env = make("ToolMaze-v0", { taskIndex: index, ...opts }) as AnyEnv;
          const o = env.reset({ seed: 0 })[0] as ToolObservation;
          const { task } = canonicalInstance(index);
          const fresh = buildView(task, new Rng(index - (index % 5)), opts.distractors);
          expect(o.visibleTools).toEqual(fresh.visible);
          expect(o.task).toBe(taskPrompt(task, opts.hint));
        }
      }
    }
  });

  it("a sampled task's hidden truth is deep-frozen too, its faults and their payloads included", () => {
    for (const perturbation of ["P1", "P3"] as const) {
      const env = make("ToolMaze-v0", { suite: "sampled", perturbation }) as AnyEnv;
      const hidden = env.reset({ seed: 5 })[1].hidden as JsonObject;
      expect((hidden.faults as JsonObject[]).length).toBeGreaterThan(0);
      expect(frozenAll(hidden)).toBe(true);
      expect(() => (hidden.sStar as string[]).push("mutated")).toThrow(TypeError);
      expect(() => {
        ((hidden.faults as JsonObject[])[0]!.payload as JsonObject).extra = 1;
      }).toThrow(TypeError);
    }
  });

  it("an explicit fault's response is the episode's own: the same object within it, untouched by another", () => {
    const index = [...Array(CANONICAL_INSTANCES).keys()].find((i) => canonicalInstance(i).perturbation === "P2")!;
    const play = () => {
      const env = make("ToolMaze-v0", { taskIndex: index }) as AnyEnv;
      env.reset({ seed: 0 });
      const { task, profile } = env.current();
      const f = profile.faults[0]!;
      const args = Object.fromEntries(
        Object.entries(task.positions[f.position]!.bindings).map(([k, b]) => [
          k,
          b.kind === "literal" ? b.value : ((fieldType(b.type).literals?.[0] ?? fieldType(b.type).gen(1)) as JsonValue),
        ]),
      );
      const call = { type: "tool_call", name: f.members[0]!, arguments: args };
      return [(env.step(call)[0] as ToolObservation).response, (env.step(call)[0] as ToolObservation).response] as JsonObject[];
    };
    const [first, second] = play();
    expect(second).toBe(first);
    const snapshot = JSON.stringify(first);
    (first as Record<string, unknown>).mutated = [1];
    expect(JSON.stringify(play()[0])).toBe(snapshot);
  });

  it("Φ equals the direct computation after every step (clean progress, victims, both, neither)", () => {
    let checked = 0;
    for (const options of [{}, { perturbation: "P1" }, { perturbation: "P4", complexity: "C4" }]) {
      randomPlay(options, 60, (env, info) => {
        const { task, profile } = env.current();
        const log = env.callLog();
        const direct = 0 - minRemainingCalls(task, profile, analyseCalls(task, log).cleanTools, victimsOf(env, log));
        expect(info.phi).toBe(direct);
        checked++;
      });
    }
    // Plan executors make clean progress on most steps (random play rarely does), and meet the faults.
    for (const mode of ["oracle", "happy", "careful"] as const) {
      const env = make("ToolMaze-v0") as AnyEnv;
      for (let seed = 0; seed < 40; seed++) {
        const policy = new PlanExecutor(mode);
        let [obs, info] = env.reset({ seed });
        policy.reset(obs as ToolObservation, info);
        for (let i = 0; i < 30; i++) {
          const [o, , term, trunc, inf] = env.step(policy.act(obs as ToolObservation, info));
          obs = o;
          info = inf;
          const { task, profile } = env.current();
          const log = env.callLog();
          expect(inf.phi).toBe(0 - minRemainingCalls(task, profile, analyseCalls(task, log).cleanTools, victimsOf(env, log)));
          checked++;
          if (term || trunc) break;
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it("the final metrics equal scoring the call log from scratch", () => {
    let episodes = 0;
    randomPlay({}, 150, (env, info, ended) => {
      if (!ended) return;
      const { task, profile } = env.current();
      const reason = info.terminationReason as string;
      const termination =
        reason === "max_steps"
          ? "truncated"
          : reason === "aborted" || (reason === "success" && (info.events as { type: string }[]).some((e) => e.type === "aborted"))
            ? "abort"
            : "answer";
      const fresh = scoreEpisode({ task, profile, calls: env.callLog(), termination });
      const metrics = info.metrics as JsonObject;
      expect(metrics.success).toBe(fresh.success);
      expect(metrics.rc).toBe(fresh.rc);
      expect(metrics.strategies).toBe(fresh.strategies.join("+"));
      expect({ ...metrics, strategies: fresh.strategies }).toMatchObject(fresh as unknown as JsonObject);
      episodes++;
    });
    expect(episodes).toBe(150);
  });

  it("an instance's frozen tool lists share one engine index; each episode's visible set is its own", () => {
    const env = make("ToolMaze-v0", {}) as AnyEnv;
    const episodeOf = () => (env as unknown as { episode: ToolEpisode<unknown> }).episode;
    env.reset({ seed: 3 });
    const a = episodeOf();
    env.reset({ seed: 3 });
    const b = episodeOf();
    expect(b.tools).toBe(a.tools);
    expect(Object.isFrozen(b.data.visible)).toBe(false);
    expect(b.data.visible).not.toBe(a.data.visible);
    expect(b.data.visible).toEqual(a.data.visible);
    // A frozen list with a name the index lacks is still refused (the check is skipped only for a list seen valid).
    const tools = Object.freeze([...a.tools.values()]);
    const visible = Object.freeze([...a.data.visible]);
    const config = { tools, world: {}, rng: new Rng(1) };
    new ToolEpisode({ ...config, visible });
    new ToolEpisode({ ...config, visible });
    expect(() => new ToolEpisode({ ...config, visible: Object.freeze([...visible, "no_such_tool"]) })).toThrow(/no_such_tool/);
  });

  it("per-task facts equal their direct formulas", () => {
    for (const task of canonicalTasks().filter((_, i) => i % 9 === 0)) {
      const sols = slotSolutions(task);
      for (const slotInfo of task.slots) {
        const slotSols = sols[slotInfo.slot]!;
        for (const victim of new Set(slotSols.flat())) {
          const withVictim = new Set(slotSols.filter((p) => p.includes(victim)).flat());
          const direct = new Set(
            slotSols
              .filter((p) => !p.includes(victim))
              .flat()
              .filter((t) => !withVictim.has(t)),
          );
          expect(alternativeTools(task, slotInfo.slot, victim)).toEqual(direct);
          expect(alternativeTools(task, slotInfo.slot, victim)).toBe(alternativeTools(task, slotInfo.slot, victim));
        }
      }
      for (const p of task.positions) {
        expect(downstreamTools(task, p.index)).toEqual(
          new Set([...downstreamPositions(task, p.index)].flatMap((q) => task.positions[q]!.members)),
        );
      }
    }
  });

  it("response hashes equal hashing the joined text", () => {
    const rng = new Rng("hash");
    const numbers = [0, -0, 1, 9, 10, 999999999, 1000000000, 4294967295, 4294967296, -5, 2.5, NaN, Infinity];
    for (let i = 0; i < 300; i++) numbers.push(rng.int(2 ** 31) * 2 + rng.int(2), rng.int(1000));
    for (const h of numbers)
      for (const part of ["temperature_c", "", "pnr", 0, 7, 12345, -1, 0.5]) expect(sub(h, part)).toBe(fnv1a(`${h}:${part}`));
  });
});
