/**
 * Tool references (`make.tool_refs`): each schema crosses the wire once per session, later announcements travel
 * as names, and a client that expands them rebuilds exactly the in-process observations.
 */
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../bridge/client.js";
import { encode } from "../../bridge/codec.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { applyDelta, type WireObs } from "../../bridge/delta.js";
import { ToolRefDecoder, ToolRefEncoder } from "../../bridge/toolRefs.js";
import { makeVec } from "../../src/index.js";
import { startServer } from "./helpers.js";
import { envActionSpace } from "../../bridge/backend.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type StepResult = { observations: unknown[]; actions: unknown[] };

/** Steps a session with sampled actions; returns the rebuilt observations per step and the response bytes. */
async function rollout(client: BridgeClient, envId: string, toolRefs: boolean, encoding: "delta" | "full", steps: number) {
  const made = await client.request<{ session: string; tool_refs: boolean }>("make", {
    env_id: envId,
    num_envs: 4,
    seed: 7,
    obs_encoding: encoding,
    tool_refs: toolRefs,
  });
  expect(made.tool_refs).toBe(toolRefs);
  const decoder = new ToolRefDecoder();
  const r = await client.request<{ observations: unknown[] }>("reset", { session: made.session });
  const sent = { whole: 0, refs: 0, names: new Set<string>() };
  const count = (o: unknown): void => {
    for (const t of (o as { newTools?: unknown[] } | null)?.newTools ?? []) {
      if (typeof t === "string") sent.refs++;
      else {
        sent.whole++;
        sent.names.add((t as { name: string }).name);
      }
    }
  };
  r.observations.forEach(count);
  let obs = r.observations.map((o) => decoder.expand(o));
  const trajectory: unknown[] = [obs];
  let bytes = 0;
  for (let t = 0; t < steps; t++) {
    const s = await client.request<StepResult>("step", { session: made.session, sample: true });
    bytes += encode(s.observations).length;
    for (const w of s.observations)
      count(encoding === "full" ? w : "s" in (w as WireObs) ? (w as { s: unknown }).s : (w as { f: unknown }).f);
    obs = s.observations.map((w, i) => {
      if (encoding === "full") return decoder.expand(w);
      const wire = w as WireObs;
      return applyDelta(
        obs[i],
        "s" in wire ? { ...wire, s: decoder.expand(wire.s) as Record<string, unknown> } : { f: decoder.expand(wire.f) },
      );
    });
    trajectory.push(obs);
  }
  await client.request("close", { session: made.session });
  return { trajectory, bytes, sent };
}

function inProcess(envId: string, steps: number): unknown[] {
  const backend = createCoreBackend();
  const env = makeVec(envId, 4, {});
  const samplers = backend.createSamplers(7, 0, 4);
  const [obs0] = env.reset({ seed: [7, 8, 9, 10] });
  const out: unknown[] = [obs0];
  for (let t = 0; t < steps; t++) out.push(env.step(samplers.map((rng, i) => backend.sampleAction(envActionSpace(env, i), rng)))[0]);
  env.close();
  return JSON.parse(JSON.stringify(out)) as unknown[];
}

describe("tool references", () => {
  it("the encoder sends a schema once, then its name; changed schemas go out whole again", () => {
    const enc = new ToolRefEncoder();
    const dec = new ToolRefDecoder();
    const a = { name: "a", parameters: { type: "object" } };
    const b = { name: "b", parameters: { type: "object" } };
    const first = { task: "t", newTools: [a, b] };
    expect(enc.compact(first)).toBe(first); // nothing known yet: the very same object, nothing copied
    const again = { task: "t", newTools: [{ ...a }, b] };
    const wire = enc.compact(again) as { newTools: unknown[] };
    expect(wire.newTools).toEqual(["a", "b"]);
    expect(again.newTools[0]).toEqual(a); // the env's observation is left alone
    const changed = { name: "a", parameters: { type: "object", required: ["x"] } };
    expect((enc.compact({ newTools: [changed] }) as { newTools: unknown[] }).newTools).toEqual([changed]);
    expect((enc.compact({ newTools: [changed] }) as { newTools: unknown[] }).newTools).toEqual(["a"]);
    dec.expand(first);
    expect(dec.expand(wire)).toEqual({ task: "t", newTools: [a, b] });
    expect(dec.expand({ newTools: [changed] })).toEqual({ newTools: [changed] });
    expect(dec.expand({ newTools: ["a"] })).toEqual({ newTools: [changed] });
    expect(() => new ToolRefDecoder().expand({ newTools: ["nope"] })).toThrow(/tool reference 'nope'/);
  });

  it.each(["ToolMaze-v0", "FailingTools-v0"])("%s: rebuilt observations equal in-process ones, with far fewer bytes", async (envId) => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const steps = 60;
    const want = inProcess(envId, steps);
    const plain = await rollout(client, envId, false, "delta", steps);
    const refs = await rollout(client, envId, true, "delta", steps);
    const full = await rollout(client, envId, true, "full", steps);
    expect(JSON.parse(JSON.stringify(plain.trajectory))).toEqual(want);
    expect(JSON.parse(JSON.stringify(refs.trajectory))).toEqual(want);
    expect(JSON.parse(JSON.stringify(full.trajectory))).toEqual(want);
    // Random play ends episodes every few steps and each new episode re-announces its tools: without refs the
    // same schemas go out again and again; with refs each goes out whole exactly once.
    expect(plain.sent.refs).toBe(0);
    expect(plain.sent.whole).toBeGreaterThan(plain.sent.names.size);
    expect(refs.sent.whole).toBe(refs.sent.names.size);
    expect(refs.sent.whole + refs.sent.refs).toBe(plain.sent.whole);
    expect(refs.bytes).toBeLessThan(plain.bytes);
  });

  it("set_state answers with references too, and the client's cache resolves them", async () => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const made = await client.request<{ session: string }>("make", { env_id: "ToolMaze-v0", num_envs: 1, seed: 3, tool_refs: true });
    const decoder = new ToolRefDecoder();
    const [first] = (await client.request<{ observations: unknown[] }>("reset", { session: made.session })).observations;
    const full = decoder.expand(first) as { newTools: Array<{ name: string }> };
    expect(full.newTools.length).toBeGreaterThan(0);
    const { state } = await client.request<{ state: unknown }>("get_state", { session: made.session, index: 0 });
    const restored = await client.request<{ observation: { newTools: unknown[] } }>("set_state", {
      session: made.session,
      index: 0,
      state,
    });
    expect(restored.observation.newTools.every((t) => typeof t === "string")).toBe(true);
    expect((decoder.expand(restored.observation) as { newTools: unknown[] }).newTools).toEqual(full.newTools);
  });

  it("rejects a non-boolean tool_refs naming the field", async () => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const r = await client.call("make", { env_id: "Demo-v0", tool_refs: "yes" });
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe("VALIDATION_ERROR");
    expect(r.error!.message).toMatch(/tool_refs/);
  });
});
