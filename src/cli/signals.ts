/** Exit codes of a process stopped by a signal, as a shell reports them (128 + signal number). */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * Turns SIGINT/SIGTERM into an AbortSignal for a long CLI loop (e.g. `rolloutAsync`), so the loop stops at its next
 * pause, closes (flushes) what it writes, and the command exits with 130/143. Installing a handler replaces Node's
 * default "exit at once"; the loop must therefore pause regularly. `dispose()` removes the handlers.
 */
export function stopOnSignals(): { signal: AbortSignal; received(): StopSignal | null; dispose(): void } {
  const controller = new AbortController();
  let got: StopSignal | null = null;
  const handlers = (Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]).map((sig) => {
    const handler = () => {
      got ??= sig;
      controller.abort(new Error(`received ${sig}`));
    };
    process.on(sig, handler);
    return [sig, handler] as const;
  });
  return {
    signal: controller.signal,
    received: () => got,
    dispose: () => {
      for (const [sig, handler] of handlers) process.removeListener(sig, handler);
    },
  };
}
