/**
 * Chaos: a real `recovery-gym serve` process (loopback, OS-chosen ports). A worker killed mid-batch is restarted on
 * its endpoint while the other worker's sessions carry on; its clients learn SESSION_LOST instead of hearing
 * nothing. SIGTERM mid-batch drains and exits 0, also with recording sessions (issue 17, items 2 and 3).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliArgv, cliEnv } from "../helpers/cli.js";
import type { ReadyFile } from "../../bridge/cli.js";
import { BridgeClient, type RawResponse } from "../../bridge/client.js";
import { restartDelay } from "../../bridge/workers.js";
import { readTrajectories } from "../../src/index.js";

interface Served {
  child: ChildProcess;
  dir: string;
  readyFile: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

const children: ChildProcess[] = [];
const clients: BridgeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function serve(args: string[], detached = false): Served {
  const dir = mkdtempSync(path.join(tmpdir(), "rg-chaos-"));
  const readyFile = path.join(dir, "ready.json");
  const child = spawn(
    process.execPath,
    cliArgv(["serve", "--endpoint", "tcp://127.0.0.1:*", "--ready-file", readyFile, "--drain-ms", "100", ...args]),
    {
      cwd: dir,
      env: cliEnv(),
      stdio: ["ignore", "ignore", "pipe"],
      detached,
    },
  );
  children.push(child);
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on("exit", (code, signal) => r({ code, signal })),
  );
  return { child, dir, readyFile, exited, stderr: () => err };
}

/** Polls the ready file (bounded) until `accept` likes it. */
async function readyWhere(s: Served, accept: (r: ReadyFile) => boolean, what: string): Promise<ReadyFile> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (existsSync(s.readyFile)) {
      const r = JSON.parse(readFileSync(s.readyFile, "utf8")) as ReadyFile;
      if (accept(r)) return r;
    }
    if (s.child.exitCode !== null) throw new Error(`server exited while waiting for ${what}: ${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; stderr: ${s.stderr()}`);
}

function client(endpoint: string): BridgeClient {
  const c = new BridgeClient(endpoint);
  clients.push(c);
  return c;
}

describe("supervision", () => {
  it("restart delays back off from 100 ms to at most 10 s", () => {
    expect([1, 2, 3, 4].map(restartDelay)).toEqual([100, 200, 400, 800]);
    expect(restartDelay(30)).toBe(10_000);
  });

  it("kill -9 of a worker mid-batch: restarted on its endpoint, SESSION_LOST for its clients, the other worker untouched", async () => {
    const s = serve(["--workers", "2"]);
    const first = await readyWhere(s, (r) => r.workerPids.length === 2, "two workers");
    const [c0, c1] = first.endpoints.map(client);
    const m0 = await c0.request<{ session: string }>("make", { env_id: "Demo-v0", num_envs: 2, seed: 3 });
    const m1 = await c1.request<{ session: string }>("make", { env_id: "Demo-v0", num_envs: 2, seed: 3 });
    await c0.request("reset", { session: m0.session });
    await c1.request("reset", { session: m1.session });
    // A batch in flight on worker 1 when it dies: those requests died with the process (nothing was proxied).
    const lost: Promise<RawResponse>[] = Array.from({ length: 30 }, () => c1.call("step", { session: m1.session, sample: true }));
    await lost[0];
    process.kill(first.workerPids[1], "SIGKILL");
    // Worker 0 keeps serving its session throughout.
    for (let i = 0; i < 5; i++) expect((await c0.call("step", { session: m0.session, sample: true })).ok).toBe(true);
    const after = await readyWhere(s, (r) => r.workerPids[1] !== first.workerPids[1], "the restart of worker 1");
    expect(after.endpoints).toEqual(first.endpoints);
    expect(after.workerPids[0]).toBe(first.workerPids[0]);
    // The same client socket reconnects by itself; its old session is reported lost, a new one works.
    const gone = await c1.call("step", { session: m1.session, sample: true });
    expect(gone.error?.code).toBe("SESSION_LOST");
    const again = await c1.request<{ session: string }>("make", { env_id: "Demo-v0", seed: 3 });
    expect(again.session.startsWith("s1r1-")).toBe(true);
    await c1.request("reset", { session: again.session });
    expect((await c0.call("step", { session: m0.session, sample: true })).ok).toBe(true);
    expect(s.stderr()).toMatch(/worker 1 \(pid \d+\) died \(SIGKILL\); its sessions are lost; restarting/);
    expect(s.stderr()).toMatch(/worker 1 restarted/);
    // A second crash soon after is logged as such and waits longer (backoff), then the worker is back again.
    process.kill(after.workerPids[1], "SIGKILL");
    const third = await readyWhere(s, (r) => r.workerPids[1] !== after.workerPids[1], "the second restart of worker 1");
    expect(s.stderr()).toMatch(
      /worker 1 \(pid \d+\) died \(SIGKILL\); its sessions are lost; restarting on \S+ in 200 ms \(crash 2 in a row\)/,
    );
    expect(third.workerPids[0]).toBe(first.workerPids[0]);
    const lostAgain = await c1.call("step", { session: again.session, sample: true });
    expect(lostAgain.error?.code).toBe("SESSION_LOST");
    // SIGTERM mid-batch: every request that reached a worker is answered (result or SHUTTING_DOWN), exit 0.
    const batch = Array.from({ length: 20 }, () => c0.call("step", { session: m0.session, sample: true }));
    await batch[0];
    s.child.kill("SIGTERM");
    const rs = await Promise.all(batch);
    const firstRefused = rs.findIndex((r) => !r.ok);
    expect(rs.slice(0, firstRefused < 0 ? rs.length : firstRefused).every((r) => r.ok)).toBe(true);
    if (firstRefused >= 0) expect(rs.slice(firstRefused).every((r) => r.error?.code === "SHUTTING_DOWN")).toBe(true);
    expect(await s.exited).toEqual({ code: 0, signal: null });
  }, 180_000); // ~13 s beside the rest of npm test on a quiet machine, 42 s at load 10

  it("SIGTERM drains and exits 0 with recording sessions, open or closed, and writes the open episode", async () => {
    const s = serve(["--workers", "1", "--record-dir", "rec"]);
    const { endpoints } = await readyWhere(s, (r) => r.endpoints.length === 1, "the server");
    const c = client(endpoints[0]);
    const closed = await c.request<{ session: string }>("make", { env_id: "Demo-v0", seed: 1, record: true });
    await c.request("reset", { session: closed.session });
    await c.request("close", { session: closed.session });
    const open = await c.request<{ session: string }>("make", { env_id: "Demo-v0", seed: 2, record: true });
    await c.request("reset", { session: open.session });
    const batch = Array.from({ length: 10 }, () => c.call("step", { session: open.session, sample: true }));
    await batch[0];
    s.child.kill("SIGTERM");
    await Promise.all(batch);
    expect(await s.exited).toEqual({ code: 0, signal: null });
    const files = readdirSync(path.join(s.dir, "rec"));
    const mine = files.find((f) => f.includes(open.session));
    expect(mine).toBeDefined();
    const trajs = readTrajectories(path.join(s.dir, "rec", mine!));
    expect(trajs.at(-1)?.steps.length).toBeGreaterThan(0);
  });

  it("Ctrl-C to the whole process group: every worker drains, none is restarted, exit 0", async () => {
    const s = serve(["--workers", "2"], true);
    const { endpoints } = await readyWhere(s, (r) => r.workerPids.length === 2, "two workers");
    const c = client(endpoints[1]);
    const { session } = await c.request<{ session: string }>("make", { env_id: "Demo-v0", seed: 1 });
    await c.request("reset", { session });
    process.kill(-s.child.pid!, "SIGINT");
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.stderr()).not.toMatch(/restarting/);
  });
});
