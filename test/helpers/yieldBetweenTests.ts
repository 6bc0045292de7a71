// Gives the event loop a turn after every test (a vitest setup file: see vitest.config.ts).
//
// Vitest runs the tests of a file back to back on microtasks only, so a file of synchronous tests never lets the
// worker read the main process's RPC replies; once a file's synchronous work passes the RPC's 60 s timeout the run
// fails with "Timeout calling onTaskUpdate" although every test passed. One macrotask turn per test bounds such a
// stretch by the longest single test instead of the whole file.
import { afterEach } from "vitest";

afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
