import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One event-loop turn after every test, so a file of synchronous tests cannot starve vitest's worker RPC.
    setupFiles: ["test/helpers/yieldBetweenTests.ts"],
    // CLI tests test the TypeScript sources, never a dist/ build, whatever its age (see bin/recovery-gym.js).
    env: { RECOVERY_GYM_FROM_SOURCE: "1" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
