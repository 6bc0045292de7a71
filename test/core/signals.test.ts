import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { readTrajectories, trajectorySchema } from "../../src/index.js";

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

// A CLI rollout steps synchronously; it must still hear Ctrl-C (the writer's signal handler replaces Node's default
// exit, so the loop has to give the event loop a turn), stop promptly, flush, and exit 130 with only whole lines.
describe("rollout --out under SIGINT", () => {
  it("stops within a second or two, exits 130, and leaves only whole, valid lines", async () => {
    const path = join(dir, "cli-sigint.jsonl");
    const child = spawn(process.execPath, ["bin/recovery-gym.js", "rollout", "--env", "Demo-v0", "--episodes", "10000000", "--out", path, "--quiet"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    // Wait until episodes are being written, i.e. the synchronous stepping is under way.
    const deadline = Date.now() + 40_000;
    while (!(existsSync(path) && readFileSync(path, "utf8").split("\n").length > 20)) {
      if (Date.now() > deadline) throw new Error(`rollout never started writing; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const sentAt = Date.now();
    child.kill("SIGINT");
    const { code, signal } = await exited;
    expect(Date.now() - sentAt).toBeLessThan(3_000);
    expect({ code, signal }).toEqual({ code: 130, signal: null });
    expect(stderr).toMatch(/stopped by SIGINT/);
    const text = readFileSync(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    for (const line of lines) expect(trajectorySchema.safeParse(JSON.parse(line)).success).toBe(true);
    expect(readTrajectories(path)).toHaveLength(lines.length);
  });
});
