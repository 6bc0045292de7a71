/**
 * `serve --workers 1` started without `--max-semi-space-size` serves from a child node given the configured young
 * generation (bridge/relaunch.ts), and the process that was started behaves as the server did: it is the ready
 * file's `pid`, forwards SIGTERM, exits with the server's code or dies of its signal, prints only what the server
 * prints, and does not leave the server running when it is killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ReadyFile } from "../../bridge/cli.js";
import { cliArgv, cliEnv } from "../helpers/cli.js";
import { BridgeClient } from "../../bridge/client.js";
import { LAUNCHER_ENV, launcherPid, needsRelaunch } from "../../bridge/relaunch.js";

interface Served {
  child: ChildProcess;
  ready: ReadyFile;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The CLI as a user starts it (`recovery-gym serve`, from the sources): no young-generation flag anywhere. */
async function serve(args: string[]): Promise<Served> {
  const dir = mkdtempSync(path.join(tmpdir(), "rg-relaunch-"));
  const file = path.join(dir, "ready.json");
  const env = cliEnv();
  delete env.NODE_OPTIONS;
  delete env[LAUNCHER_ENV];
  const argv = cliArgv(["serve", "--endpoint", `ipc://${dir}/s.sock`, "--workers", "1", "--ready-file", file, ...args]);
  const child = spawn(process.execPath, argv, { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  let done: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on("exit", (code, signal) => r((done = { code, signal }))),
  );
  // Two node processes from TypeScript sources take seconds on a loaded machine: poll, the test timeout bounds it.
  for (;;) {
    if (existsSync(file)) {
      const text = readFileSync(file, "utf8");
      if (text.endsWith("\n")) return { child, ready: JSON.parse(text) as ReadyFile, stderr: () => err, exited };
    }
    if (done) throw new Error(`serve exited (${done.code ?? done.signal}) before it was ready; stderr:\n${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
}

function parentOf(pid: number): number {
  return Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
}

/** Whether `pid` is gone within `timeoutMs`; a zombie counts as gone (an orphan waits for whoever adopts it to reap it). */
async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    try {
      if (readFileSync(`/proc/${pid}/stat`, "utf8").split(")").at(-1)!.trim().startsWith("Z")) return true;
    } catch {
      return true;
    }
  }
  return false;
}

const linux = process.platform === "linux";

describe("serve --workers 1 relaunches itself with the configured young generation", () => {
  it("decides from the flags, NODE_OPTIONS and the launcher mark", () => {
    const flagged = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) =>
      a.startsWith("--max-semi-space-size"),
    );
    expect(needsRelaunch(0)).toBe(false);
    expect(needsRelaunch(64)).toBe(!flagged && process.platform !== "win32");
    const before = process.env[LAUNCHER_ENV];
    try {
      process.env[LAUNCHER_ENV] = "1";
      expect(needsRelaunch(64)).toBe(false); // a relaunched server never relaunches again
      expect(launcherPid()).toBe(null); // pid 1 is not this process's parent: a stale mark is not trusted
      process.env[LAUNCHER_ENV] = String(process.ppid);
      expect(launcherPid()).toBe(process.ppid);
    } finally {
      if (before === undefined) delete process.env[LAUNCHER_ENV];
      else process.env[LAUNCHER_ENV] = before;
    }
  });

  it.runIf(linux)("steps envs in a child with --max-semi-space-size; SIGTERM drains it and exits 0", async () => {
    const s = await serve(["--semi-space-mb", "48", "--drain-ms", "100"]);
    let client: BridgeClient | undefined;
    try {
      const [server] = s.ready.workerPids;
      expect(s.ready.pid).toBe(s.child.pid);
      expect(s.ready.workerPids).toHaveLength(1);
      expect(server).not.toBe(s.child.pid);
      expect(parentOf(server)).toBe(s.child.pid);
      expect(cmdline(server)).toContain("--max-semi-space-size=48");
      expect(cmdline(s.child.pid!)).not.toContain("--max-semi-space-size=48");
      client = new BridgeClient(s.ready.endpoints[0]);
      const made = await client.request<{ session: string }>("make", { env_id: "ToolMaze-v0", num_envs: 2, seed: 1 });
      await client.request("reset", { session: made.session });
      expect((await client.call("step", { session: made.session, sample: true })).ok).toBe(true);
      s.child.kill("SIGTERM");
      expect(await s.exited).toEqual({ code: 0, signal: null });
      expect(await gone(server, 10_000)).toBe(true);
      const lines = s.stderr().trim().split("\n");
      expect(lines[0]).toBe(`[bridge] listening on ${s.ready.endpoints[0]} (1 worker, pid ${server})`);
      expect(lines.slice(1)).toEqual(["[bridge] SIGTERM: draining and closing 1 session(s)", "[bridge] stopped"]);
    } finally {
      if (s.child.exitCode === null) s.child.kill("SIGKILL");
      // Closed once the server is gone, as the other bridge tests do: closing a client while its ipc peer shuts down
      // once tripped a libzmq assertion (pipe.cpp, term_ack_sent) that aborted this test process at exit.
      await client?.close();
    }
  });

  it.runIf(linux)("--quiet prints nothing; a server killed by a signal takes the launcher with it", async () => {
    const s = await serve(["--quiet"]);
    try {
      expect(cmdline(s.ready.workerPids[0])).toContain("--max-semi-space-size=64");
      process.kill(s.ready.workerPids[0], "SIGKILL");
      expect(await s.exited).toEqual({ code: null, signal: "SIGKILL" });
      expect(s.stderr()).toBe("");
    } finally {
      if (s.child.exitCode === null) s.child.kill("SIGKILL");
    }
  });

  it.runIf(linux)("a launcher killed outright leaves no orphan: the server drains and exits", async () => {
    const s = await serve(["--drain-ms", "0"]);
    const [server] = s.ready.workerPids;
    try {
      s.child.kill("SIGKILL");
      await s.exited;
      expect(await gone(server, 20_000)).toBe(true);
      // The orphan wrote to the stderr pipe it inherited; its last bytes may arrive after its exit is seen.
      for (let i = 0; i < 100 && !s.stderr().includes("[bridge] stopped"); i++) await new Promise((r) => setTimeout(r, 20));
      expect(s.stderr()).toContain("[bridge] launcher exited: draining and closing 0 session(s)\n[bridge] stopped\n");
    } finally {
      if (existsSync(`/proc/${server}`)) process.kill(server, "SIGKILL");
    }
  });
});
