// Long in-process loops in tests: give the event loop a turn now and then, so the vitest worker keeps answering the
// main process's RPC (60 s timeout) while a test computes for many seconds on a loaded machine.
import { performance } from "node:perf_hooks";

/**
 * A pacer for long in-process loops: `await pace()` inside the loop gives the event loop a turn once at least
 * `everyMs` of work has passed since the last turn, so the worker keeps answering vitest's RPC. It does not change
 * what the loop computes, only when it pauses.
 */
export function pacer(everyMs = 200): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < everyMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    last = performance.now();
  };
}
