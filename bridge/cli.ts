/**
 * `recovery-gym serve`: parses flags, loads the config, and runs one server in this process (`--workers 1`; in a
 * child node when this one lacks the configured young generation, see relaunch.ts) or a supervisor with N worker
 * processes, one endpoint each (ZeroMQ's "one socket per worker" pattern: clients shard across endpoints, so no
 * broker sits on the data path).
 */
import { renameSync, writeFileSync } from "node:fs";
import { curveKeyPair } from "zeromq";
import type { Backend } from "./backend.js";
import {
  BridgeConfigError,
  type BridgeConfig,
  configSchema,
  DEFAULT_ENDPOINT,
  loadConfigFile,
  resolveConfig,
  type ResolvedConfig,
} from "./config.js";
import { EndpointPolicyError } from "./endpoint.js";
import type { Limits } from "./protocol.js";
import { hasSemiSpaceFlag, launcherGone, launcherPid, needsRelaunch, relaunchServer } from "./relaunch.js";
import { BridgeServer } from "./server.js";
import { runSupervisor } from "./workers.js";
import { drainOnSignals, type FlagKind, parseCommandLine } from "../src/index.js";

export const SERVE_HELP = `Usage: recovery-gym serve [options]

Serve Recovery Gym environments over ZeroMQ (msgpack frames; see bridge/PROTOCOL.md).

Options:
  --endpoint URL           where to listen (default ${DEFAULT_ENDPOINT}); tcp://HOST:PORT or ipc://PATH.
                           With N workers, worker i listens on PORT+i (or PATH.i for ipc).
  --config FILE            JSON config (shape: configs/bridge.json); flags override it
  --workers N              worker processes, one per core by default; 1 = one server process, no supervisor
  --allow-remote           allow a non-loopback endpoint (requires --curve-keys when libzmq has CURVE)
  --curve-keys FILE        CURVE server keys, JSON {"publicKey","secretKey"} (Z85)
  --curve-clients FILE     admit only these CURVE client public keys (Z85, one per line)
  --record-dir DIR         allow make(record=true): trajectories go to DIR/<env>-<session>-<i>.jsonl
  --semi-space-mb N        V8 young-generation semi-space of each server process, MiB (default 64; 0 = V8's
                           default). Large batches step ~25% faster; costs up to ~3N MiB per worker. With
                           --workers 1 and node started without --max-semi-space-size, the server runs in a
                           child node given it (the ready file's workerPids); this process forwards signals
  --data-root DIR          env options naming files (reward specs, datasets) may only point inside DIR
                           (repeatable): regular files up to 64 MiB or directories, read asynchronously.
                           Default: the package's own configs/ (its presets), on every server
  --gen-curve-keys FILE    write a new CURVE key pair to FILE (mode 600) and exit
  --max-sessions N         sessions per worker (default 256)
  --max-envs-per-session N (default 4096)
  --max-total-envs N       envs per worker over all sessions (default 16384)
  --max-message-bytes N    largest request decoded; larger ones get MESSAGE_TOO_LARGE (default 64 MiB)
  --hard-message-bytes N   libzmq's cap: a larger frame drops the connection unanswered (default 256 MiB)
  --max-pending N          unanswered requests per client (default 1024)
  --idle-timeout-ms N      close sessions idle this long (default 600000)
  --reap-interval-ms N     how often idle sessions are looked for (default 5000)
  --send-hwm N             replies queued per client, in messages (default 2048); a client that does not read
                           until this many are queued has its replies dropped and its sessions closed (logged)
  --max-depth N            nesting of containers in a request (default 64)   [checked on the raw bytes,
  --max-map-keys N         entries of any one map in a request (default 10000)  before decoding]
  --max-array-length N     elements of any one array in a request (default 100000)
  --max-values N           values of every kind in one request (default 500000)
  --drain-ms N             on SIGINT/SIGTERM keep answering (SHUTTING_DOWN) this long before closing (default 250)
  --ready-file FILE        once listening, write {"endpoints", "pid", "workerPids"} as JSON to FILE (scripts);
                           rewritten with the new pid when a dead worker is restarted
  --quiet                  no log lines on stderr
  -h, --help               this text

A worker that dies is restarted on its endpoint (backoff 0.1 s doubling to 10 s while it keeps crashing); its
clients get SESSION_LOST for the sessions it held. The other workers are not touched.

Exit status: 0 after a graceful SIGINT/SIGTERM (always drained, recording sessions included); 2 on bad flags or
config; 1 if the server cannot start.
`;

const LIMIT_FLAGS: Record<string, keyof Limits> = {
  "max-sessions": "maxSessions",
  "max-envs-per-session": "maxEnvsPerSession",
  "max-total-envs": "maxTotalEnvs",
  "max-message-bytes": "maxMessageBytes",
  "max-pending": "maxPendingPerClient",
  "idle-timeout-ms": "idleTimeoutMs",
  "reap-interval-ms": "reapIntervalMs",
  "hard-message-bytes": "hardMessageBytes",
  "send-hwm": "sendHighWaterMark",
  "drain-ms": "drainMs",
  "max-depth": "maxDepth",
  "max-map-keys": "maxMapKeys",
  "max-array-length": "maxArrayLength",
  "max-values": "maxValues",
};

export interface ServeDeps {
  /** Where the env implementations come from; the library's registry by default. */
  loadBackend?: () => Promise<Backend>;
  out?: (s: string) => void;
  err?: (s: string) => void;
  /** Resolves when the server should stop (tests); by default the first SIGINT or SIGTERM. */
  stopSignal?: Promise<unknown>;
  /** Called once the server (or all workers) listen, with the endpoints. */
  onListening?: (endpoints: string[], workerPids: number[]) => void;
  /**
   * Whether `--workers 1` may serve from a child node started with `--max-semi-space-size` when this process lacks
   * it (bridge/relaunch.ts). Default: when the server stops on this process's signals (no `stopSignal`), i.e. the
   * process is the server's own; the other deps cannot cross into a child.
   */
  relaunch?: boolean;
}

interface Parsed {
  help: boolean;
  quiet: boolean;
  genKeys: string | null;
  readyFile: string | null;
  configFile: string | null;
  overrides: Partial<BridgeConfig>;
  limits: Partial<Limits>;
}

const SERVE_FLAGS: Readonly<Record<string, FlagKind>> = {
  help: "boolean",
  quiet: "boolean",
  "allow-remote": "boolean",
  "ready-file": "string",
  endpoint: "string",
  config: "string",
  workers: "string",
  "curve-keys": "string",
  "curve-clients": "string",
  "record-dir": "string",
  "semi-space-mb": "string",
  "data-root": "list",
  "gen-curve-keys": "string",
  ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((f) => [f, "string"])),
};

function parseArgs(argv: string[]): Parsed {
  const args = parseCommandLine(argv, {
    command: "",
    flags: SERVE_FLAGS,
    short: { h: "help" },
    opt: false,
    accepted: "see --help",
    error: (field, message) => new BridgeConfigError(field, message),
  });
  if (args.positionals.length > 0)
    throw new BridgeConfigError(args.positionals[0], `unexpected argument '${args.positionals[0]}' (see --help)`);
  const str = (name: string): string | null => {
    const v = args.flags[name];
    return typeof v === "string" ? v : null;
  };
  const int = (name: string): number | undefined => {
    const v = str(name);
    if (v === null) return undefined;
    if (!/^[0-9]+$/.test(v)) throw new BridgeConfigError(`--${name}`, `--${name} must be a non-negative integer, got '${v}'`);
    return Number(v);
  };
  const p: Parsed = {
    help: args.flags.help === true,
    quiet: args.flags.quiet === true,
    genKeys: str("gen-curve-keys"),
    readyFile: str("ready-file"),
    configFile: str("config"),
    overrides: {},
    limits: {},
  };
  const o = p.overrides;
  const endpoint = str("endpoint");
  if (endpoint !== null) o.endpoint = endpoint;
  const curveKeys = str("curve-keys");
  if (curveKeys !== null) o.curveKeys = curveKeys;
  const curveClients = str("curve-clients");
  if (curveClients !== null) o.curveClients = curveClients;
  const recordDir = str("record-dir");
  if (recordDir !== null) o.recordDir = recordDir;
  const workers = int("workers");
  if (workers !== undefined) {
    if (workers < 1) throw new BridgeConfigError("--workers", "--workers must be at least 1");
    o.workers = workers;
  }
  if (args.flags["allow-remote"] === true) o.allowRemote = true;
  const semiSpace = int("semi-space-mb");
  if (semiSpace !== undefined) o.semiSpaceMb = semiSpace;
  if (args.lists["data-root"]) o.dataRoots = args.lists["data-root"];
  for (const [flag, key] of Object.entries(LIMIT_FLAGS)) {
    const n = int(flag);
    if (n !== undefined) p.limits[key] = n;
  }
  return p;
}

/** What `--ready-file` holds once the server listens (one JSON line). */
export interface ReadyFile {
  endpoints: string[];
  /** The process that was started, and the one to signal (a relaunched server's launcher). */
  pid: number;
  /** The processes that step envs: the forked workers, or the relaunched server, or `pid` itself. */
  workerPids: number[];
}

/** Written whole (temp file + rename) so a script polling it never reads half a file. */
function writeReadyFile(file: string, endpoints: string[], workerPids: number[]): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const ready: ReadyFile = { endpoints, pid: launcherPid() ?? process.pid, workerPids };
  writeFileSync(tmp, `${JSON.stringify(ready)}\n`);
  renameSync(tmp, file);
}

async function defaultBackend(): Promise<Backend> {
  const mod = await import("./coreBackend.js");
  return mod.createCoreBackend();
}

/** Entry point of `recovery-gym serve`; resolves with the process exit code. */
export async function serveCommand(argv: string[], deps: ServeDeps = {}): Promise<number> {
  const out = deps.out ?? ((s: string) => process.stdout.write(s));
  const err = deps.err ?? ((s: string) => process.stderr.write(s));
  let parsed: Parsed;
  let cfg: ResolvedConfig;
  try {
    parsed = parseArgs(argv);
    if (parsed.help) {
      out(SERVE_HELP);
      return 0;
    }
    if (parsed.genKeys) {
      const keys = curveKeyPair();
      writeFileSync(parsed.genKeys, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
      out(
        `wrote CURVE key pair to ${parsed.genKeys} (public key ${keys.publicKey})\n` +
          `as the server's keys: --curve-keys ${parsed.genKeys}; clients then need this public key\n` +
          `as a client's keys: list the public key in the server's --curve-clients file\n`,
      );
      return 0;
    }
    const base = parsed.configFile ? loadConfigFile(parsed.configFile) : configSchema.parse({});
    const merged = configSchema.safeParse({ ...base, ...parsed.overrides, limits: { ...base.limits, ...parsed.limits } });
    if (!merged.success) {
      const i = merged.error.issues[0];
      throw new BridgeConfigError(i?.path.join(".") ?? "(flags)", `invalid option ${i?.path.join(".")}: ${i?.message}`);
    }
    cfg = resolveConfig(merged.data);
  } catch (e) {
    if (e instanceof BridgeConfigError) {
      err(`recovery-gym serve: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  // The child parses the same flags again and does all the logging, so its output is what this process would print.
  if (cfg.workers === 1 && (deps.relaunch ?? deps.stopSignal === undefined) && needsRelaunch(cfg.semiSpaceMb)) {
    return relaunchServer(argv, cfg.semiSpaceMb, err);
  }
  const log = parsed.quiet ? () => {} : (line: string) => err(`[bridge] ${line}\n`);
  if (cfg.allowRemote && cfg.curve && !cfg.curveClients) {
    log("CURVE encrypts but admits any client holding the server's public key; pass --curve-clients FILE to admit only listed client keys");
  }
  // SIGINT/SIGTERM always drain and exit 0, whatever sessions (recording ones included) exist; a repeated signal
  // during the drain is logged, not obeyed.
  const signals = deps.stopSignal ? null : drainOnSignals((sig) => log(`${sig} again: still draining`));
  const stop = deps.stopSignal ?? Promise.race([signals!.stopped, launcherGone()]);
  const loadBackend = deps.loadBackend ?? defaultBackend;
  const readyFile = parsed.readyFile;
  const onListening = (endpoints: string[], workerPids: number[]): void => {
    if (readyFile) writeReadyFile(readyFile, endpoints, workerPids);
    deps.onListening?.(endpoints, workerPids);
  };
  // After a worker restart the ready file lists the new pid (scripts that signal workers find the live one).
  let listed: string[] = [];
  const onRestart = (_index: number, workerPids: number[]): void => {
    if (readyFile) writeReadyFile(readyFile, listed, workerPids);
  };

  try {
    if (cfg.workers > 1) {
      return await runSupervisor(cfg, { log, stop, onListening: (e, p) => onListening((listed = e), p), onRestart });
    }
    return await serveInProcess(cfg, loadBackend, log, err, stop, onListening);
  } finally {
    signals?.dispose();
  }
}

async function serveInProcess(
  cfg: ResolvedConfig,
  loadBackend: () => Promise<Backend>,
  log: (line: string) => void,
  err: (s: string) => void,
  stop: Promise<unknown>,
  onListening: (endpoints: string[], workerPids: number[]) => void,
): Promise<number> {
  let server: BridgeServer;
  try {
    const backend = await loadBackend();
    server = new BridgeServer({
      endpoint: cfg.endpoint,
      backend,
      limits: cfg.limits,
      allowRemote: cfg.allowRemote,
      curve: cfg.curve,
      curveClients: cfg.curveClients,
      recordDir: cfg.recordDir,
      dataRoots: cfg.dataRoots,
      log,
    });
    await server.start();
  } catch (e) {
    err(`recovery-gym serve: ${(e as Error).message}\n`);
    return e instanceof EndpointPolicyError ? 2 : 1;
  }
  log(`listening on ${server.endpoint} (1 worker, pid ${process.pid})`);
  if (cfg.semiSpaceMb > 0 && !hasSemiSpaceFlag()) {
    // Not relaunched (an embedding caller, or Windows): V8 sized this heap at startup and cannot resize it now.
    log(
      `--semi-space-mb ${cfg.semiSpaceMb} cannot apply to this process, which steps its envs with V8's default young ` +
        `generation (large batches: more scavenging per step): start node with --max-semi-space-size=${cfg.semiSpaceMb}`,
    );
  }
  onListening([server.endpoint], [process.pid]);
  const why = await stop;
  log(`${typeof why === "string" ? why : "stop"}: draining and closing ${server.sessions.size} session(s)`);
  await server.stop();
  log("stopped");
  return 0;
}
