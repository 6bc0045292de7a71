/**
 * Multi-process serving. The supervisor forks N copies of `bridge/main`, each binding its own endpoint (worker i
 * on PORT+i / PATH.i) and stepping its own sessions on its own core. Nothing is proxied: clients connect to the
 * endpoints directly, and every worker's `hello` lists all of them so a client can shard a vector env across the
 * machine. Control messages (start, ready, peers, stop) use Node's IPC channel, not the data sockets.
 *
 * A worker that dies after startup is restarted on the endpoint it had bound, with a new generation number; the
 * other workers and their sessions are untouched. The new process knows its generation, so a request about a
 * session of an earlier generation gets SESSION_LOST instead of UNKNOWN_SESSION. Crashes in a row back off.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Backend } from "./backend.js";
import { type ResolvedConfig, workerEndpoint } from "./config.js";
import { BridgeServer } from "./server.js";
import { drainOnSignals } from "../src/index.js";

type ToChild =
  | { type: "start"; index: number; count: number; generation: number; endpoint: string; config: ResolvedConfig }
  | { type: "peers"; endpoints: string[] }
  | { type: "stop" };
type ToParent = { type: "ready"; index: number; endpoint: string; pid: number } | { type: "failed"; index: number; message: string };

export const WORKER_ENV = "RECOVERY_GYM_BRIDGE_WORKER";

/** Restart delays after consecutive crashes of one worker: 100 ms, doubling, at most 10 s. */
export const RESTART_BACKOFF = { firstMs: 100, maxMs: 10_000, stableAfterMs: 30_000 } as const;

/** How long a worker that exited cleanly (code 0) stays down before it is restarted, unless the server is stopping. */
const CLEAN_EXIT_GRACE_MS = 1_000;

/** The delay before restarting a worker that crashed `crashesInARow` times without staying up `stableAfterMs`. */
export function restartDelay(crashesInARow: number): number {
  return Math.min(RESTART_BACKOFF.maxMs, RESTART_BACKOFF.firstMs * 2 ** Math.max(0, crashesInARow - 1));
}

/** The program a server process runs (`main`): forked workers, and the relaunched `--workers 1` server. */
export function entryFile(): string {
  // Same extension as this module: `.ts` under tsx, `.js` when compiled.
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return fileURLToPath(new URL(`./main${ext}`, import.meta.url));
}

/**
 * Node flags for a server process (a worker, or the relaunched `--workers 1` server): this process's own, plus
 * `--max-semi-space-size` unless they already size the young generation. Running from TypeScript sources, the
 * parent may have tsx through `--import tsx` (inherited) or through tsx's register() API (as bin/recovery-gym.js
 * does, which children do not inherit), so the loader is added explicitly, by absolute URL so the working directory
 * does not matter.
 */
export function workerExecArgv(entry: string, semiSpaceMb: number): string[] {
  const inherited = process.execArgv;
  const heap =
    semiSpaceMb > 0 && !inherited.some((a) => a.startsWith("--max-semi-space-size")) ? [`--max-semi-space-size=${semiSpaceMb}`] : [];
  if (!entry.endsWith(".ts") || inherited.some((a) => a.includes("tsx"))) return [...inherited, ...heap];
  return [...inherited, ...heap, "--import", import.meta.resolve("tsx")];
}

interface Slot {
  index: number;
  /** The configured endpoint until the first start, then the one actually bound (restarts reuse its port). */
  endpoint: string;
  child: ChildProcess | null;
  pid: number;
  generation: number;
  startedAt: number;
  crashesInARow: number;
  restartTimer: NodeJS.Timeout | null;
  exited: Promise<number>;
}

export interface SupervisorOptions {
  log: (line: string) => void;
  stop: Promise<unknown>;
  onListening?: (endpoints: string[], workerPids: number[]) => void;
  /** A worker was restarted after dying (pids lists every worker's current pid). */
  onRestart?: (index: number, workerPids: number[]) => void;
}

/** Runs N workers until `stop` resolves; resolves 0 after a graceful stop, 1 when the workers could not start. */
export async function runSupervisor(cfg: ResolvedConfig, opts: SupervisorOptions): Promise<number> {
  const { log } = opts;
  const n = cfg.workers;
  let stopping = false;
  const slots: Slot[] = Array.from({ length: n }, (_, i) => ({
    index: i,
    endpoint: workerEndpoint(cfg.endpoint, i),
    child: null,
    pid: 0,
    generation: 0,
    startedAt: 0,
    crashesInARow: 0,
    restartTimer: null,
    exited: Promise.resolve(0),
  }));
  const endpoints = (): string[] => slots.map((s) => s.endpoint);
  const pids = (): number[] => slots.map((s) => s.pid);

  /** Forks the worker of `slot`; resolves with null once it listens, or with why it could not start. */
  const launch = (slot: Slot): Promise<string | null> => {
    const entry = entryFile();
    const child = fork(entry, [], {
      env: { ...process.env, [WORKER_ENV]: "1" },
      execArgv: workerExecArgv(entry, cfg.semiSpaceMb),
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    slot.child = child;
    slot.startedAt = performance.now();
    slot.exited = new Promise((res) => child.on("exit", (code, sig) => res(code ?? (sig ? 128 : 1))));
    const started = new Promise<string | null>((resolve) => {
      child.on("message", (m: ToParent) => {
        if (m.type === "ready") {
          slot.endpoint = m.endpoint;
          slot.pid = m.pid;
          resolve(null);
        } else resolve(`worker ${m.index}: ${m.message}`);
      });
      child.on("exit", (code, sig) => {
        resolve(`worker ${slot.index} exited before listening (${sig ?? `code ${code}`})`);
        if (slot.child === child) onDeath(slot, code, sig);
      });
    });
    const start: ToChild = {
      type: "start",
      index: slot.index,
      count: n,
      generation: slot.generation,
      endpoint: slot.endpoint,
      config: cfg,
    };
    child.send(start);
    return started;
  };

  let listening = false;
  const onDeath = (slot: Slot, code: number | null, sig: NodeJS.Signals | null): void => {
    slot.child = null;
    if (stopping || !listening) return;
    if (performance.now() - slot.startedAt >= RESTART_BACKOFF.stableAfterMs) slot.crashesInARow = 0;
    slot.crashesInARow++;
    // A clean exit is a worker that drained on its own SIGINT/SIGTERM: with Ctrl-C the whole process group gets
    // it, and the supervisor's own handler stops everything a moment later, so give that a second first.
    const delay = code === 0 ? Math.max(CLEAN_EXIT_GRACE_MS, restartDelay(slot.crashesInARow)) : restartDelay(slot.crashesInARow);
    const how = sig ?? `exit code ${code}`;
    const why = `(pid ${slot.pid}) ${code === 0 ? "exited" : "died"} (${how}); its sessions are lost; restarting on ${slot.endpoint}`;
    if (code !== 0) log(`worker ${slot.index} ${why} in ${delay} ms (crash ${slot.crashesInARow} in a row)`);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      if (stopping) return;
      if (code === 0) log(`worker ${slot.index} ${why} (it stopped without the supervisor)`);
      slot.generation++;
      void launch(slot).then((failure) => {
        if (stopping) return;
        if (failure !== null) {
          // A child that exited is rescheduled by onDeath; one that reported failure is stopped first.
          log(`restart of worker ${slot.index} failed: ${failure}`);
          slot.child?.kill("SIGKILL");
          return;
        }
        slot.child?.send({ type: "peers", endpoints: endpoints() } satisfies ToChild);
        log(`worker ${slot.index} restarted (pid ${slot.pid}, generation ${slot.generation})`);
        opts.onRestart?.(slot.index, pids());
      });
    }, delay);
  };

  const stopAll = async (): Promise<number[]> => {
    stopping = true;
    for (const s of slots) {
      if (s.restartTimer) clearTimeout(s.restartTimer);
      if (s.child?.connected) s.child.send({ type: "stop" } satisfies ToChild);
    }
    return Promise.all(slots.map((s) => s.exited));
  };

  const failures = (await Promise.all(slots.map(launch))).filter((f): f is string => f !== null);
  if (failures.length) {
    log(`cannot start: ${failures[0]}`);
    await stopAll();
    return 1;
  }
  listening = true;
  for (const s of slots) s.child?.send({ type: "peers", endpoints: endpoints() } satisfies ToChild);
  log(`listening on ${endpoints().join(", ")} (${n} workers)`);
  opts.onListening?.(endpoints(), pids());
  const why = await opts.stop;
  log(`${typeof why === "string" ? why : "stop"}: stopping ${n} workers`);
  const codes = await stopAll();
  log(`stopped (worker exit codes ${codes.join(", ")})`);
  return 0;
}

/** Body of a forked worker: waits for its orders on the IPC channel, serves, and stops gracefully. */
export function runWorkerChild(loadBackend: () => Promise<Backend>): void {
  let server: BridgeServer | null = null;
  let stopping = false;
  // Ctrl-C reaches the whole process group; the supervisor also sends "stop". Either one triggers the same drain.
  const signals = drainOnSignals();
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      if (server) await server.stop();
      signals.dispose();
      process.exit(0);
    })();
  };
  void signals.stopped.then(stop);
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
            generation: m.generation,
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
