import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One event-loop turn after every test, so a file of synchronous tests cannot starve vitest's worker RPC; and
    // every file starts from the built-in env registry, since files may share modules (below).
    setupFiles: ["test/helpers/yieldBetweenTests.ts", "test/helpers/registrySandbox.ts"],
    // CLI tests test the TypeScript sources, never a dist/ build, whatever its age (see bin/recovery-gym.js).
    env: { RECOVERY_GYM_FROM_SOURCE: "1" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Whether a worker process is reused for the next file is the forks pool's setting, poolOptions.forks.isolate, and
    // there is one pool for all projects: a project's `isolate` only decides whether modules are reset between files in
    // a reused process. So the default here isolates every file (safe for the bridge tests, slow for the others), and
    // `npm run test:vitest` runs the two projects as two vitest runs, the shared one with
    // --poolOptions.forks.isolate=false (test/testLayout.test.ts checks the script; registrySandbox.ts fails a
    // bridge file that finds its process reused).
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      // Files in one worker share loaded modules: the four families (and their caches, e.g. ToolMaze's canonical
      // tasks) load once per worker instead of once per file, which was a third of the suite's time.
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: ["test/bridge/**"], isolate: false } },
      // Bridge tests open many ZeroMQ sockets in-process: each file gets a fresh process (and libzmq context), as
      // before; sharing one let a later file trip a libzmq assertion on pipes an earlier file left closing.
      { extends: true, test: { name: "bridge", include: ["test/bridge/**/*.test.ts"], isolate: true } },
    ],
  },
});
