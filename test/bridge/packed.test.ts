/**
 * Packed observations (`obs_encoding: "packed"`): one little-endian typed array per observation key per batch.
 * Over the bridge the unpacked batch equals the in-process one bit for bit (float32 features, -0 included), the
 * per-env scalars travel columnar, and a space that cannot be packed is refused with the field named.
 */
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../bridge/client.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { envActionSpace } from "../../bridge/backend.js";
import { type PackedField, packBatch, packedLayout, unpackBatch } from "../../bridge/packed.js";
import { BridgeError } from "../../bridge/protocol.js";
import { makeVec } from "../../src/index.js";
import { ACTIONS, FEATURES, PACKED_ENV_ID } from "../helpers/packedEnv.js";
import { startServer } from "./helpers.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function connect(): Promise<BridgeClient> {
  const server = await startServer(createCoreBackend());
  const client = new BridgeClient(server.endpoint);
  cleanup.push(async () => {
    await client.close();
    await server.stop();
  });
  return client;
}

const bytes = (x: ArrayBufferView): number[] => Array.from(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
const column = (buf: Uint8Array, Ctor: typeof Float64Array | typeof Uint8Array): number[] =>
  Array.from(new Ctor(new Uint8Array(buf).buffer));
const box = (shape: number[]) => ({ type: "box", shape, dtype: "float32" });

type StepReply = {
  observations: Record<string, Uint8Array>; rewards: Uint8Array; terminated: Uint8Array; truncated: Uint8Array; actions: unknown[];
};

describe("packed observations", () => {
  it("derives the layout from the space: Box, MultiBinary and Discrete keys; anything else is refused with the reason", () => {
    const mb = { type: "multi_binary", n: 4 };
    const layout = packedLayout({ type: "dict", spaces: { f: box([2, 3]), m: mb, d: { type: "discrete", n: 3 } } });
    expect(layout).toEqual([
      { key: "f", space: "box", dtype: "float32", shape: [2, 3], size: 6 },
      { key: "m", space: "multi_binary", dtype: "uint8", shape: [4], size: 4 },
      { key: "d", space: "discrete", dtype: "int32", shape: [], size: 1 },
    ]);
    expect(packedLayout({ type: "json" })).toMatch(/json space, not a Dict/);
    expect(packedLayout({ type: "dict", spaces: { t: { type: "text" } } })).toMatch(/key 't' is a text space/);
  });

  it("packs values bit for bit and names the env and key of a value that breaks the space", () => {
    const layout = packedLayout({ type: "dict", spaces: { f: box([2]), d: { type: "discrete", n: 3 } } }) as PackedField[];
    const obs = [{ f: Float32Array.of(-0, 1 / 3), d: 2 }, { f: Float32Array.of(Number.NaN, -1e30), d: 0 }];
    const packed = packBatch(layout, obs);
    expect(packed.f.length).toBe(16);
    expect(bytes(packed.f)).toEqual([...bytes(obs[0].f), ...bytes(obs[1].f)]);
    const back = unpackBatch(layout, packed, 2);
    expect(bytes(back[1].f as Float32Array)).toEqual(bytes(obs[1].f));
    expect(back.map((o) => o.d)).toEqual([2, 0]);
    const bad = [obs[0], { f: Float32Array.of(1), d: 0 }];
    expect(() => packBatch(layout, bad)).toThrow(BridgeError);
    expect(() => packBatch(layout, bad)).toThrow(/env 1: key 'f' should hold 2 values, got 1/);
  });

  it("the same seeds give the same trajectory packed over the bridge as in-process, bit for bit", async () => {
    const n = 7;
    const steps = 25;
    const backend = createCoreBackend();
    const env = makeVec(PACKED_ENV_ID, n, {});
    const samplers = backend.createSamplers(3, 0, n);
    const [obs0] = env.reset({ seed: 3 });
    const local: unknown[] = [];
    for (let t = 0; t < steps; t++) {
      const actions = samplers.map((rng, i) => backend.sampleAction(envActionSpace(env, i), rng));
      const [obs, rewards, terminated, truncated] = env.step(actions);
      const flags = { terminated: Array.from(terminated, Number), truncated: Array.from(truncated, Number) };
      local.push({ actions, obs, rewards: Array.from(rewards), ...flags });
    }
    env.close();

    const client = await connect();
    const made = await client.request<{ session: string; obs_encoding: string; obs_layout: PackedField[] }>("make", {
      env_id: PACKED_ENV_ID, num_envs: n, seed: 3, obs_encoding: "packed",
    });
    expect(made.obs_encoding).toBe("packed");
    expect(made.obs_layout).toEqual([
      { key: "observation", space: "box", dtype: "float32", shape: [FEATURES] },
      { key: "action_mask", space: "multi_binary", dtype: "uint8", shape: [ACTIONS] },
      { key: "phase", space: "discrete", dtype: "int32", shape: [] },
    ]);
    const layout = packedLayout({
      type: "dict",
      spaces: { observation: box([FEATURES]), action_mask: { type: "multi_binary", n: ACTIONS }, phase: { type: "discrete", n: 4 } },
    }) as PackedField[];
    const r = await client.request<{ observations: Record<string, Uint8Array> }>("reset", { session: made.session });
    const norm = (o: unknown) =>
      Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, ArrayBuffer.isView(v) ? bytes(v) : v]));
    expect(unpackBatch(layout, r.observations, n).map(norm)).toEqual(obs0.map(norm));
    const remote: unknown[] = [];
    for (let t = 0; t < steps; t++) {
      const s = await client.request<StepReply>("step", { session: made.session, sample: true });
      expect(s.rewards).toBeInstanceOf(Uint8Array);
      remote.push({
        actions: s.actions,
        obs: unpackBatch(layout, s.observations, n),
        rewards: column(s.rewards, Float64Array),
        terminated: column(s.terminated, Uint8Array),
        truncated: column(s.truncated, Uint8Array),
      });
    }
    const normStep = (x: unknown) => ({ ...(x as Record<string, unknown>), obs: ((x as { obs: unknown[] }).obs).map(norm) });
    expect(remote.map(normStep)).toEqual(local.map(normStep));
    expect(local.some((x) => (x as { terminated: number[] }).terminated.includes(1))).toBe(true);
  });

  it("refuses 'packed' for a space that cannot be packed, naming obs_encoding; 'auto' falls back to delta", async () => {
    const client = await connect();
    const refused = client.request("make", { env_id: "Demo-v0", num_envs: 2, obs_encoding: "packed" });
    const err = await refused.then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "obs_encoding" } });
    expect(String((err as Error).message)).toMatch(/obs_encoding: "packed" needs a Dict/);
    type Made = { obs_encoding: string; obs_layout?: unknown };
    const auto = await client.request<Made>("make", { env_id: "Demo-v0", num_envs: 2, obs_encoding: "auto" });
    expect(auto.obs_encoding).toBe("delta");
    expect(auto.obs_layout).toBeUndefined();
    const packed = await client.request<{ obs_encoding: string }>("make", { env_id: PACKED_ENV_ID, num_envs: 2, obs_encoding: "auto" });
    expect(packed.obs_encoding).toBe("packed");
  });
});
