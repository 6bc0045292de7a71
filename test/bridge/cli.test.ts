/**
 * `recovery-gym serve` as users run it: flag errors, the remote-bind policy, a real process with two workers
 * that answers on both endpoints and exits 0 on SIGTERM after answering what it had received.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliArgv, cliEnv } from "../helpers/cli.js";
import { BridgeClient } from "../../bridge/client.js";
import { SERVE_HELP, serveCommand } from "../../bridge/cli.js";
import { workerEndpoint } from "../../bridge/config.js";
import { checkEndpointPolicy, isLocalEndpoint } from "../../bridge/endpoint.js";
import { BridgeServer } from "../../bridge/server.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

async function run(argv: string[], stop: Promise<unknown> = Promise.resolve()): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await serveCommand(argv, {
    out: (s) => (out += s),
    err: (s) => (err += s),
    stopSignal: stop,
    loadBackend: async () => createCoreBackend(),
  });
  return { code, out, err };
}

/**
 * The ready file's content once the server has written it whole. Starting a supervisor and its workers from
 * TypeScript sources takes seconds on a loaded machine, so there is no fixed wait: the file appearing or the server
 * exiting decides, and the test timeout bounds the rest.
 */
async function readyInfo(file: string, exited: Promise<number | null>, stderr: () => string): Promise<unknown> {
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  for (;;) {
    if (existsSync(file)) {
      const text = readFileSync(file, "utf8");
      if (text.endsWith("\n")) return JSON.parse(text) as unknown; // written in one call, newline last
    }
    if (exitCode !== undefined) throw new Error(`the server exited (${String(exitCode)}) before it was ready; stderr:\n${stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("serve command", () => {
  it("--help, unknown flags, bad values and bad config files", async () => {
    const h = await run(["--help"]);
    expect(h.code).toBe(0);
    expect(h.out).toBe(SERVE_HELP);
    for (const flag of ["--endpoint", "--workers", "--allow-remote", "--config", "--max-sessions", "--idle-timeout-ms"])
      expect(SERVE_HELP).toContain(flag);
    const u = await run(["--frobnicate"]);
    expect(u.code).toBe(2);
    expect(u.err).toContain("--frobnicate");
    const w = await run(["--workers", "zero"]);
    expect(w.code).toBe(2);
    expect(w.err).toContain("--workers");
    const dir = mkdtempSync(path.join(tmpdir(), "rg-cfg-"));
    const cfg = path.join(dir, "bad.json");
    writeFileSync(cfg, JSON.stringify({ endpoint: "tcp://127.0.0.1:1", limits: { maxSessions: -3 } }));
    const c = await run(["--config", cfg]);
    expect(c.code).toBe(2);
    expect(c.err).toContain("maxSessions");
  });

  it("every limit can be set by a flag; hello reports them; inconsistent limits are refused", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-lim-"));
    const endpoint = `ipc://${path.join(dir, "s.sock")}`;
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const flags = [
      "--max-message-bytes",
      "2048",
      "--hard-message-bytes",
      "4096",
      "--reap-interval-ms",
      "50",
      "--send-hwm",
      "77",
      "--drain-ms",
      "0",
    ];
    const serving = run(["--endpoint", endpoint, "--workers", "1", "--quiet", ...flags], stopped);
    const client = new BridgeClient(endpoint);
    const { limits } = await client.request<{ limits: Record<string, number> }>("hello", { versions: [1] });
    expect(limits).toMatchObject({ maxMessageBytes: 2048, hardMessageBytes: 4096, reapIntervalMs: 50, sendHighWaterMark: 77, drainMs: 0 });
    await client.close();
    stop();
    expect((await serving).code).toBe(0);
    const bad = await run(["--max-message-bytes", "8192", "--hard-message-bytes", "4096"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("hardMessageBytes");
    const arrays = await run(["--max-array-length", "100", "--max-envs-per-session", "200"]);
    expect(arrays.code).toBe(2);
    expect(arrays.err).toContain("maxArrayLength");
  });

  it("an embedded --workers 1 server (stop signal given: never relaunched) says when it lacks the young generation", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-semi-"));
    const flagged = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) =>
      a.startsWith("--max-semi-space-size"),
    );
    const served = await run(["--endpoint", `ipc://${path.join(dir, "a.sock")}`, "--workers", "1"]);
    expect(served.code).toBe(0);
    if (flagged) expect(served.err).not.toContain("--semi-space-mb");
    else expect(served.err).toContain("start node with --max-semi-space-size=64");
    const off = await run(["--endpoint", `ipc://${path.join(dir, "b.sock")}`, "--workers", "1", "--semi-space-mb", "0"]);
    expect(off.code).toBe(0);
    expect(off.err).toContain("listening on");
    expect(off.err).not.toContain("--semi-space-mb");
  });

  it("the shipped configs/bridge.json is valid", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-cfg-"));
    const cfg = JSON.parse(readFileSync(path.join(repo, "configs/bridge.json"), "utf8")) as Record<string, unknown>;
    const file = path.join(dir, "c.json");
    writeFileSync(file, JSON.stringify({ ...cfg, endpoint: `ipc://${dir}/s.sock`, workers: 1 }));
    const r = await run(["--config", file, "--quiet"]);
    expect(r.code).toBe(0);
  });

  it("refuses non-loopback endpoints without --allow-remote, and without CURVE keys when CURVE exists", async () => {
    const a = await run(["--endpoint", "tcp://0.0.0.0:5599", "--workers", "1"]);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/refusing to bind non-loopback/);
    const b = await run(["--endpoint", "tcp://0.0.0.0:5599", "--workers", "1", "--allow-remote"]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/CURVE/);
    expect(isLocalEndpoint("tcp://127.0.0.1:1")).toBe(true);
    expect(isLocalEndpoint("tcp://[::1]:1")).toBe(true);
    expect(isLocalEndpoint("tcp://*:1")).toBe(false);
    expect(isLocalEndpoint("tcp://10.0.0.1:1")).toBe(false);
  });

  it("--gen-curve-keys writes a usable key file; CURVE encryption works with it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-keys-"));
    const keys = path.join(dir, "keys.json");
    expect((await run(["--gen-curve-keys", keys])).code).toBe(0);
    const k = JSON.parse(readFileSync(keys, "utf8")) as { publicKey: string; secretKey: string };
    expect(k.publicKey).toHaveLength(40);
    // Tests never bind non-loopback addresses: the policy accepts the remote endpoint with keys, and the
    // encryption itself is exercised on loopback.
    expect(() => checkEndpointPolicy("tcp://0.0.0.0:5599", true, k)).not.toThrow();
    const server = new BridgeServer({ endpoint: "tcp://127.0.0.1:*", backend: createCoreBackend(), limits: { drainMs: 0 }, curve: k });
    await server.start();
    try {
      const client = new BridgeClient(server.endpoint, { curveServerKey: k.publicKey });
      expect(await client.request("ping")).toEqual({ pong: true });
      await client.close();
      // a plaintext client gets nothing back (the handshake fails), so it times out instead of being served
      const plain = new BridgeClient(server.endpoint);
      const r = await Promise.race([plain.call("ping"), new Promise((res) => setTimeout(() => res("timeout"), 300))]);
      expect(r).toBe("timeout");
      await plain.close();
    } finally {
      await server.stop();
    }
  });

  it("worker endpoints: consecutive ports or suffixed ipc paths", () => {
    expect(workerEndpoint("tcp://127.0.0.1:5555", 0)).toBe("tcp://127.0.0.1:5555");
    expect(workerEndpoint("tcp://127.0.0.1:5555", 2)).toBe("tcp://127.0.0.1:5557");
    expect(workerEndpoint("tcp://127.0.0.1:*", 1)).toBe("tcp://127.0.0.1:*");
    expect(workerEndpoint("ipc:///tmp/x.sock", 1)).toBe("ipc:///tmp/x.sock.1");
    expect(() => workerEndpoint("inproc://x", 1)).toThrow(/cannot be shared/);
  });

  it("`recovery-gym serve --workers 2` serves on both endpoints and exits 0 on SIGTERM", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-serve-"));
    const ready = path.join(dir, "ready.json");
    // Through the real binary (as `npm start` runs it), from another directory.
    const child = spawn(
      process.execPath,
      cliArgv(["serve", "--endpoint", `ipc://${dir}/b.sock`, "--workers", "2", "--ready-file", ready, "--drain-ms", "200"]),
      {
        cwd: dir,
        env: cliEnv(),
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    try {
      const { endpoints, workerPids } = (await readyInfo(ready, exited, () => stderr)) as { endpoints: string[]; workerPids: number[] };
      expect(endpoints).toEqual([`ipc://${dir}/b.sock`, `ipc://${dir}/b.sock.1`]);
      expect(new Set(workerPids).size).toBe(2);
      // Workers run with the larger young generation (--semi-space-mb, default 64).
      for (const pid of workerPids) expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain("--max-semi-space-size=64");
      const clients = endpoints.map((e) => new BridgeClient(e));
      const hellos = await Promise.all(
        clients.map((c) => c.request<{ worker: { index: number }; endpoints: string[] }>("hello", { versions: [1] })),
      );
      expect(hellos.map((h) => h.worker.index)).toEqual([0, 1]);
      expect(hellos[1].endpoints).toEqual(endpoints);
      const made = await clients[1].request<{ session: string }>("make", { env_id: "Demo-v0", num_envs: 2, seed: 1 });
      expect(made.session.startsWith("s1-")).toBe(true);
      await clients[1].request("reset", { session: made.session });
      // pipeline steps, then SIGTERM: every request gets exactly one answer, in order — results for what arrived
      // before the signal, SHUTTING_DOWN for anything after (how many arrive first depends on the machine's load)
      const inflight = Array.from({ length: 20 }, () => clients[1].call("step", { session: made.session, sample: true }));
      await inflight[0];
      child.kill("SIGTERM");
      const rs = await Promise.all(inflight);
      expect(rs[0].ok).toBe(true);
      const firstRefused = rs.findIndex((r) => !r.ok);
      const tail = firstRefused < 0 ? [] : rs.slice(firstRefused);
      expect(tail.every((r) => r.error?.code === "SHUTTING_DOWN")).toBe(true);
      expect(await exited).toBe(0);
      expect(stderr).toContain("stopping 2 workers");
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
