/** Counterfactual replay over the bridge: get_state / set_state branch an episode exactly like in-process fork. */
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient, type BridgeRequestError } from "../../bridge/client.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { applyDelta, type WireObs } from "../../bridge/delta.js";
import { type Action, stableStringify } from "../../src/index.js";
import { startServer } from "./helpers.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type StepResult = { observations: WireObs[]; rewards: number[]; terminated: boolean[]; infos: Record<string, unknown[]> };

describe("get_state / set_state over the bridge", () => {
  it("a snapshot restored into another session continues identically", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const opts = { env_id: "Demo-v0", num_envs: 2, options: { fault: "permanent" }, autoreset_mode: "NextStep" };
    const a = (await client.request<{ session: string }>("make", opts)).session;
    const b = (await client.request<{ session: string }>("make", opts)).session;
    const r = await client.request<{ observations: unknown[] }>("reset", { session: a, seed: 7 });
    await client.request("reset", { session: b, seed: 100 });
    const first: Action = { type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } };
    const s1 = await client.request<StepResult>("step", { session: a, actions: [first, first] });
    const aObs1 = applyDelta(r.observations[1], s1.observations[1]);
    const { state } = await client.request<{ state: Record<string, unknown> }>("get_state", { session: a, index: 1 });
    expect(state.kind).toBe("recovery-gym/tool-env-state");
    const restored = await client.request<{ observation: { visibleTools: string[]; newTools: unknown[]; step: number } }>("set_state", {
      session: b,
      index: 0,
      state,
    });
    expect(restored.observation.step).toBe(1);
    expect(restored.observation.newTools).toHaveLength(restored.observation.visibleTools.length);
    const next: Action = { type: "tool_call", name: "yahoo_weather_forecast", arguments: { city: "Oslo" } };
    const sa = await client.request<StepResult>("step", { session: a, actions: [next, next] });
    const sb = await client.request<StepResult>("step", { session: b, actions: [next, { type: "abort" }] });
    expect(sb.rewards[0]).toBe(sa.rewards[1]);
    expect(stableStringify(sb.infos.events[0])).toBe(stableStringify(sa.infos.events[1]));
    // Whole observations after the branch point are identical, reconstructed from each session's own deltas.
    expect(stableStringify(applyDelta(restored.observation, sb.observations[0]))).toBe(
      stableStringify(applyDelta(aObs1, sa.observations[1])),
    );
  });

  it("rejects foreign snapshots and bad indices with typed errors", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const a = (await client.request<{ session: string }>("make", { env_id: "Demo-v0", options: { fault: "none" } })).session;
    const b = (await client.request<{ session: string }>("make", { env_id: "Demo-v0", options: { fault: "permanent" } })).session;
    const before = await client.request("get_state", { session: a }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((before as BridgeRequestError).code).toBe("ENV_ERROR");
    await client.request("reset", { session: a, seed: 1 });
    await client.request("reset", { session: b, seed: 1 });
    const { state } = await client.request<{ state: Record<string, unknown> }>("get_state", { session: a });
    const foreign = (await client.request("set_state", { session: b, state }).then(
      () => null,
      (e: unknown) => e,
    )) as BridgeRequestError;
    expect(foreign.code).toBe("ENV_ERROR");
    expect(foreign.details.libraryCode).toBe("STATE_ERROR");
    const bad = (await client.request("get_state", { session: a, index: 3 }).then(
      () => null,
      (e: unknown) => e,
    )) as BridgeRequestError;
    expect(bad.code).toBe("VALIDATION_ERROR");
    // The server keeps serving after errors.
    expect(await client.request("ping")).toEqual({ pong: true });
  });

  it("malformed snapshots (history 5, data null) are refused naming the field; the session steps on unchanged", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const { session } = await client.request<{ session: string }>("make", { env_id: "Demo-v0", options: { fault: "permanent" } });
    await client.request("reset", { session, seed: 4 });
    const call: Action = { type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } };
    await client.request("step", { session, actions: [call] });
    const { state } = await client.request<{ state: Record<string, unknown> }>("get_state", { session });
    for (const [bad, field] of [
      [{ ...state, history: 5 }, "state.history"],
      [{ ...state, data: null }, "state.data"],
      [{ ...state, version: 2 }, "state.version"],
    ] as const) {
      const e = (await client.request("set_state", { session, state: bad }).then(
        () => null,
        (x: unknown) => x,
      )) as BridgeRequestError;
      expect(e.code).toBe("ENV_ERROR");
      expect(e.details).toMatchObject({ libraryCode: "STATE_ERROR", field });
    }
    const after = await client.request<{ state: Record<string, unknown> }>("get_state", { session });
    expect(stableStringify(after.state)).toBe(stableStringify(state));
    const next = await client.request<StepResult>("step", { session, actions: [call] });
    expect(next.rewards).toHaveLength(1);
  });
});
