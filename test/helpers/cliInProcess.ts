// The recovery-gym CLI run inside the vitest worker: `main(argv)` of the TypeScript sources, with stdout and stderr
// captured, as the bin script would run it in a child. A child costs about a CPU-second of node start-up and
// tsx compiling before the command does anything, some fifty times over in the suite; tests of the process boundary
// itself (signals, `serve`, the bin's dist/source choice) still start one with cliArgv and cliEnv (cli.ts). No stdin.
//
// What a command may change in this process is put back after each run, so the next test sees what a fresh child
// would: the output streams, process.env, the working directory, process.exitCode, the env registry. Signal
// handlers a command leaves installed are removed and fail the run: commands must dispose what they install
// (src/cli/signals.ts), and a child that exits would hide the leak.
import { registrySnapshot, restoreRegistry } from "../../src/core/registry.js";
import type { RunResult } from "./cli.js";

export interface InProcessOptions {
  /** Working directory during the run (process.chdir, put back afterwards). */
  cwd: string;
  /** process.env during the run, in full (keys not in it are absent), as a child's environment would be. */
  env: NodeJS.ProcessEnv;
}

type Callback = (err?: Error | null) => void;
const WATCHED_SIGNALS = ["SIGINT", "SIGTERM"] as const;

// Runs are serialised: two at once would interleave their captured output.
let queue: Promise<unknown> = Promise.resolve();

/** Runs `recovery-gym ...args` in this process; resolves like a child's run (a thrown error is exit 1 and a stack). */
export function runMain(args: readonly string[], options: InProcessOptions): Promise<RunResult> {
  if (args[0] === "serve") throw new Error("runCli: `serve` runs until signalled; start it in a child (cliArgv, cliEnv)");
  const result = queue.then(() => runOnce(args, options));
  queue = result.catch(() => {});
  return result;
}

async function runOnce(args: readonly string[], { cwd, env }: InProcessOptions): Promise<RunResult> {
  // Loaded on first use: files that never run the CLI do not load its command modules.
  const { main } = await import("../../src/cli/main.js");
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const listeners = WATCHED_SIGNALS.map((sig) => new Set(process.listeners(sig)));
  const exitCode = process.exitCode;
  const registry = registrySnapshot();
  const restoreEnv = replaceEnv(env);
  const previousCwd = process.cwd();
  process.chdir(cwd);
  const restoreOut = capture(process.stdout, stdout);
  const restoreErr = capture(process.stderr, stderr);
  let status: number;
  try {
    status = await main(args);
  } catch (e) {
    // As node reports an uncaught error from the bin's top-level await: the stack on stderr, exit 1.
    stderr.push(Buffer.from(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`));
    status = 1;
  } finally {
    restoreErr();
    restoreOut();
    process.chdir(previousCwd);
    restoreEnv();
    restoreRegistry(registry);
    process.exitCode = exitCode;
  }
  const leaked = WATCHED_SIGNALS.flatMap((sig, i) => {
    const added = process.listeners(sig).filter((l) => !listeners[i]?.has(l));
    for (const l of added) process.removeListener(sig, l);
    return added.length > 0 ? [sig] : [];
  });
  if (leaked.length > 0) throw new Error(`recovery-gym ${args.join(" ")}: left ${leaked.join(", ")} handler(s) installed`);
  return { status, signal: null, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") };
}

/** Sends a stream's writes to `sink` until the returned function is called; the stream reads as a pipe (no TTY). */
function capture(stream: NodeJS.WriteStream, sink: Buffer[]): () => void {
  const write = Object.getOwnPropertyDescriptor(stream, "write");
  const isTTY = Object.getOwnPropertyDescriptor(stream, "isTTY");
  const captured = (chunk: string | Uint8Array, encoding?: BufferEncoding | Callback, cb?: Callback): boolean => {
    const enc = typeof encoding === "string" ? encoding : "utf8";
    sink.push(typeof chunk === "string" ? Buffer.from(chunk, enc) : Buffer.from(chunk));
    const done = typeof encoding === "function" ? encoding : cb;
    if (done) process.nextTick(done);
    return true;
  };
  Object.defineProperty(stream, "write", { value: captured, configurable: true, writable: true });
  // A child's stdout and stderr are pipes: the progress bar writes its piped form, whatever the worker's streams are.
  Object.defineProperty(stream, "isTTY", { value: false, configurable: true, writable: true });
  return () => {
    restoreProperty(stream, "write", write);
    restoreProperty(stream, "isTTY", isTTY);
  };
}

function restoreProperty(target: object, key: string, descriptor: PropertyDescriptor | undefined): void {
  if (descriptor) Object.defineProperty(target, key, descriptor);
  else Reflect.deleteProperty(target, key);
}

function replaceEnv(next: NodeJS.ProcessEnv): () => void {
  const saved = { ...process.env };
  assignEnv(next);
  return () => assignEnv(saved);
}

function assignEnv(next: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) if (next[key] === undefined) delete process.env[key];
  for (const [key, value] of Object.entries(next)) if (value !== undefined) process.env[key] = value;
}
