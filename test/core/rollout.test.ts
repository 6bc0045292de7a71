import { describe, expect, it } from "vitest";
import { rollout, rolloutAsync } from "../../src/index.js";

describe("rollout / rolloutAsync", () => {
  const config = { envId: "Demo-v0", policy: "random", episodes: 12, seed: 4 };

  it("the async rollout (pausing for the event loop) gives exactly the synchronous results", async () => {
    const sync = rollout(config);
    const paused = await rolloutAsync(config, { yieldEveryMs: 0 });
    expect(paused).toEqual({ results: sync, interrupted: false });
    expect(sync.map((r) => r.seed)).toEqual(Array.from({ length: 12 }, (_, i) => 4 + i));
  });

  it("stops at the next pause when its signal aborts, closing the env", async () => {
    const controller = new AbortController();
    let closed = 0;
    const run = rolloutAsync(
      {
        ...config,
        episodes: 1_000_000,
        wrap: (env) => {
          const close = env.close.bind(env);
          env.close = () => {
            closed++;
            close();
          };
          return env;
        },
        onEpisode: (_r, i) => i === 2 && controller.abort(),
      },
      { signal: controller.signal, yieldEveryMs: 0 },
    );
    const { results, interrupted } = await run;
    expect(interrupted).toBe(true);
    expect(results).toHaveLength(3);
    expect(closed).toBe(1);
  });
});
