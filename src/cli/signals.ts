/**
 * The one place that installs process signal handlers. Library code (writers, envs, the bridge server) never hooks
 * signals itself: two independent handlers cannot agree on who exits and how (a writer that re-raised SIGTERM used
 * to kill a draining server), so every program picks exactly one of the policies below.
 */
import { closeAllWriters } from "../trajectories/writer.js";

/** Exit codes of a process stopped by a signal, as a shell reports them (128 + signal number). */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;
const STOP_SIGNALS = Object.keys(SIGNAL_EXIT_CODES) as StopSignal[];

function listen(handler: (sig: StopSignal) => void): () => void {
  const installed = STOP_SIGNALS.map((sig) => {
    const h = () => handler(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  return () => {
    for (const [sig, h] of installed) process.removeListener(sig, h);
  };
}

/**
 * Turns SIGINT/SIGTERM into an AbortSignal for a long CLI loop (e.g. `rolloutAsync`), so the loop stops at its next
 * pause, closes (flushes) what it writes, and the command exits with 130/143. Installing a handler replaces Node's
 * default "exit at once"; the loop must therefore pause regularly. `dispose()` removes the handlers.
 */
export function stopOnSignals(): { signal: AbortSignal; received(): StopSignal | null; dispose(): void } {
  const controller = new AbortController();
  let got: StopSignal | null = null;
  const dispose = listen((sig) => {
    got ??= sig;
    controller.abort(new Error(`received ${sig}`));
  });
  return { signal: controller.signal, received: () => got, dispose };
}

/**
 * For servers: resolves with the first SIGINT/SIGTERM and keeps the handlers installed until `dispose()`, so a
 * second signal during the drain is reported through `onRepeat` instead of killing the process mid-drain. The
 * caller drains, closes its sessions (which flushes their recorders), then calls `dispose()` and exits 0.
 */
export function drainOnSignals(onRepeat: (sig: StopSignal) => void = () => {}): { stopped: Promise<StopSignal>; dispose(): void } {
  let first: StopSignal | null = null;
  let resolve!: (sig: StopSignal) => void;
  const stopped = new Promise<StopSignal>((r) => (resolve = r));
  const dispose = listen((sig) => {
    if (first !== null) return onRepeat(sig);
    first = sig;
    resolve(sig);
  });
  return {
    stopped,
    dispose: () => {
      // Anything a session did not close (a bug elsewhere) still gets its last records written.
      closeAllWriters();
      dispose();
    },
  };
}
