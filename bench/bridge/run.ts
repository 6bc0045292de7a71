/**
 * Bridge benchmark: env-steps/s over tcp loopback with the Python client at batch 1/8/64/256, beside a raw
 * pyzmq <-> zeromq.js msgpack echo of the same request/response bytes; lockstep latency p50/p99; the ratio
 * bridge / echo; and the server's RSS before and after 1,000,000 env-steps.
 *
 *   node --import tsx bench/bridge/run.ts [--env ToolMaze-v0] [--seconds 3] [--total 1000000] [--info all|none]
 *                                          [--workers 1] [--options '{"complexity":"C1"}'] [--batches 1,8,64,256]
 * With --workers N > 1 the Python client shards each vector env over all N worker processes.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Router } from "zeromq";
import { BridgeClient } from "../../bridge/client.js";
import { decode, encode } from "../../bridge/codec.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { makeVec } from "../../src/index.js";
import { envActionSpace } from "../../bridge/backend.js";
import { ProgressBar } from "../../src/cli/progress.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const argv = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
let envId = arg("env", "ToolMaze-v0");
const seconds = arg("seconds", "3");
const total = arg("total", "1000000");
const info = arg("info", "all");
const workers = arg("workers", "1");
const options = arg("options", "{}");
const batches = arg("batches", "1,8,64,256");
const shard = Number(workers) > 1 ? ["--all-workers"] : [];
const PY = process.env.PYTHON ?? "/usr/bin/python3";

/** The baseline: decode each request, encode the primed response map, send. Same codec as the bridge. */
async function startEcho(): Promise<{ endpoint: string; close: () => void }> {
  const sock = new Router({ linger: 0 });
  await sock.bind("tcp://127.0.0.1:*");
  let primed: unknown = null;
  void (async () => {
    try {
      for await (const [id, body] of sock) {
        const msg = decode(body) as { prime?: unknown; id?: number };
        if (msg.prime !== undefined) {
          primed = { ...(msg.prime as object) };
          await sock.send([id, encode({ ok: true })]);
          continue;
        }
        await sock.send([id, encode({ ...(primed as object), id: msg.id })]);
      }
    } catch {
      // closed
    }
  })();
  return { endpoint: sock.lastEndpoint!, close: () => sock.close() };
}

/** The env's own speed in this process (sampling + vector step, no bridge): the ceiling the bridge can reach. */
function inProcess(id: string, batch: number, secs: number, opts: Record<string, unknown>): number {
  const backend = createCoreBackend();
  const env = makeVec(id, batch, opts);
  const samplers = backend.createSamplers(1, 0, batch);
  env.reset({ seed: 1 });
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < secs * 1000 || n < 20) {
    env.step(samplers.map((r, i) => backend.sampleAction(envActionSpace(env, i), r)));
    n++;
  }
  const dt = (performance.now() - t0) / 1000;
  env.close();
  return (n * batch) / dt;
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(tmpdir(), "rg-bench-"));
  const ready = path.join(tmp, "ready.json");
  const server = spawn(process.execPath, ["--import", "tsx", "bridge/main.ts", "--endpoint", "tcp://127.0.0.1:*", "--workers", workers, "--ready-file", ready, "--quiet"], {
    cwd: repo,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const serverExit = new Promise<number>((r) => server.on("exit", (c) => r(c ?? 1)));
  for (let i = 0; i < 300 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 100));
  const { endpoints, workerPids } = JSON.parse(readFileSync(ready, "utf8")) as { endpoints: string[]; workerPids: number[] };
  const probe = new BridgeClient(endpoints[0]);
  const { env_ids: ids } = await probe.request<{ env_ids: string[] }>("hello", { versions: [1] });
  await probe.close();
  if (!ids.includes(envId)) {
    console.log(`note: ${envId} is not registered on this build (have: ${ids.join(", ")}); measuring Demo-v0 instead`);
    envId = "Demo-v0";
  }
  const echo = await startEcho();
  // Asynchronous on purpose: the echo server lives in this process and must keep serving meanwhile.
  // Lines of mode "progress" (the soak's) drive `onProgress` as they arrive; the others are the results.
  const py = (extra: string[], onProgress?: (done: number, total: number) => void): Promise<Record<string, unknown>[]> =>
    new Promise((resolve, reject) => {
      const pids = ["--server-pids", workerPids.join(","), "--echo-pid", String(process.pid)];
      const child = spawn(PY, ["bench/bridge/bench.py", "--address", endpoints[0], "--env", envId, "--info", info, "--options", options, ...shard, ...pids, ...extra], {
        cwd: repo,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let pending = "";
      let err = "";
      const results: Record<string, unknown>[] = [];
      const take = (line: string) => {
        if (!line.trim()) return;
        const msg = JSON.parse(line) as Record<string, unknown>;
        if (msg.mode === "progress") onProgress?.(msg.done as number, msg.total as number);
        else results.push(msg);
      };
      child.stdout.on("data", (d: Buffer) => {
        const lines = (pending + d.toString()).split("\n");
        pending = lines.pop() ?? "";
        lines.forEach(take);
      });
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("exit", (code) => {
        if (code !== 0) reject(new Error(`bench.py failed (${code}): ${err}`));
        else {
          take(pending);
          resolve(results);
        }
      });
    });
  try {
    console.log(`bridge benchmark: ${envId}, info=${info}, ${workers} server worker(s), ${seconds} s per cell, Python ${PY}`);
    const rows = await py(["--mode", "throughput", "--echo", echo.endpoint, "--seconds", seconds, "--batches", batches]);
    for (const r of rows) r.inprocess = inProcess(envId, r.batch as number, Number(seconds), JSON.parse(options) as Record<string, unknown>);
    const fmt = (x: number, d = 0) => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
    console.log("\n batch | bridge env-steps/s |  echo env-steps/s | bridge/echo | in-process env-steps/s | bridge/in-proc | bridge p50 / p99 ms | echo p50 / p99 ms | req B | resp B");
    console.log("-------|--------------------|-------------------|-------------|------------------------|----------------|---------------------|-------------------|-------|-------");
    for (const r of rows) {
      const b = r.bridge as Record<string, number>;
      const e = r.echo as Record<string, number>;
      console.log(
        `${String(r.batch).padStart(6)} | ${fmt(b.steps_per_s).padStart(18)} | ${fmt(e.steps_per_s).padStart(17)} | ${fmt(r.ratio as number, 2).padStart(11)} | ${fmt(r.inprocess as number).padStart(22)} | ${fmt(b.steps_per_s / (r.inprocess as number), 2).padStart(14)} | ${`${fmt(b.p50_ms, 3)} / ${fmt(b.p99_ms, 3)}`.padStart(19)} | ${`${fmt(e.p50_ms, 3)} / ${fmt(e.p99_ms, 3)}`.padStart(17)} | ${String(r.request_bytes).padStart(5)} | ${String(r.response_bytes).padStart(6)}`,
      );
    }
    // CPU per env-step (server processes + Python client), read from /proc: much less sensitive to a busy machine
    // than wall-clock throughput. The ceiling is what 2 fully used cores would give at that cost.
    console.log("\n batch | bridge CPU µs/env-step: server + client = total | 2-core ceiling | echo CPU µs: server + client = total | 2-core ceiling | ceiling ratio");
    console.log("-------|------------------------------------------------|----------------|--------------------------------------|----------------|--------------");
    for (const r of rows) {
      const b = r.bridge as Record<string, number>;
      const e = r.echo as Record<string, number>;
      const bt = b.server_cpu_us + b.client_cpu_us;
      const et = e.server_cpu_us + e.client_cpu_us;
      r.ceiling = { bridge: 2e6 / bt, echo: 2e6 / et };
      console.log(
        `${String(r.batch).padStart(6)} | ${`${fmt(b.server_cpu_us, 1)} + ${fmt(b.client_cpu_us, 1)} = ${fmt(bt, 1)}`.padStart(46)} | ${fmt(2e6 / bt).padStart(14)} | ${`${fmt(e.server_cpu_us, 1)} + ${fmt(e.client_cpu_us, 1)} = ${fmt(et, 1)}`.padStart(36)} | ${fmt(2e6 / et).padStart(14)} | ${fmt(et / bt, 2).padStart(12)}`,
      );
    }
    const rssBefore = workerPids.map(rssKb);
    const soakRun = async (label: string) => {
      const bar = new ProgressBar(Number(total), label, process.stderr, true, "env-steps", 10_000);
      bar.update(0);
      try {
        const soakArgs = ["--mode", "soak", "--total", total, "--batches", batches.split(",").at(-1)!];
        const [result] = await py(soakArgs, (done) => bar.update(Math.min(done, Number(total))));
        bar.update(Number(total));
        return result;
      } finally {
        bar.stop();
      }
    };
    const soak = await soakRun("soak 1/2");
    const rssAfter = workerPids.map(rssKb);
    // A second soak shows whether growth continues (a leak) or was warm-up (JIT, pools).
    const soak2 = await soakRun("soak 2/2");
    const rssAfter2 = workerPids.map(rssKb);
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    console.log(`\nsoak: ${fmt(soak.env_steps as number)} env-steps in ${fmt(soak.seconds as number, 1)} s (${fmt(soak.steps_per_s as number)} env-steps/s); again: ${fmt(soak2.steps_per_s as number)} env-steps/s`);
    console.log(`server RSS: before ${fmt(sum(rssBefore) / 1024, 1)} MiB, after 1st ${fmt(total === "0" ? 0 : Number(total))} env-steps ${fmt(sum(rssAfter) / 1024, 1)} MiB, after 2nd ${fmt(sum(rssAfter2) / 1024, 1)} MiB`);
    mkdirSync(path.join(repo, "bench/results"), { recursive: true });
    const out = path.join(repo, "bench/results", `bridge-${envId}-${info}-w${workers}.json`);
    writeFileSync(out, JSON.stringify({ envId, info, workers, rows, soak, soak2, rssKb: { before: rssBefore, after: rssAfter, after2: rssAfter2 } }, null, 2));
    console.log(`results: ${path.relative(repo, out)}`);
  } finally {
    echo.close();
    server.kill("SIGTERM");
    const code = await serverExit;
    if (code !== 0) console.error(`server exited with ${code} after SIGTERM`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
