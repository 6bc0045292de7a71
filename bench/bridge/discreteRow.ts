/** Issue 13's row of the bridge benchmark: ToolMaze's discrete mode in process and over the bridge (numpy client). */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { BenchPy } from "./benchPy.js";
import { type CellSettings, type InProcessSpeed, inProcess } from "./inProcess.js";
import { fmt } from "./table.js";

/**
 * Issue 13's workload: ToolMaze in the action-masked discrete mode, random valid actions (each env's drawn
 * uniformly among the slots its own mask allows, by the driver: in process here, by the Python client over the
 * bridge), batch 256 — the sync vector env in process against the bridge with the numpy client, whose
 * Dict(Box, MultiBinary) observations arrive packed (one array per key per batch).
 */
export async function discreteRow(py: BenchPy, cell: CellSettings, repo: string, echoEndpoint: string, seconds: string): Promise<void> {
  const id = "ToolMaze-v0";
  const opts = { actionMode: "discrete" };
  const batch = 256;
  console.log(`\n== ${id} discrete mode (issue 13): random valid actions, batch ${batch}, numpy client, packed observations ==`);
  let local: InProcessSpeed;
  try {
    // First passes, untimed, warm both sides up (JIT, the canonical suite's task levels): the cells at ~1k
    // env-steps/s are short enough that a cold start would otherwise weigh on whichever runs first.
    inProcess(cell, id, batch, 2, opts, true);
    local = inProcess(cell, id, batch, Number(seconds), opts, true);
  } catch (e) {
    console.log(`skipped: this build has no discrete mode (${(e as Error).message.split("\n")[0]})`);
    return;
  }
  const timed = ["--mode", "throughput", "--echo", echoEndpoint, "--seconds", seconds, "--batches", String(batch), "--masked"];
  const warm = ["--mode", "throughput", "--seconds", "2", "--batches", String(batch), "--masked", "--numpy"];
  await py(id, warm, undefined, JSON.stringify(opts));
  const [row] = await py(id, [...timed, "--numpy"], undefined, JSON.stringify(opts));
  // The same workload with per-env maps (lists, the client's default encoding): what packing saves, side by side.
  const [plain] = await py(id, timed, undefined, JSON.stringify(opts));
  const b = row.bridge as Record<string, number>;
  const e = row.echo as Record<string, number>;
  const p = plain.bridge as Record<string, number>;
  console.log(`in-process (SyncVectorEnv): ${fmt(local.stepsPerS)} env-steps/s (${fmt(local.cpuUs, 2)} CPU µs per env-step)`);
  console.log(
    `over the bridge, per-env maps (lists; column deltas on a minor-5 server): ${fmt(p.steps_per_s)} env-steps/s; ` +
      `server ${fmt(p.server_cpu_us, 2)} + ` +
      `client ${fmt(p.client_cpu_us, 2)} CPU µs per env-step; ${fmt(plain.response_bytes as number)} B per batch`,
  );
  const target = b.steps_per_s >= 1e5 ? "met" : `missed by ${fmt(1e5 / b.steps_per_s, 1)}×`;
  console.log(
    `over the bridge (numpy client): ${fmt(b.steps_per_s)} env-steps/s; bridge / in-process = ` +
      `${fmt(b.steps_per_s / local.stepsPerS, 2)} (target ≥ 0.80); target ≥ 100,000 env-steps/s: ${target}`,
  );
  console.log(
    `server CPU ${fmt(b.server_cpu_us, 2)} + client CPU ${fmt(b.client_cpu_us, 2)} µs per env-step; overhead over in-process ` +
      `${fmt(b.server_cpu_us - local.cpuUs, 2)} µs; response ${fmt(row.response_bytes as number)} B per batch; echo of the same bytes ` +
      `${fmt(e.rt_per_s, 0)} round trips/s`,
  );
  mkdirSync(path.join(repo, "bench/results"), { recursive: true });
  const file = path.join(repo, "bench/results", `bridge-${id}-discrete-numpy.json`);
  writeFileSync(file, JSON.stringify({ id, opts, batch, inprocess: local, row, plain }, null, 2));
}
