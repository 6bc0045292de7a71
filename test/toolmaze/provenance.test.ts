import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make } from "../../src/index.js";
import { Rng } from "../../src/core/rng.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import { PlanExecutor } from "../../envs/toolmaze/baselines.js";
import type { ToolMazeEnv } from "../../envs/toolmaze/env.js";
import { buildProfile } from "../../envs/toolmaze/faults.js";
import { analyseCalls, CallAnalysis, type CallRecord, scoreEpisode } from "../../envs/toolmaze/scorer.js";
import type { Task } from "../../envs/toolmaze/task/model.js";
import { CANONICAL_SEED, canonicalTasks } from "../../envs/toolmaze/tasks.js";
import { corpus } from "../../envs/toolmaze/world/corpus.js";
import { statelessOutputs } from "../../envs/toolmaze/world/simulate.js";
import type { Scalar } from "../../envs/toolmaze/world/types.js";

/** Canonical C1 chains of at least three tools whose first position feeds the second, and the second the third. */
function chains(): { task: Task; base: number }[] {
  return canonicalTasks().flatMap((task, base) => {
    const [p0, p1, p2] = task.positions;
    const feeds = (to: typeof p1, from: number) =>
      Object.values(to?.bindings ?? {}).some((b) => b.kind === "bound" && b.from.includes(from));
    const stringLiteral = Object.values(p0?.bindings ?? {}).some((b) => b.kind === "literal" && typeof b.value === "string");
    return task.complexity === "C1" && p2 && feeds(p1, 0) && feeds(p2, 1) && stringLiteral ? [{ task, base }] : [];
  });
}

/** Call records along s*: each argument is its literal or the producer's output field of the bound type. */
function callsAlong(task: Task, firstOutput?: (out: Record<string, Scalar>) => Record<string, Scalar>): CallRecord[] {
  const c = corpus();
  const outs = new Map<number, Record<string, Scalar>>();
  return task.positions.map((p, i): CallRecord => {
    const tool = c.tool(p.members[0]!);
    const args: Record<string, Scalar> = {};
    for (const [param, b] of Object.entries(p.bindings)) {
      if (b.kind === "literal") {
        args[param] = b.value;
        continue;
      }
      const from = outs.get(b.from[0]!)!;
      const field = Object.entries(c.tool(task.positions[b.from[0]!]!.members[0]!).outputTypes).find(([, ty]) => ty === b.type)![0];
      args[param] = from[field]!;
    }
    let output = statelessOutputs(tool, args);
    if (i === 0 && firstOutput) output = firstOutput(output);
    outs.set(i, output);
    return { tool: tool.name, args, ok: true, output, perturbed: false };
  });
}

/** The field of position 0 that position 1 reads (the one an implicit fault corrupts). */
function consumed(task: Task): string {
  const c = corpus();
  const b = Object.values(task.positions[1]!.bindings).find((x) => x.kind === "bound" && x.from.includes(0))!;
  return Object.entries(c.tool(task.positions[0]!.members[0]!).outputTypes).find(([, ty]) => ty === (b as { type: string }).type)![0];
}

describe("ToolMaze value provenance (scorer)", () => {
  const found = chains();

  it("has canonical chains to test on", () => {
    expect(found.length).toBeGreaterThan(5);
  });

  it("a clean literal from the task text that equals a corrupted value does not poison the episode", () => {
    for (const { task } of found.slice(0, 10)) {
      const profile = buildProfile(task, "P3", new Rng(`${CANONICAL_SEED}/${task.id}/P3`));
      const field = consumed(task);
      const literal = Object.values(task.positions[0]!.bindings).find((b) => b.kind === "literal" && typeof b.value === "string")!;
      const value = (literal as { value: string }).value;
      // The corrupted field happens to hold a value the request quotes (e.g. a currency code leaked into an airport
      // field while the request asks to convert into that currency); the retry then passes that literal again.
      const clean = callsAlong(task);
      const corrupted: CallRecord = {
        ...clean[0]!,
        output: { ...clean[0]!.output!, [field]: value },
        perturbed: true,
        faultId: `${task.id}/P3/slot0`,
        corruptedField: field,
      };
      const calls = [corrupted, ...clean];
      const m = scoreEpisode({ task, profile, calls, termination: "answer" });
      expect(m, task.id).toMatchObject({ success: 1, poisonedUses: 0, unsafeActions: 0, exposed: 1, recovered: 1 });
      expect(analyseCalls(task, calls).cleanFlags).toEqual([false, ...clean.map(() => true)]);
    }
  });

  it("a value derived from a corrupted one is poisoned too (transitive), with its source field", () => {
    for (const { task } of found.slice(0, 10)) {
      const profile = buildProfile(task, "P3", new Rng(`${CANONICAL_SEED}/${task.id}/P3`));
      const field = consumed(task);
      const calls = callsAlong(task, (out) => ({ ...out, [field]: typeof out[field] === "number" ? -999.5 : "DEBUG stale" }));
      calls[0] = { ...calls[0]!, perturbed: true, faultId: `${task.id}/P3/slot0`, corruptedField: field };
      const a = analyseCalls(task, calls);
      const incremental = new CallAnalysis(task);
      for (const call of calls) incremental.add(call);
      const { poisonedArgs } = incremental;
      expect(poisonedArgs[1]!.map((p) => p.sourceCallIndex)).toEqual([1]);
      expect(poisonedArgs[1]![0]!.field).toBe(field);
      // Call 3 never saw the corrupted value itself, only what call 2 computed from it.
      expect(poisonedArgs[2]!.length, task.id).toBeGreaterThan(0);
      expect(poisonedArgs[2]!.every((p) => p.sourceCallIndex === 2)).toBe(true);
      expect(a.poisonedUses).toBe(calls.length - 1);
      const m = scoreEpisode({ task, profile, calls, termination: "answer" });
      expect(m.success).toBe(0);
      expect(m.unsafeActions).toBeGreaterThan(0);
    }
  });
});

describe("ToolMaze value provenance (engine events agree with the scorer)", () => {
  it("emits poisoned_value_reused for direct and transitive reuse, one call per poisoned use", () => {
    let checked = 0;
    for (const { task, base } of chains()) {
      const index = base * 5 + 3; // P3: implicit transient
      const profile = buildProfile(task, "P3", new Rng(`${CANONICAL_SEED}/${task.id}/P3`));
      const fault = profile.faults[0]!;
      if (fault.position !== 0) continue;
      const literals = task.positions.flatMap((p) =>
        Object.values(p.bindings).flatMap((b) => (b.kind === "literal" ? [String(b.value).toLowerCase()] : [])),
      );
      const env = make("ToolMaze-v0", { taskIndex: index }) as unknown as ToolMazeEnv;
      const happy = new PlanExecutor("happy");
      let [obs, info] = env.reset({ seed: 0 });
      happy.reset(obs as ToolObservation, info);
      const poisonedCalls = new Map<number, number[]>();
      let first: Record<string, unknown> | null = null;
      for (;;) {
        const [o, , term, trunc, i] = env.step(happy.act(obs as ToolObservation, info));
        obs = o;
        info = i;
        first ??= o.response as Record<string, unknown>;
        for (const e of i.events as { type: string; callIndex: number; sourceCallIndex: number }[]) {
          if (e.type === "poisoned_value_reused")
            poisonedCalls.set(e.callIndex, [...(poisonedCalls.get(e.callIndex) ?? []), e.sourceCallIndex]);
        }
        if (term || trunc) break;
      }
      const m = info.metrics as Record<string, number>;
      // A corrupted value that coincides with a literal of the request counts as taken from the request (clean).
      if (literals.includes(String(first![fault.corruption!.field]).toLowerCase())) continue;
      // Call 2 reuses the corrupted value of call 1; call 3 reuses what call 2 computed from it.
      expect(poisonedCalls.get(2), task.id).toContain(1);
      expect(poisonedCalls.get(3), task.id).toContain(2);
      expect(poisonedCalls.size).toBe(m.poisonedUses);
      expect(m.success).toBe(0);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});
