/**
 * Payload checks: env options, actions and snapshots must be plain data. Integers beyond ±2^53, binary and
 * extension values and absurd nesting are VALIDATION_ERRORs naming the field, and the server keeps serving.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Packr } from "msgpackr";
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../bridge/client.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { assertPlainPayload, MAX_PAYLOAD_DEPTH } from "../../bridge/payload.js";
import { BridgeServer } from "../../bridge/server.js";
import { setOptionPathPolicy } from "../../src/index.js";
import { startServer, tempIpc } from "./helpers.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

// A sender that uses msgpackr's extension types (the protocol's own codec never does).
const extPackr = new Packr({ useRecords: false, moreTypes: true });

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe("request payloads", () => {
  it("assertPlainPayload accepts plain data and names the path of the first bad value", () => {
    expect(() => assertPlainPayload({ a: [1, "x", null, true, { b: 2.5 }] }, "options")).not.toThrow();
    expect(() => assertPlainPayload({ a: [1, 2n ** 60n] }, "options")).toThrow(/options\.a\.1: integer beyond ±2\^53/);
    expect(() => assertPlainPayload([{ when: new Date(0) }], "actions")).toThrow(/actions\.0\.when: a binary or extension value \(Date\)/);
    expect(() => assertPlainPayload({ s: new Set([1]) }, "state")).toThrow(/state\.s: .*\(Set\)/);
    expect(() => assertPlainPayload(nested(MAX_PAYLOAD_DEPTH - 1), "options")).not.toThrow();
    expect(() => assertPlainPayload(nested(MAX_PAYLOAD_DEPTH + 5), "options")).toThrow(/nested deeper than 64 levels/);
  });

  it("over the wire: big integers, extension values and deep nesting are VALIDATION_ERRORs naming the field", async () => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });

    const bigOption = await client.call("make", { env_id: "ToolMaze-v0", options: { maxSteps: 2n ** 60n } });
    expect(bigOption.error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "options.maxSteps" } });

    const { session } = await client.request<{ session: string }>("make", { env_id: "Demo-v0", num_envs: 2, seed: 1 });
    await client.request("reset", { session });
    const call = { type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } };
    const bigArg = await client.call("step", { session, actions: [call, { ...call, arguments: { city: 2n ** 62n } }] });
    expect(bigArg.error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "actions.1.arguments.city" } });

    // A frame built with msgpackr's extension types: a Date inside an action.
    await client.sendRaw(extPackr.pack({ id: 900, op: "step", session, actions: [call, { ...call, arguments: { city: new Date(0) } }] }));
    const deep = await client.call("reset", { session, options: nested(200) as Record<string, unknown> });
    expect(deep.error).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(deep.error!.message).toMatch(/nested deeper than/);
    // Answers come in request order, so the raw frame's answer arrived before `deep`'s.
    const ext = client.orphans.find((r) => r.id === 900);
    expect(ext?.error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "actions.1.arguments.city" } });

    // Nothing was stepped by the refused requests, and the server serves normally afterwards.
    const ok = await client.request<{ observations: Array<{ s: { step?: number } }> }>("step", { session, actions: [call, call] });
    expect(ok.observations.map((o) => o.s.step)).toEqual([1, 1]);
  });
});

describe("batched steps over the bridge", () => {
  it("one malformed action refuses the whole batch (VALIDATION_ERROR naming actions.i), nothing is stepped", async () => {
    const server = await startServer(createCoreBackend());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const { session } = await client.request<{ session: string }>("make", { env_id: "ToolMaze-v0", num_envs: 3, seed: 2 });
    await client.request("reset", { session });
    const ok = { type: "answer", content: "done" };
    const r = await client.call("step", { session, actions: [ok, { type: "tool_call" }, ok] });
    expect(r.error).toMatchObject({ code: "VALIDATION_ERROR", details: { libraryCode: "ACTION_ERROR", env: 1 } });
    expect(String(r.error!.details.field)).toMatch(/^actions\.1\.name/);
    const after = await client.request<{ observations: Array<{ s: { step?: number } }> }>("step", { session, actions: [ok, ok, ok] });
    expect(after.observations.map((o) => o.s.step)).toEqual([1, 1, 1]);
  });
});

describe("bad data named by options", () => {
  it("a broken PlanBench-XL release is a VALIDATION_ERROR naming the file and field, not an ENV_ERROR", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-badrel-"));
    writeFileSync(path.join(dir, "tasks.json"), '[{"task_id": 5}]');
    const server = new BridgeServer({
      endpoint: "tcp://127.0.0.1:*",
      backend: createCoreBackend(),
      limits: { drainMs: 0 },
      dataRoots: [dir],
    });
    await server.start();
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const r = await client.call("make", { env_id: "PlanBenchXL-v0", options: { dataDir: dir } });
    expect(r.error).toMatchObject({ code: "VALIDATION_ERROR", details: { libraryCode: "CONFIG_ERROR" } });
    expect(r.error!.details.file).toEqual(expect.any(String));
    expect(r.error!.details.field).toEqual(expect.any(String));
  });
});

describe("option paths over the bridge", () => {
  afterEach(() => setOptionPathPolicy(null));

  it("a server with data roots refuses option paths outside them, naming the option, and keeps serving", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "rg-root-"));
    const server = new BridgeServer({ endpoint: tempIpc(), backend: createCoreBackend(), limits: { drainMs: 0 }, dataRoots: [root] });
    await server.start();
    const client = new BridgeClient(server.endpoint);
    cleanup.push(async () => {
      await client.close();
      await server.stop();
    });
    const r = await client.call("make", { env_id: "ToolMisuseBench-v0", options: { dataset: "/etc/passwd" } });
    expect(r.error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "dataset", libraryCode: "OPTIONS_ERROR" } });
    expect(r.error!.message).not.toMatch(/root:/);
    const spec = path.join(root, "spec.json");
    writeFileSync(spec, JSON.stringify({ name: "mine", terms: { success: { weight: 2 } } }));
    const ok = await client.request<{ session: string }>("make", { env_id: "Demo-v0", options: { reward: spec } });
    expect(ok.session).toBeTruthy();
  });
});
