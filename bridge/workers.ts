/**
 * Multi-process serving. The supervisor forks N copies of `bridge/main`, each binding its own endpoint (worker i
 * on PORT+i / PATH.i) and stepping its own sessions on its own core. Nothing is proxied: clients connect to the
 * endpoints directly, and every worker's `hello` lists all of them so a client can shard a vector env across the
 * machine. Control messages (start, ready, peers, stop) use Node's IPC channel, not the data sockets.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Backend } from "./backend.js";
import { type ResolvedConfig, workerEndpoint } from "./config.js";
import { BridgeServer } from "./server.js";

type ToChild =
  | { type: "start"; index: number; count: number; endpoint: string; config: ResolvedConfig }
  | { type: "peers"; endpoints: string[] }
  | { type: "stop" };
type ToParent = { type: "ready"; index: number; endpoint: string; pid: number } | { type: "failed"; index: number; message: string };

export const WORKER_ENV = "RECOVERY_GYM_BRIDGE_WORKER";

function entryFile(): string {
  // Same extension as this module: `.ts` under tsx, `.js` when compiled.
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return fileURLToPath(new URL(`./main${ext}`, import.meta.url));
}

/**
 * Node flags for the workers. Running from TypeScript sources, the parent may have tsx through `--import tsx`
 * (inherited) or through tsx's register() API (as bin/recovery-gym.js does, which children do not inherit), so
 * the loader is added explicitly, by absolute URL so the working directory does not matter.
 */
function workerExecArgv(entry: string, semiSpaceMb: number): string[] {
  const inherited = process.execArgv;
  const heap = semiSpaceMb > 0 && !inherited.some((a) => a.startsWith("--max-semi-space-size")) ? [`--max-semi-space-size=${semiSpaceMb}`] : [];
  if (!entry.endsWith(".ts") || inherited.some((a) => a.includes("tsx"))) return [...inherited, ...heap];
  return [...inherited, ...heap, "--import", import.meta.resolve("tsx")];
}

export async function runSupervisor(
  cfg: ResolvedConfig,
  opts: { log: (line: string) => void; stop: Promise<unknown>; onListening?: (endpoints: string[], workerPids: number[]) => void },
): Promise<number> {
  const { log } = opts;
  const n = cfg.workers;
  const children: ChildProcess[] = [];
  const exits: Array<Promise<number>> = [];
  const endpoints: string[] = new Array(n).fill("");
  const pids: number[] = new Array(n).fill(0);
  let failed: string | null = null;
  const ready = new Promise<void>((resolve) => {
    let count = 0;
    for (let i = 0; i < n; i++) {
      const entry = entryFile();
      const child = fork(entry, [], { env: { ...process.env, [WORKER_ENV]: "1" }, execArgv: workerExecArgv(entry, cfg.semiSpaceMb), stdio: ["ignore", "inherit", "inherit", "ipc"] });
      children.push(child);
      exits.push(new Promise((res) => child.on("exit", (code, sig) => res(code ?? (sig ? 128 : 1)))));
      child.on("message", (m: ToParent) => {
        if (m.type === "ready") {
          endpoints[m.index] = m.endpoint;
          pids[m.index] = m.pid;
        }
        else failed ??= `worker ${m.index}: ${m.message}`;
        if (++count === n) resolve();
      });
      child.on("exit", () => {
        if (!endpoints[i]) {
          failed ??= `worker ${i} exited before listening`;
          if (++count === n) resolve();
        }
      });
      const msg: ToChild = { type: "start", index: i, count: n, endpoint: workerEndpoint(cfg.endpoint, i), config: cfg };
      child.send(msg);
    }
  });
  await ready;
  const stopAll = async (): Promise<number[]> => {
    for (const c of children) if (c.connected) c.send({ type: "stop" } satisfies ToChild);
    return Promise.all(exits);
  };
  if (failed) {
    log(`cannot start: ${failed}`);
    await stopAll();
    return 1;
  }
  for (const c of children) c.send({ type: "peers", endpoints } satisfies ToChild);
  log(`listening on ${endpoints.join(", ")} (${n} workers)`);
  opts.onListening?.(endpoints, pids);
  const why = await Promise.race([opts.stop, Promise.race(exits).then(() => "a worker exited")]);
  log(`${typeof why === "string" ? why : "stop"}: stopping ${n} workers`);
  const codes = await stopAll();
  log(`stopped (worker exit codes ${codes.join(", ")})`);
  return codes.every((c) => c === 0) && why !== "a worker exited" ? 0 : 1;
}

/** Body of a forked worker: waits for its orders on the IPC channel, serves, and stops gracefully. */
export function runWorkerChild(loadBackend: () => Promise<Backend>): void {
  let server: BridgeServer | null = null;
  let stopping: Promise<void> | null = null;
  const stop = (): void => {
    stopping ??= (async () => {
      if (server) await server.stop();
      process.exit(0);
    })();
  };
  // Ctrl-C reaches the whole process group; the supervisor also sends "stop". Either one triggers the same drain.
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.on("disconnect", stop);
  process.on("message", (m: ToChild) => {
    if (m.type === "start") {
      void (async () => {
        try {
          const backend = await loadBackend();
          server = new BridgeServer({
            endpoint: m.endpoint,
            backend,
            limits: m.config.limits,
            allowRemote: m.config.allowRemote,
            curve: m.config.curve,
            curveClients: m.config.curveClients,
            recordDir: m.config.recordDir,
            dataRoots: m.config.dataRoots,
            workerIndex: m.index,
            workerCount: m.count,
            log: (line) => process.stderr.write(`[bridge w${m.index}] ${line}\n`),
          });
          const ep = await server.start();
          process.send?.({ type: "ready", index: m.index, endpoint: ep, pid: process.pid } satisfies ToParent);
        } catch (e) {
          process.send?.({ type: "failed", index: m.index, message: (e as Error).message } satisfies ToParent);
          process.exit(1);
        }
      })();
    } else if (m.type === "peers") {
      server?.setPeerEndpoints(m.endpoints);
    } else if (m.type === "stop") {
      stop();
    }
  });
}
