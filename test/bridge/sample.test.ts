/** The `sample` op: actions from the session's seeded sampler streams, without stepping. */
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../bridge/client.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { startServer } from "./helpers.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe("sample", () => {
  it("draws what step with sample: true would have drawn, from the same streams; typed errors otherwise", async () => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const make = async () => (await client.request<{ session: string }>("make", { env_id: "ToolMaze-v0", num_envs: 3, seed: 5 })).session;
    const a = await make();
    const b = await make();
    expect((await client.call("sample", { session: a })).error).toMatchObject({ code: "ENV_ERROR", details: { field: "reset" } });
    await client.request("reset", { session: a });
    await client.request("reset", { session: b });
    const { actions } = await client.request<{ actions: unknown[] }>("sample", { session: a });
    const stepped = await client.request<{ actions: unknown[] }>("step", { session: b, sample: true });
    expect(actions).toHaveLength(3);
    expect(actions).toEqual(stepped.actions);
    // Stepping `a` with the sampled actions leaves it exactly where `b` is; the next draws agree again.
    await client.request("step", { session: a, actions });
    const next = await client.request<{ action: unknown }>("sample", { session: a, index: 2 });
    const nextB = await client.request<{ actions: unknown[] }>("sample", { session: b });
    expect(next.action).toEqual(nextB.actions[2]);
    expect((await client.call("sample", { session: a, index: 3 })).error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { field: "index" },
    });
  });

  it("make describes the session with the env's spec (validated options with defaults)", async () => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const made = await client.request<{ spec: { id: string; entryOptions: Record<string, unknown>; maxEpisodeSteps: number } }>("make", {
      env_id: "ToolMaze-v0",
      num_envs: 2,
      options: { perturbation: "P2" },
    });
    expect(made.spec).toMatchObject({
      id: "ToolMaze-v0",
      maxEpisodeSteps: 25,
      entryOptions: { perturbation: "P2", distractors: 3, reward: "shaped" },
    });
  });

  it("each env's sampled tool calls name tools that env shows (not env 0's)", async () => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const { session } = await client.request<{ session: string }>("make", { env_id: "ToolMaze-v0", num_envs: 6, seed: 8 });
    const { observations } = await client.request<{ observations: Array<{ visibleTools: string[] }> }>("reset", { session });
    expect(new Set(observations.map((o) => o.visibleTools.join())).size).toBeGreaterThan(1); // the envs show different tools
    let calls = 0;
    for (let k = 0; k < 20; k++) {
      const { actions } = await client.request<{ actions: Array<{ type: string; name?: string }> }>("sample", { session });
      actions.forEach((a, i) => {
        if (a.type !== "tool_call") return;
        calls++;
        expect(observations[i].visibleTools).toContain(a.name);
      });
    }
    expect(calls).toBeGreaterThan(20);
  });
});
