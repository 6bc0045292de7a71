/** Runs `bench/bridge/bench.py` (the Python client's side of a cell) and gathers its JSON lines. */
import { spawn } from "node:child_process";

/** Called with each progress line of a soak: env-steps done of the total. */
export type Progress = (done: number, total: number) => void;

/** One bench.py run on `envId` with extra flags; `opts` (JSON) defaults to the command line's `--options`. */
export type BenchPy = (envId: string, extra: string[], onProgress?: Progress, opts?: string) => Promise<Record<string, unknown>[]>;

export interface BenchPyTarget {
  repo: string;
  python: string;
  endpoint: string;
  /** The server's worker processes (bench.py reads their CPU time from /proc). */
  workerPids: readonly number[];
  info: string;
  options: string;
  shard: readonly string[];
  warmupS: number;
}

/**
 * Asynchronous on purpose: the echo server lives in this process and must keep serving meanwhile.
 * Lines of mode "progress" (the soak's) drive `onProgress` as they arrive; the others are the results.
 */
export function benchPy(t: BenchPyTarget): BenchPy {
  return (envId, extra, onProgress, opts = t.options) =>
    new Promise((resolve, reject) => {
      const pids = ["--server-pids", t.workerPids.join(","), "--echo-pid", String(process.pid)];
      const warm = ["--warmup", String(t.warmupS)];
      const args = ["--address", t.endpoint, "--env", envId, "--info", t.info, "--options", opts, ...t.shard, ...pids, ...warm, ...extra];
      const child = spawn(t.python, ["bench/bridge/bench.py", ...args], {
        cwd: t.repo,
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
}
