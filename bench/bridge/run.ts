/**
 * Bridge benchmark: per env id, env-steps/s over tcp loopback with the Python client at batch 1/8/64/256, beside
 * the same vector env in this process and a raw pyzmq <-> zeromq.js msgpack echo of the same request/response bytes;
 * lockstep latency p50/p99; the server's CPU per env-step over the env's own (the bridge overhead), and over the same
 * env in process paused before each batch as long as the server waited per round trip; and, with --total N, the
 * server's RSS before and after N env-steps.
 *
 *   node --import tsx bench/bridge/run.ts [--envs ToolMaze-v0,Demo-v0] [--seconds 3] [--total 1000000] [--info all|none]
 *                                          [--workers 1] [--options '{"complexity":"C1"}'] [--batches 1,8,64,256] [--warmup 1]
 * With --workers N > 1 the Python client shards each vector env over all N worker processes. `--env X` is `--envs X`.
 * `--discrete-only`: only issue 13's ToolMaze discrete row (bench/discrete.ts runs it so). `--scaling-only`: only issue
 * 19's Demo-v0 row, 2 workers × 2 client sessions beside 1 × 1 (`--no-scaling` skips it in a full run).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BridgeClient } from "../../bridge/client.js";
import { benchPy } from "./benchPy.js";
import { discreteRow } from "./discreteRow.js";
import { startEcho } from "./echo.js";
import { bridgeAlone, inProcess, lockstepCeiling, lockstepPauseMs } from "./inProcess.js";
import { readRunOptions } from "./options.js";
import { scalingRow } from "./scaling.js";
import { soak } from "./soak.js";
import { fmt, printTable } from "./table.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const argv = process.argv.slice(2);
const run = readRunOptions(argv);
const { envIds, seconds, total, info, workers, options, batches, discreteOnly, scalingOnly, python: PY } = run;

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(tmpdir(), "rg-bench-"));
  const ready = path.join(tmp, "ready.json");
  // `--workers 1` serves in the server's own process, which forks no worker and so never gets the workers'
  // `--max-semi-space-size` (bridge/workers.ts): without this flag it stepped its envs with V8's default young generation
  // while the in-process cells used 64 MiB, and the overhead column counted the extra scavenging as bridge cost.
  const server = spawn(
    process.execPath,
    [
      SEMI_SPACE,
      "--import",
      "tsx",
      "bridge/main.ts",
      "--endpoint",
      "tcp://127.0.0.1:*",
      "--workers",
      workers,
      "--ready-file",
      ready,
      "--quiet",
    ],
    {
      cwd: repo,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const serverExit = new Promise<number>((r) => server.on("exit", (c) => r(c ?? 1)));
  for (let i = 0; i < 300 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 100));
  const { endpoints, workerPids } = JSON.parse(readFileSync(ready, "utf8")) as { endpoints: string[]; workerPids: number[] };
  const probe = new BridgeClient(endpoints[0]);
  const { env_ids: ids } = await probe.request<{ env_ids: string[] }>("hello", { versions: [1] });
  await probe.close();
  const missing = envIds.filter((id) => !ids.includes(id));
  if (missing.length) console.log(`note: not registered on this build, skipped: ${missing.join(", ")} (have: ${ids.join(", ")})`);
  const echo = await startEcho();
  const py = benchPy({ repo, python: PY, endpoint: endpoints[0], workerPids, info, options, shard: run.shard, warmupS: run.warmupS });
  const parts = (r: Record<string, unknown>) => ({
    b: r.bridge as Record<string, number>,
    e: r.echo as Record<string, number>,
    ip: r.inprocess as { stepsPerS: number; cpuUs: number },
  });
  const summary: string[][] = [];
  try {
    console.log(
      `bridge benchmark: ${envIds.length} env id(s), info=${info}, ${workers} server worker(s), ${seconds} s per cell, ` + `Python ${PY}`,
    );
    for (const envId of envIds.filter((id) => ids.includes(id))) {
      const rows = await py(envId, ["--mode", "throughput", "--echo", echo.endpoint, "--seconds", seconds, "--batches", batches]);
      const opts = JSON.parse(options) as Record<string, unknown>;
      for (const r of rows) r.inprocess = inProcess(run, envId, r.batch as number, Number(seconds), opts);
      const largest = batches.split(",").at(-1) as string;
      console.log(`\n-- ${envId} --`);
      const wall = [
        "batch",
        "bridge env-steps/s",
        "echo env-steps/s",
        "bridge/echo",
        "in-process env-steps/s",
        "bridge/in-proc",
        "bridge p50 / p99 ms",
        "echo p50 / p99 ms",
        "req B",
        "resp B",
      ];
      printTable(
        wall,
        rows.map((r) => {
          const { b, e, ip } = parts(r);
          return [
            String(r.batch),
            fmt(b.steps_per_s),
            fmt(e.steps_per_s),
            fmt(r.ratio as number, 2),
            fmt(ip.stepsPerS),
            fmt(b.steps_per_s / ip.stepsPerS, 2),
            `${fmt(b.p50_ms, 3)} / ${fmt(b.p99_ms, 3)}`,
            `${fmt(e.p50_ms, 3)} / ${fmt(e.p99_ms, 3)}`,
            String(r.request_bytes),
            String(r.response_bytes),
          ];
        }),
      );
      // CPU per env-step (server processes + Python client), read from /proc: much less sensitive to a busy machine
      // than wall-clock throughput. The ceiling is what 2 fully used cores would give at that cost. The overhead is
      // the server's CPU per env-step beyond the same env's own CPU per env-step in process (sampling + step).
      const cpu = [
        "batch",
        "in-proc CPU µs",
        "bridge CPU µs/env-step: server + client = total",
        "overhead µs",
        "2-core ceiling",
        "echo CPU µs: server + client = total",
        "echo round trips/s",
      ];
      console.log("");
      printTable(
        cpu,
        rows.map((r) => {
          const { b, e, ip } = parts(r);
          const bt = b.server_cpu_us + b.client_cpu_us;
          const et = e.server_cpu_us + e.client_cpu_us;
          const overhead = b.server_cpu_us - ip.cpuUs;
          r.ceiling = { bridge: 2e6 / bt, echo: 2e6 / et };
          r.overheadUs = overhead;
          summary.push([
            envId,
            String(r.batch),
            fmt(ip.stepsPerS),
            fmt(b.steps_per_s),
            fmt(b.steps_per_s / ip.stepsPerS, 2),
            fmt(lockstepCeiling(r.batch as number, ip.stepsPerS, e.rt_per_s), 2),
            fmt(overhead, 2),
            fmt(e.rt_per_s),
            fmt(b.steps_per_s / (r.batch as number)),
          ]);
          return [
            String(r.batch),
            fmt(ip.cpuUs, 2),
            `${fmt(b.server_cpu_us, 1)} + ${fmt(b.client_cpu_us, 1)} = ${fmt(bt, 1)}`,
            fmt(overhead, 2),
            fmt(2e6 / bt),
            `${fmt(e.server_cpu_us, 1)} + ${fmt(e.client_cpu_us, 1)} = ${fmt(et, 1)}`,
            fmt(e.rt_per_s),
          ];
        }),
      );
      const alone = bridgeAlone(info, envId, Number(largest), opts);
      (rows.at(-1) as Record<string, unknown>).bridgeAloneUs = alone;
      console.log(`bridge alone (replayed steps, no sockets), batch ${largest}: ${fmt(alone, 2)} CPU µs per env-step`);
      (summary.at(-1) as string[]).push(fmt(alone, 2));
      const last = rows.at(-1) as Record<string, unknown>;
      const pauseMs = lockstepPauseMs(last.bridge as Record<string, number>, Number(largest));
      const paused = inProcess(run, envId, Number(largest), Number(seconds), opts, false, pauseMs);
      const lockstepOverhead = (last.bridge as Record<string, number>).server_cpu_us - paused.cpuUs;
      last.inprocessPaused = { ...paused, pauseMs };
      console.log(
        `in-process, each batch after the server's idle time per round trip (${fmt(pauseMs, 2)} ms), batch ${largest}: ` +
          `${fmt(paused.cpuUs, 2)} CPU µs per env-step; server CPU over it ${fmt(lockstepOverhead, 2)} µs per env-step`,
      );
      (summary.at(-1) as string[]).push(fmt(paused.cpuUs, 2), fmt(lockstepOverhead, 2));
      let soakInfo: Record<string, unknown> = {};
      if (Number(total) > 0) soakInfo = await soak(py, envId, workerPids, total, batches);
      mkdirSync(path.join(repo, "bench/results"), { recursive: true });
      const out = path.join(repo, "bench/results", `bridge-${envId}-${info}-w${workers}.json`);
      writeFileSync(out, JSON.stringify({ envId, info, workers, rows, ...soakInfo }, null, 2));
      console.log(`results: ${path.relative(repo, out)}`);
    }
    if (discreteOnly) {
      await discreteRow(py, run, repo, echo.endpoint, seconds);
      return;
    }
    if (scalingOnly) {
      await scalingRow(repo, PY, Number(seconds));
      return;
    }
    console.log(
      "\n== bridge vs in-process, side by side (overhead: server CPU µs per env-step beyond the env's own; " +
        "echo: raw zeromq + msgpack, same bytes) ==",
    );
    printTable(
      [
        "env",
        "batch",
        "in-process env-steps/s",
        "bridge env-steps/s",
        "bridge/in-proc",
        "lockstep ceiling",
        "overhead µs/env-step",
        "echo round trips/s",
        "bridge round trips/s",
        "bridge alone µs",
        "in-proc paused CPU µs",
        "overhead over paused µs",
      ],
      summary,
    );
    if (Number(total) === 0) console.log("(RSS soak skipped; pass --total 1000000 to run it)");
    if (!run.noScaling) await scalingRow(repo, PY, Number(seconds));
    if (!run.noDiscrete) await discreteRow(py, run, repo, echo.endpoint, seconds);
  } finally {
    echo.close();
    server.kill("SIGTERM");
    const code = await serverExit;
    if (code !== 0) console.error(`server exited with ${code} after SIGTERM`);
  }
}

// The workers run with a 64 MiB young generation (bridge/config.ts, `semiSpaceMb`); the in-process cells must run with
// the same, or the overhead column compares the bridge against another GC setting (ToolMaze-v0, quiet: 22 vs 12 CPU µs
// per env-step). Without the flag, this script runs itself again with it.
const SEMI_SPACE = "--max-semi-space-size=64";
if (process.execArgv.some((a) => a.startsWith("--max-semi-space-size"))) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
} else {
  const child = spawnSync(process.execPath, [...process.execArgv, SEMI_SPACE, fileURLToPath(import.meta.url), ...argv], {
    stdio: "inherit",
  });
  process.exitCode = child.status ?? 1;
}
