/**
 * `serve --workers 1` steps its envs in the process that serves, and V8 sizes the young generation only at
 * startup (`v8.setFlagsFromString("--max-semi-space-size")` leaves a running heap as it is). When this process lacks
 * the configured semi-space, the CLI therefore serves from a child node started with it, and stays as a thin
 * launcher that the user, scripts and process managers keep dealing with:
 *
 * - signals: the child has its own session (so a terminal's Ctrl-C reaches it once, through the launcher, not twice)
 *   and gets every SIGINT/SIGTERM the launcher gets; it drains as an in-process server would;
 * - exit: the launcher exits with the child's code, or dies of the signal that killed the child;
 * - output: the child writes to the launcher's stdout/stderr; the launcher itself prints nothing;
 * - ready file: `pid` is the launcher (the process that was started), `workerPids` the child that steps the envs;
 * - a launcher that dies (even by SIGKILL) closes the IPC channel, and the child drains and exits instead of
 *   serving on as an orphan.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { entryFile, workerExecArgv } from "./workers.js";

/** Set in the relaunched server's environment to the launcher's pid. */
export const LAUNCHER_ENV = "RECOVERY_GYM_SERVE_LAUNCHER";

const FORWARDED = ["SIGINT", "SIGTERM"] as const;

/** Whether this process was started with a young-generation size (on the command line or in NODE_OPTIONS). */
export function hasSemiSpaceFlag(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  return flags.some((a) => a.startsWith("--max-semi-space-size"));
}

/** The launcher's pid when this process is a relaunched server (its parent set it), else null. */
export function launcherPid(): number | null {
  const pid = Number(process.env[LAUNCHER_ENV]);
  return Number.isInteger(pid) && pid > 0 && pid === process.ppid ? pid : null;
}

/**
 * Whether serving `semiSpaceMb` in this process needs a relaunch. Never from a relaunched server (whatever its
 * flags: one relaunch at most), and not on Windows, which has no signals to forward.
 */
export function needsRelaunch(semiSpaceMb: number): boolean {
  return semiSpaceMb > 0 && !hasSemiSpaceFlag() && process.env[LAUNCHER_ENV] === undefined && process.platform !== "win32";
}

/**
 * Runs `serve argv` in a child node with `--max-semi-space-size=semiSpaceMb` and resolves with its exit code. A child
 * killed by a signal gets the launcher killed by the same signal, so callers see what they would without a launcher.
 */
export function relaunchServer(argv: readonly string[], semiSpaceMb: number, err: (s: string) => void): Promise<number> {
  const entry = entryFile();
  const child = spawn(process.execPath, [...workerExecArgv(entry, semiSpaceMb), entry, ...argv], {
    env: { ...process.env, [LAUNCHER_ENV]: String(process.pid) },
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    detached: true,
  });
  const handlers = FORWARDED.map((sig) => {
    const h = (): void => void child.kill(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  const release = (): void => {
    for (const [sig, h] of handlers) process.removeListener(sig, h);
  };
  return new Promise((resolve) => {
    child.on("error", (e) => {
      release();
      err(`recovery-gym serve: cannot start the server process: ${e.message}\n`);
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      release();
      if (signal === null) return resolve(code ?? 1);
      process.kill(process.pid, signal);
      // Reached only if the signal does not end this process (a handler elsewhere): report it as a shell would.
      resolve(128 + (constants.signals[signal] ?? 0));
    });
  });
}

/** In a relaunched server: resolves when the launcher is gone (its IPC channel closed). Never resolves otherwise. */
export function launcherGone(): Promise<string> {
  if (launcherPid() === null || !process.connected) return new Promise(() => {});
  return new Promise((resolve) => process.once("disconnect", () => resolve("launcher exited")));
}
