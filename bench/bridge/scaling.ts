/**
 * Issue 19's scaling row: one env over a server with 2 worker processes, driven by 2 Python client sessions at once
 * (client i talks to worker i, one vector env of `batch` envs each), beside 1 session on 1 worker of the same server
 * (the other worker idle). Both cells are timed in one run, so a busy machine weighs on both alike; CPU time per
 * env-step (server workers and clients, from /proc) says what limits the aggregate.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, printTable } from "./table.js";

/** One client session's numbers, as bench.py reports them (its `bridge` object). */
export interface SessionResult {
  steps_per_s: number;
  server_cpu_us: number;
  client_cpu_us: number;
  batches: number;
}

export interface ScalingCell {
  sessions: number;
  /** Sum over the sessions running at once. */
  stepsPerS: number;
  /** CPU µs per env-step of all server workers (each session's reading covers every worker: summed once). */
  serverCpuUs: number;
  /** CPU µs per env-step of the client processes. */
  clientCpuUs: number;
  perSession: number[];
}

interface Options {
  repo: string;
  python: string;
  envId: string;
  batch: number;
  seconds: number;
}

/** Starts `bridge/main.ts --workers 2` and waits for its ready file. */
async function startServer(repo: string): Promise<{ endpoints: string[]; workerPids: number[]; stop: () => Promise<void> }> {
  const ready = path.join(mkdtempSync(path.join(tmpdir(), "rg-scale-")), "ready.json");
  const server = spawn(
    process.execPath,
    ["--import", "tsx", "bridge/main.ts", "--endpoint", "tcp://127.0.0.1:*", "--workers", "2", "--ready-file", ready, "--quiet"],
    { cwd: repo, stdio: ["ignore", "inherit", "inherit"] },
  );
  const exited = new Promise<number>((r) => server.on("exit", (c) => r(c ?? 1)));
  for (let i = 0; i < 300 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 100));
  if (!existsSync(ready)) {
    server.kill("SIGTERM");
    throw new Error("scaling row: the 2-worker server did not become ready in 30 s");
  }
  const { endpoints, workerPids } = JSON.parse(readFileSync(ready, "utf8")) as { endpoints: string[]; workerPids: number[] };
  return {
    endpoints,
    workerPids,
    stop: async () => {
      server.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) console.error(`scaling server exited with ${code} after SIGTERM`);
    },
  };
}

/** Runs bench.py's throughput mode against one worker endpoint; resolves with its `bridge` numbers. */
function session(o: Options, endpoint: string, serverPids: readonly number[], seconds: number): Promise<SessionResult> {
  return new Promise((resolve, reject) => {
    const args = ["bench/bridge/bench.py", "--address", endpoint, "--env", o.envId, "--info", "none", "--mode", "throughput"];
    args.push("--seconds", String(seconds), "--batches", String(o.batch), "--server-pids", serverPids.join(","));
    const child = spawn(o.python, args, { cwd: o.repo, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`bench.py failed (${code}): ${err}`));
      const row = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { mode?: string; bridge?: SessionResult })
        .find((r) => r.mode === "throughput");
      if (!row?.bridge) return reject(new Error(`bench.py printed no throughput row: ${out.slice(0, 200)}`));
      resolve(row.bridge);
    });
  });
}

/**
 * The two cells: 1 session (worker 0), then 2 sessions started together (worker 0 and worker 1), whose timed loops
 * run concurrently. Each session's server CPU reading spans both workers, so it is rescaled to the aggregate.
 */
export async function scalingCells(o: Options): Promise<ScalingCell[]> {
  const server = await startServer(o.repo);
  try {
    const cells: ScalingCell[] = [];
    for (const n of [1, 2]) {
      const runs = await Promise.all(server.endpoints.slice(0, n).map((ep) => session(o, ep, server.workerPids, o.seconds)));
      const stepsPerS = runs.reduce((a, r) => a + r.steps_per_s, 0);
      // server_cpu_us is every worker's CPU over the session's own env-steps; with n sessions running at once, the
      // workers' CPU over all env-steps is that figure times the session's share of the aggregate, averaged.
      const serverCpuUs = runs.reduce((a, r) => a + (r.server_cpu_us * r.steps_per_s) / stepsPerS, 0) / n;
      const clientCpuUs = runs.reduce((a, r) => a + (r.client_cpu_us * r.steps_per_s) / stepsPerS, 0);
      cells.push({ sessions: n, stepsPerS, serverCpuUs, clientCpuUs, perSession: runs.map((r) => r.steps_per_s) });
    }
    return cells;
  } finally {
    await server.stop();
  }
}

/** Issue 19's row: Demo-v0 at batch 256, 2 workers × 2 client sessions beside 1 worker × 1 session. */
export async function scalingRow(repo: string, python: string, seconds: number): Promise<void> {
  const id = "Demo-v0";
  const batch = 256;
  console.log(`\n== ${id}, batch ${batch}: 2 workers × 2 client sessions beside 1 worker × 1 session (issue 19) ==`);
  const cells = await scalingCells({ repo, python, envId: id, batch, seconds: seconds * 2 });
  printTable(
    ["workers × sessions", "env-steps/s", "per session", "server CPU µs/env-step", "client CPU µs/env-step", "2-core ceiling"],
    cells.map((c) => [
      `${c.sessions} × ${c.sessions}`,
      fmt(c.stepsPerS),
      c.perSession.map((x) => fmt(x)).join(" + "),
      fmt(c.serverCpuUs, 2),
      fmt(c.clientCpuUs, 2),
      fmt(2e6 / (c.serverCpuUs + c.clientCpuUs)),
    ]),
  );
  const two = cells[1]!;
  const verdict = two.stepsPerS >= 150_000 ? "met" : `missed by ${fmt(150_000 / two.stepsPerS, 2)}×`;
  const scaling = fmt(two.stepsPerS / cells[0]!.stepsPerS, 2);
  console.log(`target ≥ 150,000 env-steps/s with 2 workers × 2 sessions: ${verdict}; scaling 2×2 / 1×1 = ${scaling}`);
  mkdirSync(path.join(repo, "bench/results"), { recursive: true });
  writeFileSync(path.join(repo, "bench/results", `bridge-${id}-scaling.json`), JSON.stringify({ id, batch, cells }, null, 2));
}
