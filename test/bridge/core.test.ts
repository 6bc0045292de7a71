/**
 * The bridge over the real library: trajectories over the wire equal in-process ones (hashed whole, for every
 * registered env id), fuzzing does not hurt later results, recording is flushed on shutdown.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../bridge/client.js";
import { encode } from "../../bridge/codec.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { ActionNameDecoder, applyColumns, type ColumnActions, type ColumnObs } from "../../bridge/columns.js";
import { applyDelta, type WireObs } from "../../bridge/delta.js";
import { BridgeServer } from "../../bridge/server.js";
import { type AutoresetMode, listEnvs, makeVec, Rng, stableStringify } from "../../src/index.js";
import { startServer, tempIpc } from "./helpers.js";
import { envActionSpace } from "../../bridge/backend.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** JSON-normalises like the wire does (undefined -> null, typed arrays -> lists) and hashes canonically. */
function hash(x: unknown): string {
  const norm = JSON.parse(
    JSON.stringify(x, (_k, v: unknown) =>
      v === undefined ? null : ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v,
    ),
  );
  return createHash("sha256").update(stableStringify(norm)).digest("hex");
}

function inProcess(envId: string, n: number, seed: number, steps: number, autoresetMode: AutoresetMode = "NextStep"): unknown {
  const backend = createCoreBackend();
  const env = makeVec(envId, n, {}, { autoresetMode });
  const samplers = backend.createSamplers(seed, 0, n);
  const [obs0, infos0] = env.reset({ seed });
  const out: unknown[] = [];
  for (let t = 0; t < steps; t++) {
    const actions = samplers.map((rng, i) => backend.sampleAction(envActionSpace(env, i), rng));
    const [obs, rewards, terminated, truncated, infos] = env.step(actions);
    out.push({ actions, obs, rewards: Array.from(rewards), terminated, truncated, infos });
  }
  env.close();
  return { obs0, infos0, out };
}

async function overBridge(
  client: BridgeClient,
  envId: string,
  n: number,
  seed: number,
  steps: number,
  encoding = "delta",
  autoresetMode: AutoresetMode = "NextStep",
): Promise<unknown> {
  const { session } = await client.request<{ session: string }>("make", {
    env_id: envId,
    num_envs: n,
    seed,
    obs_encoding: encoding,
    autoreset_mode: autoresetMode,
  });
  const r = await client.request<{ observations: unknown[]; infos: unknown }>("reset", { session });
  let obs = r.observations;
  const out: unknown[] = [];
  const names = new ActionNameDecoder();
  for (let t = 0; t < steps; t++) {
    const s = await client.request<{
      actions: unknown[];
      observations: unknown[];
      rewards: number[];
      terminated: boolean[];
      truncated: boolean[];
      infos: unknown;
    }>("step", { session, sample: true });
    if (encoding === "columns") {
      // Column sessions send columns, binary scalars and tool indices: rebuilt here as a client would.
      obs = applyColumns(obs, s.observations as ColumnObs);
      const flags = (b: unknown) => Array.from(b as Uint8Array, (x) => x === 1);
      const rewards = Array.from(new Float64Array(new Uint8Array(s.rewards as unknown as Uint8Array).buffer));
      const actions = names.decode(s.actions as unknown as ColumnActions);
      out.push({ actions, obs, rewards, terminated: flags(s.terminated), truncated: flags(s.truncated), infos: s.infos });
      continue;
    }
    obs = encoding === "delta" ? obs.map((o, i) => applyDelta(o, s.observations[i] as WireObs)) : s.observations;
    out.push({ actions: s.actions, obs, rewards: s.rewards, terminated: s.terminated, truncated: s.truncated, infos: s.infos });
  }
  await client.request("close", { session });
  return { obs0: r.observations, infos0: r.infos, out };
}

/** Every registered env id; each gets its own test (and time budget): together they take ~30 s on a quiet machine. */
const ENV_IDS = listEnvs().map((e) => e.id);

describe("bridge over the library", () => {
  it("covers every registered env id, Demo-v0 among them", () => {
    expect(ENV_IDS).toContain("Demo-v0");
    expect(ENV_IDS.length).toBeGreaterThanOrEqual(5);
  });

  it.each(ENV_IDS)("same seeds give the same whole trajectory over the bridge and in-process: %s", async (id) => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const want = hash(inProcess(id, 3, 5, 40));
    expect(hash(await overBridge(client, id, 3, 5, 40)), id).toBe(want);
    expect(hash(await overBridge(client, id, 3, 5, 40, "full")), id).toBe(want);
    expect(hash(await overBridge(client, id, 3, 5, 40, "columns")), id).toBe(want);
  });

  it("another seed gives another trajectory, and SameStep autoreset matches in-process over the bridge", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    expect(hash(await overBridge(client, "Demo-v0", 3, 6, 40))).not.toBe(hash(inProcess("Demo-v0", 3, 5, 40)));
    // SameStep autoreset (final_obs / final_info in infos) matches too
    const same = hash(inProcess("Demo-v0", 3, 5, 40, "SameStep"));
    expect(same).not.toBe(hash(inProcess("Demo-v0", 3, 5, 40)));
    expect(hash(await overBridge(client, "Demo-v0", 3, 5, 40, "delta", "SameStep"))).toBe(same);
    expect(hash(await overBridge(client, "Demo-v0", 3, 5, 40, "columns", "SameStep"))).toBe(same);
  });

  it("info_keys sends the same infos as filtering every key, though the env batches only the named ones", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const run = async (infoKeys: string[] | null) => {
      const { session } = await client.request<{ session: string }>("make", {
        env_id: "Demo-v0",
        num_envs: 3,
        seed: 4,
        autoreset_mode: "SameStep",
        info_keys: infoKeys,
      });
      const infos: Record<string, unknown>[] = [(await client.request<{ infos: Record<string, unknown> }>("reset", { session })).infos];
      for (let t = 0; t < 30; t++)
        infos.push((await client.request<{ infos: Record<string, unknown> }>("step", { session, sample: true })).infos);
      await client.request("close", { session });
      return infos;
    };
    const keys = ["phi", "_taskId", "final_info"];
    const all = await run(null);
    const keep = (k: string) => keys.includes(k) || (k.startsWith("_") && keys.includes(k.slice(1)));
    const filtered = all.map((infos) => Object.fromEntries(Object.entries(infos).filter(([k]) => keep(k))));
    const sent = await run(keys);
    expect(hash(sent)).toBe(hash(filtered));
    // The filter is not vacuous: episodes ended (final_info) and some keys were left out.
    expect(sent.some((i) => "final_info" in i && "_taskId" in i && !("taskId" in i))).toBe(true);
    expect(all.some((i) => Object.keys(i).some((k) => !keep(k)))).toBe(true);
  });

  it("reset with a mask and per-env seeds resets only the masked envs, as in-process", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const local = makeVec("Demo-v0", 2, {});
    const { session } = await client.request<{ session: string }>("make", { env_id: "Demo-v0", num_envs: 2, obs_encoding: "full" });
    const a = await client.request<{ observations: unknown[] }>("reset", { session, seed: 1 });
    expect(hash(a.observations)).toBe(hash(local.reset({ seed: 1 })[0]));
    const b = await client.request<{ observations: unknown[]; infos: unknown }>("reset", {
      session,
      seed: [null, 7],
      reset_mask: [false, true],
    });
    const [lo, li] = local.reset({ seed: [null, 7], options: { resetMask: [false, true] } });
    expect(hash(b)).toBe(hash({ observations: lo, infos: li }));
    expect(hash(b.observations[0])).toBe(hash(a.observations[0]));
    const bad = await client.call("reset", { session, reset_mask: [true] });
    expect(bad.error?.code).toBe("VALIDATION_ERROR");
    local.close();
  });

  it("delta steps are much smaller than full steps (tool schemas and task sent once)", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const size = async (enc: string) => {
      const { session } = await client.request<{ session: string }>("make", {
        env_id: "Demo-v0",
        num_envs: 8,
        seed: 1,
        obs_encoding: enc,
        info_keys: [],
      });
      await client.request("reset", { session });
      let total = 0;
      for (let i = 0; i < 5; i++) total += encode((await client.call("step", { session, sample: true })).result).length;
      return total;
    };
    const delta = await size("delta");
    const full = await size("full");
    expect(delta).toBeLessThan(full * 0.6);
  });

  it("survives 10,000+ random, truncated and malformed frames with one answer each, then serves correct results", async () => {
    const server = await startServer(createCoreBackend(), { maxSessions: 64, maxMessageBytes: 4096 });
    cleanup.push(() => server.stop());
    const want = hash(inProcess("Demo-v0", 2, 3, 25));
    const fuzzer = new BridgeClient(server.endpoint);
    cleanup.push(() => fuzzer.close());
    const rng = new Rng("bridge-fuzz");
    const ops = ["hello", "ping", "list_envs", "make", "reset", "step", "close", "get_spec", "nope", ""];
    const randomValue = (depth: number): unknown => {
      switch (rng.int(depth > 2 ? 6 : 9)) {
        case 0:
          return rng.int(1000) - 500;
        case 1:
          return rng.random() * 1e6;
        case 2:
          return "s".repeat(rng.int(20));
        case 3:
          return rng.bool();
        case 4:
          return null;
        case 5:
          return 2 ** 40 + rng.int(10);
        case 6:
          return Array.from({ length: rng.int(4) }, () => randomValue(depth + 1));
        case 7:
          return Object.fromEntries(
            Array.from({ length: rng.int(4) }, (_, i) => [
              rng.pick(["env_id", "num_envs", "session", "seed", "actions", "options", "versions", `k${i}`]),
              randomValue(depth + 1),
            ]),
          );
        default:
          return Buffer.from([rng.int(256), rng.int(256)]);
      }
    };
    const valid = encode({ id: 1, op: "make", env_id: "Demo-v0", num_envs: 2, options: {} });
    const N = 10_500;
    let sent = 0;
    for (let i = 0; i < N; i++) {
      const kind = rng.int(6);
      let frames: Buffer | Buffer[];
      if (kind === 0) frames = Buffer.from(Array.from({ length: rng.int(64) }, () => rng.int(256)));
      else if (kind === 1) frames = valid.subarray(0, rng.int(valid.length));
      else if (kind === 2) frames = encode(randomValue(0));
      else if (kind === 3) {
        const m: Record<string, unknown> = { id: i, op: rng.pick(ops) };
        for (let k = 0; k < rng.int(4); k++)
          m[rng.pick(["env_id", "num_envs", "session", "seed", "actions", "options", "versions", "sample", "x"])] = randomValue(1);
        if (m.op === "make" && rng.bool(0.5)) Object.assign(m, { env_id: "Demo-v0", num_envs: 1 + rng.int(3) });
        frames = encode(m);
      } else if (kind === 4) frames = [encode({ id: i, op: "ping" }), Buffer.from("extra")];
      else frames = encode({ id: i, op: "ping", pad: "x".repeat(5000) });
      await fuzzer.sendRaw(frames);
      sent++;
    }
    for (let t = 0; t < 200 && fuzzer.orphans.length < sent; t++) await new Promise((r) => setTimeout(r, 25));
    expect(sent).toBeGreaterThanOrEqual(10_000);
    expect(fuzzer.orphans.length).toBe(sent);
    expect(fuzzer.orphans.every((o) => typeof o.ok === "boolean")).toBe(true);
    const codes = new Set(fuzzer.orphans.filter((o) => !o.ok).map((o) => o.error!.code));
    for (const c of ["INVALID_MESSAGE", "VALIDATION_ERROR", "UNKNOWN_OP", "MESSAGE_TOO_LARGE"]) expect(codes).toContain(c);
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    expect(hash(await overBridge(client, "Demo-v0", 2, 3, 25))).toBe(want);
  });

  it("record:true writes trajectories, and a graceful stop flushes the unfinished episode", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-bridge-rec-"));
    const server = new BridgeServer({ endpoint: tempIpc(), backend: createCoreBackend(), limits: { drainMs: 0 }, recordDir: dir });
    await server.start();
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const { session } = await client.request<{ session: string }>("make", { env_id: "Demo-v0", num_envs: 2, seed: 4, record: true });
    await client.request("reset", { session });
    for (let i = 0; i < 3; i++) await client.request("step", { session, sample: true });
    await server.stop();
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    const lines = files.flatMap((f) =>
      readFileSync(path.join(dir, f), "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { terminationReason: string; steps: unknown[] }),
    );
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.some((t) => t.terminationReason === "interrupted" || t.steps.length > 0)).toBe(true);
    const noRec = await startServer(createCoreBackend());
    cleanup.push(() => noRec.stop());
    const c2 = new BridgeClient(noRec.endpoint);
    cleanup.push(() => c2.close());
    const r = await c2.call("make", { env_id: "Demo-v0", record: true });
    expect(r.error?.code).toBe("VALIDATION_ERROR");
  });

  it("get_spec by env id describes spaces; list_envs carries option docs", async () => {
    const server = await startServer(createCoreBackend());
    cleanup.push(() => server.stop());
    const client = new BridgeClient(server.endpoint);
    cleanup.push(() => client.close());
    const spec = await client.request<{ spec: { action_space: { type: string }; options: object } }>("get_spec", { env_id: "Demo-v0" });
    expect(spec.spec.action_space.type).toBe("tool_action");
    const { envs } = await client.request<{ envs: { id: string; options: object }[] }>("list_envs");
    expect(envs.find((e) => e.id === "Demo-v0")?.options).toBeTypeOf("object");
    const bad = await client.call("make", { env_id: "Demo-v0", options: { noSuchOption: 1 } });
    expect(bad.error?.code).toBe("VALIDATION_ERROR");
    expect(String(bad.error?.details.field)).toContain("noSuchOption");
  });
});
