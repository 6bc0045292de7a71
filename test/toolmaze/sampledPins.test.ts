// Pins a few sampled tasks bit for bit (reset observation, full hidden truth, and the generated task itself), so
// work on the cost of a sampled reset (generation, solution enumeration, ordering counts) cannot change an episode.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { make } from "../../src/index.js";
import type { ToolMazeEnv } from "../../envs/toolmaze/env.js";

const sha = (v: unknown): string => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 16);

function sampledHashes(envId: string, seeds: readonly number[]): string[] {
  const env = make(envId, { suite: "sampled" }) as ReturnType<typeof make> & ToolMazeEnv;
  return seeds.map((seed) => {
    const [obs, info] = env.reset({ seed });
    const task = (env as unknown as { unwrapped: { task: unknown } }).unwrapped.task;
    expect(task).toBeDefined();
    expect((info.hidden as { orderings?: unknown }).orderings).toBeDefined();
    return sha([obs, info, task]);
  });
}

describe("sampled ToolMaze tasks are pinned", () => {
  // One seed per level and then some C4s (the costliest to enumerate), found by scanning seeds 0-2,000.
  const seeds = [0, 1, 2, 3, 45, 137, 963, 1255, 1602, 1991];

  it("ToolMaze-v0", () => {
    expect(sampledHashes("ToolMaze-v0", seeds)).toEqual([
      "b08a783219931a56",
      "ffff89f73582cd1e",
      "bb32382bd5743b3a",
      "4c65deabb25dd0b0",
      "94b2461b1d37b9d8",
      "14e4f0b65226492e",
      "9e763aa128dde5a5",
      "29b2248279b0a316",
      "173148217fe5ce00",
      "f4bd6a948b2f3b87",
    ]);
  });

  it("ToolMaze-v1", () => {
    expect(sampledHashes("ToolMaze-v1", seeds)).toEqual([
      "69b92134fbbf7d1a",
      "64bf1509ec983484",
      "5a5e20823e54dc6e",
      "20936b27bc7a6939",
      "1c29353b1a91f841",
      "186dbf0519523948",
      "e5e96f7b8883da2d",
      "116c04753dab43d6",
      "92ccf257f61800d3",
      "3de98458d0ad1c41",
    ]);
  });
});
