// Child processes for tests, awaited so they do not block the vitest worker (long in-process loops: pace.ts).
//
// A vitest worker answers the main process over an RPC with a 60 s timeout (birpc). `spawnSync`/`execFileSync`
// freeze the worker's event loop until the child exits, so a file of back-to-back synchronous CLI runs (or one
// long in-process loop) leaves the RPC unanswered and the run ends with "Timeout calling onTaskUpdate" and exit 1
// although every test passed. Everything here awaits instead.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runMain } from "./cliInProcess.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(repoRoot, "bin/recovery-gym.js");

export interface RunOptions {
  /** Working directory of the child (default: the repository root, where relative paths in the tests point). */
  cwd?: string;
  /** Environment of the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed (it is closed at once without input, as with spawnSync). */
  input?: string;
  /** The child is killed (SIGKILL) and the promise rejects after this long (default 120 s: beyond any test timeout). */
  timeoutMs?: number;
}

export interface RunResult {
  /** Exit code, or null when the child was ended by a signal (as spawnSync reports it). */
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` to completion and collects its output as UTF-8 text; never rejects on a non-zero exit. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const { cwd = repoRoot, env = process.env, input, timeoutMs = 120_000 } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    // A child that exits without reading its input closes the pipe: that is not the caller's error.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${path.basename(command)} ${args.join(" ")}: no exit after ${timeoutMs} ms; stderr so far:\n${stderr}`));
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // "close", not "exit": by then both output streams are drained.
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/**
 * The arguments of `node` that start the recovery-gym CLI, and the environment that makes the bin run the TypeScript
 * sources whatever dist/ holds (bin/recovery-gym.js otherwise prefers a current build). Every test that starts the
 * CLI goes through these, so a stale or fresh dist/ never decides what a test exercises (test/cli-source.test.ts).
 */
export function cliArgv(args: readonly string[]): string[] {
  return [BIN, ...args];
}

export function cliEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, RECOVERY_GYM_FROM_SOURCE: "1" };
}

/**
 * Runs the recovery-gym CLI from the TypeScript sources in this process (`main(args)`, output captured; see
 * cliInProcess.ts): what `node bin/recovery-gym.js ...args` prints and exits with, without starting node and tsx.
 */
export function runCli(args: readonly string[], options: Omit<RunOptions, "input" | "timeoutMs"> = {}): Promise<RunResult> {
  return runMain(args, { cwd: options.cwd ?? repoRoot, env: cliEnv(options.env) });
}

/** Runs a TypeScript script through tsx (`node --import tsx ...args`), e.g. `execNode(["scripts/x.ts", "--check"])`. */
export function execNode(args: readonly string[], options?: RunOptions): Promise<RunResult> {
  return run(process.execPath, ["--import", "tsx", ...args], options);
}

/** A one-line summary of a failed run, for assertion messages: `expect(r.status, failure(r)).toBe(0)`. */
export function failure(r: RunResult): string {
  return `exit ${String(r.status)}${r.signal ? ` (${r.signal})` : ""}; stderr:\n${r.stderr}`;
}
