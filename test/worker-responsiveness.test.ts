import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { failure, run } from "./helpers/cli.js";
import { pacer } from "./helpers/pace.js";

// A vitest worker must keep answering the main process's RPC (60 s timeout): a test file that holds the event loop
// for a minute fails the whole run ("Timeout calling onTaskUpdate") even when every test passes. These check the
// helpers that prevent it, and that no test goes back to synchronous child processes.

describe("tests never block the vitest worker for long", () => {
  it("no test spawns a child process synchronously (use test/helpers/cli.ts)", async () => {
    // The pattern, spelled with the parenthesis escaped, does not match this line itself.
    const res = await run("grep", [
      "-rnE",
      "\\b(spawn|execFile|exec)Sync\\(|import .*\\b(spawn|execFile|exec)Sync\\b",
      "test",
      "--include=*.ts",
    ]);
    expect(res.status, `grep exits 1 when nothing matches; got ${failure(res)}\n${res.stdout}`).toBe(1);
  });

  it("run() keeps the event loop turning while the child runs, and reports status, stdout and stderr", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const res = await run(
      process.execPath,
      ["-e", "process.stdin.pipe(process.stdout); process.stderr.write('e'); process.exitCode = 3; setTimeout(() => {}, 300)"],
      { input: "hi" },
    );
    clearInterval(timer);
    expect(res).toEqual({ status: 3, signal: null, stdout: "hi", stderr: "e" });
    // A synchronous spawn would leave this at 0: the interval could not fire until the child had exited.
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it("run() kills a child that outlives its timeout and says so", async () => {
    await expect(run(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { timeoutMs: 300 })).rejects.toThrow(/no exit after 300 ms/);
  });

  it("pacer() gives the event loop a turn during a long synchronous loop", async () => {
    const pace = pacer(100);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const end = performance.now() + 600;
    while (performance.now() < end) await pace();
    clearInterval(timer);
    // About one turn per 100 ms of work; without the pauses the interval could not fire at all.
    expect(ticks).toBeGreaterThanOrEqual(3);
  });
});

describe("the event loop turns between tests (setup file test/helpers/yieldBetweenTests.ts)", () => {
  let turned = false;
  it("a test schedules a macrotask and returns synchronously", () => {
    setImmediate(() => (turned = true));
  });
  it("it has run before the next test starts", () => {
    // Vitest alone runs the next test on microtasks only, before any macrotask: then this fails.
    expect(turned).toBe(true);
  });
});
