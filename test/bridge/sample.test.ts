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
    cleanup.push(async () => { await client.close(); await server.stop(); });
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
    expect((await client.call("sample", { session: a, index: 3 })).error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "index" } });
  });
});
