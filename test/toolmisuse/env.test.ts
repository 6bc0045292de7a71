import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { make } from "../../src/index.js";
import { checkEnv } from "../../src/checker.js";
import { OptionsError, ActionError } from "../../src/core/errors.js";
import { registryEntry } from "../../src/core/registry.js";
import { rollout } from "../../src/rollout.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import type { ToolMisuseEnv } from "../../envs/toolmisuse/env.js";
import { generateTask } from "../../envs/toolmisuse/tasks.js";

const ID = "ToolMisuseBench-v0";

describe("ToolMisuseBench-v0 env", () => {
  it("passes checkEnv in both compat modes", () => {
    checkEnv(make(ID, {}) as never);
    checkEnv(make(ID, { compat: "official", split: "dev" }) as never);
  });

  it("the reset seed picks task seed mod N; taskIndex pins it; same seed ⇒ same episode", () => {
    const env = make(ID, { split: "dev" });
    const [, info] = env.reset({ seed: 805 });
    expect(info.taskId).toBe(generateTask("dev", 5).record.task_id);
    const pinned = make(ID, { split: "dev", taskIndex: 17 });
    expect(pinned.reset({ seed: 1 })[1].taskId).toBe(pinned.reset({ seed: 2 })[1].taskId);
    const play = () => {
      const e = make(ID, {});
      const out: unknown[] = [e.reset({ seed: 42 })];
      for (let i = 0; i < 4; i++) {
        const r = e.step({ type: "tool_call", name: "search_docs", arguments: { query: "ledger", top_k: 2 } });
        out.push(r);
        if (r[2] || r[3]) break;
      }
      return JSON.stringify(out);
    };
    expect(play()).toBe(play());
  });

  it("maps the official {tool_name, args} action and rejects malformed ones with a typed error", () => {
    const env = make(ID, { split: "test_public", taskIndex: 0 }) as unknown as ToolMisuseEnv;
    env.reset({ seed: 0 });
    const t = env.currentTask()!;
    const tool = String(t.tool_schemas[0]!.name);
    const [obs] = env.step({ tool_name: tool, args: {} } as never);
    expect((obs.response as { tool_name: string }).tool_name).toBe(tool);
    expect(env.officialObservation().transcript.length).toBe(1);
    expect(() => env.step({ tool_name: tool, args: {}, extra: 1 } as never)).toThrow(ActionError);
    // The action space itself knows the official shape (samplers and validators see one contract).
    expect(env.actionSpace.contains({ tool_name: tool, args: { id: "x" } })).toBe(true);
    expect(env.actionSpace.contains({ tool_name: tool })).toBe(true);
    expect(env.actionSpace.parse({ tool_name: tool, args: { id: "x" } })).toEqual({
      type: "tool_call",
      name: tool,
      arguments: { id: "x" },
    });
    expect(env.actionSpace.contains({ tool_name: tool, args: {}, extra: 1 })).toBe(false);
    expect(env.actionSpace.contains({ tool_name: 3, args: {} })).toBe(false);
    expect(env.actionSpace.contains({ tool_name: tool, args: [] })).toBe(false);
    expect(env.actionSpace.contains({ type: "answer", content: "ok" })).toBe(true);
  });

  it("bad options are typed errors naming the field", () => {
    expect(() => make(ID, { split: "nope" })).toThrow(OptionsError);
    expect(() => make(ID, { taskIndex: 5000 })).toThrow(/taskIndex/);
    expect(() => make(ID, { dataset: "/definitely/not/here" })).toThrow(/dataset/);
    expect(() => make(ID, { bogus: 1 })).toThrow(OptionsError);
  });

  it("never leaks fault metadata in observations by default; info.hidden carries it", () => {
    const idx = Array.from({ length: 200 }, (_, i) => i).find((i) => {
      const g = generateTask("test_public", i);
      return g.faultClass === "authz" && g.record.difficulty === "easy";
    })!;
    const g = generateTask("test_public", idx);
    const env = make(ID, { taskIndex: idx });
    env.reset({ seed: 0 });
    const [obs, , , , info] = env.step({ tool_name: g.gold[0]!.tool_name, args: g.gold[0]!.args } as never);
    const text = JSON.stringify(obs);
    expect(text).toContain("authz_denied");
    expect(text).not.toContain("recoverability");
    expect(text).not.toContain("faults");
    expect(JSON.stringify(info.hidden)).toContain("transient_denial");
    const leaky = make(ID, { taskIndex: idx, exposeFaultMetadata: true });
    leaky.reset({ seed: 0 });
    expect(JSON.stringify(leaky.step({ tool_name: g.gold[0]!.tool_name, args: g.gold[0]!.args } as never)[0])).toContain(
      "transient_denial",
    );
  });

  it("success is judged at the end; truncation after the task's max_steps; events and reward terms", () => {
    const g = generateTask("test_public", 3);
    const env = make(ID, { taskIndex: 3 });
    env.reset({ seed: 0 });
    let last: unknown[] = [];
    for (const a of g.gold) {
      last = env.step({ type: "tool_call", name: a.tool_name, arguments: a.args });
      expect(last[2]).toBe(false);
    }
    const [, reward, term, trunc, info] = env.step({ type: "answer", content: "done" });
    expect(term).toBe(true);
    expect(trunc).toBe(false);
    expect(info.success).toBe(true);
    expect(info.terminationReason).toBe("success");
    expect(reward).toBeGreaterThan(0.9);
    expect((info.metrics as { success: number }).success).toBe(1);
    // An agent that never stops is truncated at the task's own step budget.
    const e2 = make(ID, { taskIndex: 3 });
    e2.reset({ seed: 0 });
    let steps = 0;
    let done = false;
    let r: unknown[] = [];
    while (!done) {
      r = e2.step({ type: "tool_call", name: "list_jobs", arguments: {} });
      steps += 1;
      done = Boolean(r[2] || r[3]);
    }
    expect(steps).toBeLessThanOrEqual(g.record.budget.max_steps);
    expect((r[4] as { terminationReason: string }).terminationReason).toMatch(/retry_exceeded|max_steps/);
  });

  it("rollout: oracle 100% on test_public through the env; aggregate gives Table I/II", () => {
    const res = rollout({ envId: ID, options: {}, policy: "oracle", episodes: 1000, seed: 0 });
    expect(new Set(res.map((r) => r.taskId)).size).toBe(1000);
    const agg = registryEntry(ID).aggregate!(res);
    expect(agg.metrics.success).toBe(1);
    expect(agg.breakdown[0]!.rows.length).toBe(6);
  });

  it("loads an official-format dataset via the dataset option", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tmb-env-"));
    const rec = {
      task_id: "test_public_v2_crud_clean_easy_relaxed_00650",
      split: "test_public",
      difficulty: "easy",
      domain: "crud",
      instruction: "Archive account at31341 by closing it with reason risk_review.",
      toolset_id: "crud_v1",
      initial_state: { accounts: { at31341: { id: "at31341", status: "active", tier: "basic" } } },
      success_criteria: [
        { op: "equals", path: "accounts.at31341.status", value: "closed" },
        { op: "equals", path: "accounts.at31341.closed_reason", value: "risk_review" },
      ],
      budget: { max_steps: 10, max_tool_calls: 10, max_retries: 3, timeout_ms: 1000 },
      fault_plan: [],
      gold_summary: "close_account(id=at31341, reason=risk_review)",
      seed: 62650,
    };
    writeFileSync(
      path.join(dir, "test_public.jsonl"),
      `${JSON.stringify(rec)}\n${JSON.stringify({ ...rec, task_id: "d1", split: "dev" })}\n`,
    );
    const res = rollout({
      envId: ID,
      options: { dataset: dir, split: "test_public", compat: "official" },
      policy: "oracle",
      episodes: 2,
      seed: 0,
    });
    expect(res.map((r) => r.success)).toEqual([true, true]);
    const env = make(ID, { dataset: dir, split: "test_public" });
    const [obs] = env.reset({ seed: 0 }) as [ToolObservation, unknown];
    expect(obs.task).toBe(rec.instruction);
    expect(obs.budget).toEqual({ steps: 10, toolCalls: 10, retries: 3 });
  });
});
