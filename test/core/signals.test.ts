import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliArgv, cliEnv } from "../helpers/cli.js";
import { existsSync, readFileSync } from "node:fs";
import { readTrajectories, trajectorySchema } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "rg-sig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Signals are handled in one place (src/cli/signals.ts), never by the writer. A program that drains on signals
// gets the episode in progress written (marked "interrupted"); a bare script dies by the signal as Node's default
// says, with its finished episodes on disk and a file the next writer appends to cleanly.
describe("RecordTrajectory under SIGTERM", () => {
  async function runScript(path: string, drain: boolean): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const script = `
      import { make, RecordTrajectory } from "./src/index.ts";
      import { drainOnSignals } from "./src/cli/signals.ts";
      if (${drain}) {
        const s = drainOnSignals();
        s.stopped.then(() => { s.dispose(); process.exit(0); });
      }
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
    return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  }

  it("a program draining on signals writes finished and in-progress episodes, then exits 0", async () => {
    const path = join(dir, "sig.jsonl");
    expect(await runScript(path, true)).toEqual({ code: 0, signal: null });
    const trajs = readTrajectories(path);
    expect(trajs.map((t) => t.terminationReason)).toEqual(["aborted", "aborted", "interrupted"]);
    expect(trajs[2].steps).toHaveLength(1);
  });

  it("the writer installs no handler: a bare script dies by the signal with its finished episodes intact", async () => {
    const path = join(dir, "bare.jsonl");
    expect(await runScript(path, false)).toEqual({ code: null, signal: "SIGTERM" });
    expect(readTrajectories(path).map((t) => t.terminationReason)).toEqual(["aborted", "aborted"]);
  });
});

// A CLI rollout steps synchronously; it must still hear Ctrl-C (the writer's signal handler replaces Node's default
// exit, so the loop has to give the event loop a turn), stop promptly, flush, and exit 130 with only whole lines.
describe("rollout --out under SIGINT", () => {
  it("stops within a second or two, exits 130, and leaves only whole, valid lines", async () => {
    const path = join(dir, "cli-sigint.jsonl");
    const child = spawn(process.execPath, cliArgv(["rollout", "--env", "Demo-v0", "--episodes", "10000000", "--out", path, "--quiet"]), {
      env: cliEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
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
