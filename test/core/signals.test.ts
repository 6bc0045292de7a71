import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectories } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "rg-sig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A recorder must not lose data when the process is told to stop: finished episodes are already on disk, and the
// episode in progress is written (marked "interrupted") by the signal handler.
describe("RecordTrajectory under SIGTERM", () => {
  it("writes finished and in-progress episodes, then the process exits", async () => {
    const path = join(dir, "sig.jsonl");
    const script = `
      import { make, RecordTrajectory } from "./src/index.ts";
      const env = new RecordTrajectory(make("Demo-v0"), ${JSON.stringify(path)});
      for (const seed of [1, 2]) { env.reset({ seed }); env.step({ type: "abort" }); }
      env.reset({ seed: 3 });
      env.step({ type: "tool_call", name: "list_sent_email", arguments: {} });
      console.log("ready");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()));
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c, sig) => resolve(c ?? (sig ? 143 : null))));
    expect(code).not.toBeNull();
    const trajs = readTrajectories(path);
    expect(trajs.map((t) => t.terminationReason)).toEqual(["aborted", "aborted", "interrupted"]);
    expect(trajs[2].steps).toHaveLength(1);
  });
});
