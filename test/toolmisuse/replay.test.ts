import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { make, stableStringify } from "../../src/index.js";
import type { Action } from "../../src/engine/actions.js";
import type { ToolEnv } from "../../src/engine/toolEnv.js";
import { parseTaskRecord } from "../../envs/toolmisuse/dataset.js";
import { CoreUniform } from "../../envs/toolmisuse/faults.js";
import { PyMersenne } from "../../envs/toolmisuse/pyrandom.js";
import { ToolMisuseEpisode } from "../../envs/toolmisuse/world/episode.js";
import type { OfficialAction } from "../../envs/toolmisuse/world/types.js";

// Probabilistic triggers and message picks are where a snapshot that forgot a stream would diverge.
const REC = {
  task_id: "test_public_prob_00001",
  split: "test_public",
  difficulty: "hard",
  domain: "crud",
  instruction: "Close account a1 with reason r.",
  toolset_id: "crud_v1",
  initial_state: { accounts: { a1: { id: "a1", status: "active" }, a2: { id: "a2", status: "active" } } },
  success_criteria: [{ op: "equals", path: "accounts.a1.status", value: "closed" }],
  budget: { max_steps: 30, max_tool_calls: 30, max_retries: 30, timeout_ms: 1000 },
  fault_plan: [
    { fault_type: "timeout", trigger: { prob: 0.5 }, payload: {} },
    {
      fault_type: "adversarial_error",
      trigger: { prob: { p: 0.7, seed: 99 } },
      payload: { code: "weird", messages: ["m0", "m1", "m2", "m3"] },
    },
  ],
  seed: 4242,
};

const calls: OfficialAction[] = [
  { tool_name: "get_account", args: { id: "a2" } },
  { tool_name: "get_account", args: { id: "nope" } },
  { tool_name: "update_account", args: { id: "a2", patch: { tier: "gold" } } },
  { tool_name: "close_account", args: { id: "a1", reason: "r" } },
];

describe("ToolMisuseBench snapshots", () => {
  for (const [name, factory] of [
    ["core", (s: number) => new CoreUniform(`f/${s}`)],
    ["python", (s: number) => new PyMersenne(s)],
  ] as const) {
    it(`episode snapshot/restore continues the exact fault draws (${name} streams)`, () => {
      const task = parseTaskRecord(REC);
      const a = new ToolMisuseEpisode(task, "fixed", factory);
      for (let i = 0; i < 5; i++) a.step(calls[i % calls.length]!);
      const snap = JSON.parse(JSON.stringify(a.snapshot()));
      const b = new ToolMisuseEpisode(task, "fixed", factory);
      b.restore(snap);
      const runA = Array.from({ length: 20 }, (_, i) => a.step(calls[(i * 3) % calls.length]!));
      const runB = Array.from({ length: 20 }, (_, i) => b.step(calls[(i * 3) % calls.length]!));
      expect(JSON.stringify(runB)).toBe(JSON.stringify(runA));
      expect(runA.some((o) => o.firedPlanIndices.length > 0) && runA.some((o) => o.error === null)).toBe(true);
      expect(b.observation(true)).toEqual(a.observation(true));
    });
  }

  for (const compat of ["fixed", "official"] as const) {
    it(`env fork at a fault continues exactly, and the branches are independent (compat ${compat})`, () => {
      const dir = mkdtempSync(path.join(tmpdir(), "tmb-replay-"));
      writeFileSync(path.join(dir, "test_public.jsonl"), `${JSON.stringify(REC)}\n`);
      const env = make("ToolMisuseBench-v0", { dataset: dir, compat }) as unknown as ToolEnv<unknown>;
      env.reset({ seed: 3 });
      let t = 0;
      // Step until a fault fires, then branch there (what a trainer collecting pairs does).
      for (; t < 10; t++) {
        const info = env.step({
          tool_name: calls[t % calls.length]!.tool_name,
          args: calls[t % calls.length]!.args,
        } as unknown as Action)[4];
        if ((info.events as { type: string }[]).some((e) => e.type === "fault_injected")) break;
      }
      expect(t).toBeLessThan(10);
      const fork = env.fork();
      const restored = make("ToolMisuseBench-v0", { dataset: dir, compat }) as unknown as ToolEnv<unknown>;
      restored.setState(JSON.parse(JSON.stringify(env.getState())));
      const cont = (e: ToolEnv<unknown>) => {
        const out: unknown[] = [];
        for (let i = 0; i < 8 && !e.isDone(); i++)
          out.push(
            e.step({ type: "tool_call", name: calls[(i + 1) % calls.length]!.tool_name, arguments: calls[(i + 1) % calls.length]!.args }),
          );
        if (!e.isDone()) out.push(e.step({ type: "answer", content: "done" }));
        return stableStringify(out as never);
      };
      const branch = make("ToolMisuseBench-v0", { dataset: dir, compat }) as unknown as ToolEnv<unknown>;
      branch.setState(env.getState());
      branch.step({ type: "abort" }); // a different branch must not disturb the others
      const original = cont(env);
      expect(cont(fork)).toBe(original);
      expect(cont(restored)).toBe(original);
      expect(restored.render()).toBe(env.render());
    });
  }
});
