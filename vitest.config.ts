import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One event-loop turn after every test, so a file of synchronous tests cannot starve vitest's worker RPC; and
    // every file starts from the built-in env registry, since files share modules (below).
    setupFiles: ["test/helpers/yieldBetweenTests.ts", "test/helpers/registrySandbox.ts"],
    // Files in one worker share loaded modules: the four families (and their caches, e.g. ToolMaze's canonical
    // tasks) load once per worker instead of once per file, which was a third of the suite's time.
    isolate: false,
    // CLI tests test the TypeScript sources, never a dist/ build, whatever its age (see bin/recovery-gym.js).
    env: { RECOVERY_GYM_FROM_SOURCE: "1" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
