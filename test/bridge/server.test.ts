import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient, BridgeRequestError } from "../../bridge/client.js";
import { encode } from "../../bridge/codec.js";
import { applyDelta, type WireObs } from "../../bridge/delta.js";
import { ERROR_CODES, type ErrorCode } from "../../bridge/protocol.js";
import type { BridgeServer } from "../../bridge/server.js";
import { fakeBackend } from "./fakeBackend.js";
import { startServer } from "./helpers.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function setup(
  limits = {},
  extra = {},
): Promise<{ server: BridgeServer; client: BridgeClient; backend: ReturnType<typeof fakeBackend> }> {
  const backend = fakeBackend();
  const server = await startServer(backend, limits, extra);
  cleanup.push(() => server.stop());
  const client = new BridgeClient(server.endpoint);
  cleanup.push(() => client.close());
  return { server, client, backend };
}

async function expectCode(p: Promise<unknown>, code: ErrorCode): Promise<BridgeRequestError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(BridgeRequestError);
  expect((e as BridgeRequestError).code).toBe(code);
  return e as BridgeRequestError;
}

describe("bridge server round trips", () => {
  it("hello negotiates the version and reports limits and env ids", async () => {
    const { client } = await setup();
    const r = await client.request("hello", { versions: [3, 1], client: "test" });
    expect(r.version).toBe(1);
    expect(r.env_ids).toEqual(["Counter-v0", "Throwing-v0", "AsyncCounter-v0", "Circular-v0"]);
    expect((r.limits as { maxSessions: number }).maxSessions).toBe(256);
    expect(await client.request("ping")).toEqual({ pong: true });
  });

  it("make/reset/step with deltas reconstructs the full observations and keeps large ints as ints", async () => {
    const { client, backend } = await setup();
    const made = await client.request("make", { env_id: "Counter-v0", num_envs: 3, options: { limit: 3 } });
    expect(made.num_envs).toBe(3);
    const session = made.session as string;
    expect(session).toMatch(/^s0-[0-9a-f]{32}$/);
    const r = await client.request<{ observations: Record<string, unknown>[]; infos: Record<string, unknown> }>("reset", {
      session,
      seed: 10,
    });
    expect(r.observations.map((o) => o.seed)).toEqual([10, 11, 12]);
    expect(r.observations[0].big).toBe(2 ** 40);
    let obs: unknown[] = r.observations;
    const s = await client.request<{ observations: WireObs[]; rewards: number[]; terminated: boolean[]; infos: Record<string, unknown> }>(
      "step",
      { session, actions: [2, 1, 0] },
    );
    // Tools and task did not change: only `pos` and `big` travel.
    expect(Object.keys((s.observations[0] as { s: object }).s).sort()).toEqual(["big", "pos"]);
    expect(s.observations[2]).toEqual({ s: {} });
    obs = obs.map((o, i) => applyDelta(o, s.observations[i]));
    expect((obs[0] as { pos: number }).pos).toBe(2);
    expect(s.rewards).toEqual([1, 0.5, 0]);
    expect(s.terminated).toEqual([false, false, false]);
    expect(s.infos._done_here).toEqual([true, true, true]);
    expect(backend.made).toHaveLength(1);
    expect(await client.request("close", { session })).toEqual({ closed: true });
    expect(backend.made[0].closed).toBe(true);
  });

  it("answers pipelined requests in order, also across async steps", async () => {
    const { client } = await setup();
    const { session } = await client.request<{ session: string }>("make", { env_id: "AsyncCounter-v0", num_envs: 1, obs_encoding: "full" });
    await client.request("reset", { session, seed: 0 });
    const order: number[] = [];
    const ps = Array.from({ length: 30 }, (_, i) =>
      (i % 3 === 0 ? client.call("ping") : client.call("step", { session, actions: [1] })).then((r) => {
        order.push(r.id as number);
        return r;
      }),
    );
    const rs = await Promise.all(ps);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(rs.every((r) => r.ok)).toBe(true);
  });

  it("sample:true steps with server-sampled actions, deterministically per make seed", async () => {
    const { client } = await setup();
    const run = async () => {
      const { session } = await client.request<{ session: string }>("make", { env_id: "Counter-v0", num_envs: 4, seed: 7 });
      await client.request("reset", { session });
      const acts: unknown[] = [];
      for (let i = 0; i < 5; i++) acts.push((await client.request<{ actions: unknown[] }>("step", { session, sample: true })).actions);
      return acts;
    };
    expect(await run()).toEqual(await run());
  });

  it("info_keys filters infos (mask keys follow their key)", async () => {
    const { client } = await setup();
    const { session } = await client.request<{ session: string }>("make", { env_id: "Counter-v0", num_envs: 2, info_keys: ["seed"] });
    const r = await client.request<{ infos: Record<string, unknown> }>("reset", { session, seed: 1 });
    expect(Object.keys(r.infos).sort()).toEqual(["_seed", "seed"]);
    const s = await client.request<{ infos: Record<string, unknown> }>("step", { session, actions: [0, 0] });
    expect(s.infos).toEqual({});
  });
});

describe("every error code", () => {
  it("INVALID_MESSAGE for garbage, non-maps and multi-frame messages (id null when undecodable)", async () => {
    const { client } = await setup();
    await client.sendRaw(Buffer.from([0xc1]));
    await client.sendRaw(encode([1, 2, 3]));
    await client.sendRaw(encode({ id: 5, op: 7 }));
    await client.sendRaw([Buffer.from("a"), Buffer.from("b")]);
    await new Promise((r) => setTimeout(r, 100));
    const codes = client.orphans.map((o) => o.error?.code);
    expect(codes).toEqual(["INVALID_MESSAGE", "INVALID_MESSAGE", "INVALID_MESSAGE", "INVALID_MESSAGE"]);
    expect(client.orphans.map((o) => o.id)).toEqual([null, null, 5, null]);
  });

  it("UNSUPPORTED_VERSION, UNKNOWN_OP, VALIDATION_ERROR, UNKNOWN_ENV, UNKNOWN_SESSION, ENV_ERROR", async () => {
    const { client } = await setup();
    const v = await expectCode(client.request("hello", { versions: [99] }), "UNSUPPORTED_VERSION");
    expect(v.details.supported).toEqual([1]);
    await expectCode(client.request("fly"), "UNKNOWN_OP");
    const val = await expectCode(client.request("make", { env_id: "Counter-v0", num_envs: 0 }), "VALIDATION_ERROR");
    expect(val.message).toContain("num_envs");
    await expectCode(client.request("make", { env_id: "Counter-v0", typo: 1 }), "VALIDATION_ERROR");
    const opt = await expectCode(client.request("make", { env_id: "Counter-v0", options: { limit: "x" } }), "VALIDATION_ERROR");
    expect(opt.details.field).toBe("limit");
    await expectCode(client.request("make", { env_id: "Nope-v0" }), "UNKNOWN_ENV");
    await expectCode(client.request("step", { session: "s0-deadbeef", actions: [0] }), "UNKNOWN_SESSION");
    const { session } = await client.request<{ session: string }>("make", { env_id: "Counter-v0", num_envs: 2 });
    await expectCode(client.request("step", { session, actions: [0, 0] }), "ENV_ERROR"); // before reset
    await client.request("reset", { session });
    await expectCode(client.request("step", { session, actions: [0] }), "VALIDATION_ERROR");
    await expectCode(client.request("step", { session, actions: [0, 9] }), "VALIDATION_ERROR");
    const t = await client.request<{ session: string }>("make", { env_id: "Throwing-v0" });
    await client.request("reset", { session: t.session });
    const env = await expectCode(client.request("step", { session: t.session, actions: [0] }), "ENV_ERROR");
    expect(env.message).toContain("boom");
    // big ints that do not fit a double are rejected with a field, not mangled
    await expectCode(client.request("reset", { session, seed: 2n ** 60n }), "VALIDATION_ERROR");
    // the server is still fine
    expect(await client.request("ping")).toEqual({ pong: true });
  });

  it("CAPACITY_REACHED for sessions, envs per session and total envs", async () => {
    const { client } = await setup({ maxSessions: 2, maxEnvsPerSession: 8, maxTotalEnvs: 10 });
    const e1 = await expectCode(client.request("make", { env_id: "Counter-v0", num_envs: 9 }), "CAPACITY_REACHED");
    expect(e1.details.limit).toBe("maxEnvsPerSession");
    await client.request("make", { env_id: "Counter-v0", num_envs: 8 });
    const e2 = await expectCode(client.request("make", { env_id: "Counter-v0", num_envs: 3 }), "CAPACITY_REACHED");
    expect(e2.details.limit).toBe("maxTotalEnvs");
    await client.request("make", { env_id: "Counter-v0", num_envs: 2 });
    const e3 = await expectCode(client.request("make", { env_id: "Counter-v0", num_envs: 1 }), "CAPACITY_REACHED");
    expect(e3.details.limit).toBe("maxSessions");
  });

  it("CAPACITY_REACHED for too many unanswered requests from one client, still answered in order", async () => {
    const { client } = await setup({ maxPendingPerClient: 2 });
    // 200 ms per step: all six requests arrive while the first is still running
    const { session } = await client.request<{ session: string }>("make", {
      env_id: "AsyncCounter-v0",
      options: { delay_ms: 200, limit: 100 },
    });
    await client.request("reset", { session });
    const rs = await Promise.all(Array.from({ length: 6 }, () => client.call("step", { session, actions: [1] })));
    expect(rs.map((r) => r.id)).toEqual([...rs.map((r) => r.id)].sort((a, b) => (a as number) - (b as number)));
    expect(rs[0].ok && rs[1].ok).toBe(true);
    expect(rs.slice(2).every((r) => r.error?.code === "CAPACITY_REACHED")).toBe(true);
    expect((await client.call("step", { session, actions: [1] })).ok).toBe(true);
  });

  it("MESSAGE_TOO_LARGE keeps the id when it comes first", async () => {
    const { client } = await setup({ maxMessageBytes: 2048 });
    const e = await expectCode(client.request("make", { env_id: "Counter-v0", options: { pad: "x".repeat(5000) } }), "MESSAGE_TOO_LARGE");
    expect(e.details.max).toBe(2048);
    expect(await client.request("ping")).toEqual({ pong: true });
  });

  it("SHUTTING_DOWN while draining, and in-flight requests are still answered", async () => {
    const backend = fakeBackend();
    const server = await startServer(backend, { drainMs: 300 });
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const { session } = await client.request<{ session: string }>("make", { env_id: "AsyncCounter-v0" });
    await client.request("reset", { session });
    const before = server.stats.requests;
    const inflight = Array.from({ length: 5 }, () => client.call("step", { session, actions: [1] }));
    // wait until the server has received all five (they are still being answered: each async step takes 1 ms+)
    while (server.stats.requests < before + 5) await new Promise((r) => setTimeout(r, 0));
    const stopping = server.stop();
    await new Promise((r) => setTimeout(r, 50));
    await expectCode(client.request("ping"), "SHUTTING_DOWN");
    const rs = await Promise.all(inflight);
    expect(rs.every((r) => r.ok)).toBe(true);
    await stopping;
    expect(backend.made[0].closed).toBe(true);
    expect(server.sessions.size).toBe(0);
  });

  it("INTERNAL_ERROR when a result cannot be encoded, and the server carries on", async () => {
    const { client } = await setup();
    const { session } = await client.request<{ session: string }>("make", { env_id: "Circular-v0" });
    const e = await expectCode(client.request("reset", { session }), "INTERNAL_ERROR");
    expect(e.message).toContain("could not be encoded");
    expect(await client.request("ping")).toEqual({ pong: true });
  });

  it("documents exactly the codes it can produce", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });
});

describe("isolation and reaping", () => {
  it("another client cannot touch a session (UNKNOWN_SESSION), the owner still can", async () => {
    const { server, client } = await setup();
    const other = new BridgeClient(server.endpoint);
    cleanup.push(() => other.close());
    const { session } = await client.request<{ session: string }>("make", { env_id: "Counter-v0" });
    await expectCode(other.request("reset", { session }), "UNKNOWN_SESSION");
    await expectCode(other.request("close", { session }), "UNKNOWN_SESSION");
    await expectCode(other.request("get_spec", { session }), "UNKNOWN_SESSION");
    await client.request("reset", { session, seed: 1 });
    expect((await client.request("get_spec", { session })).env_id).toBe("Counter-v0");
  });

  it("reaps idle sessions after the timeout", async () => {
    let t = 0;
    const { server, client, backend } = await setup({ idleTimeoutMs: 1000, reapIntervalMs: 60_000 }, { now: () => t });
    const a = await client.request<{ session: string }>("make", { env_id: "Counter-v0" });
    t = 600;
    const b = await client.request<{ session: string }>("make", { env_id: "Counter-v0" });
    t = 1200;
    expect(await server.reapNow()).toEqual([a.session]);
    expect(backend.made[0].closed).toBe(true);
    await expectCode(client.request("reset", { session: a.session }), "UNKNOWN_SESSION");
    await client.request("reset", { session: b.session }); // touching it keeps it alive
    t = 2100;
    expect(await server.reapNow()).toEqual([]);
    t = 2300;
    expect(await server.reapNow()).toEqual([b.session]);
  });
});

describe("observation deltas", () => {
  it("round-trip changed, added and removed keys, non-map observations, and a reused object", async () => {
    const { encodeDelta } = await import("../../bridge/delta.js");
    const a = { task: "t", tools: [{ name: "x" }], n: 1, gone: true };
    const b = { task: "t", tools: [{ name: "x" }], n: 2, extra: [1, 2] };
    const d = encodeDelta(a, b);
    expect(d).toEqual({ s: { n: 2, extra: [1, 2] }, d: ["gone"] });
    expect(applyDelta(a, d)).toEqual(b);
    expect(encodeDelta(3, 4)).toEqual({ f: 4 });
    expect(encodeDelta(a, a)).toEqual({ f: a });
    expect(encodeDelta({ v: Number.NaN }, { v: Number.NaN })).toEqual({ s: {} });
  });
});
