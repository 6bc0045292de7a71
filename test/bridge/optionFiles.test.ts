/**
 * Files named by env options on a server (issue 17, item 1): only regular files (or directories) under the data
 * root are read, asynchronously and size-capped; refusals name the option, say "not allowed" or "not found under
 * the data root", never quote content and never tell outside paths apart. In-process make() reads files as before.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient, type RawResponse } from "../../bridge/client.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { BridgeServer } from "../../bridge/server.js";
import { CONFIGS_DIR, make } from "../../src/index.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function serve(dataRoots?: string[]): Promise<{ client: BridgeClient; other: BridgeClient }> {
  const server = new BridgeServer({ endpoint: "tcp://127.0.0.1:*", backend: createCoreBackend(), limits: { drainMs: 0 }, dataRoots });
  await server.start();
  const client = new BridgeClient(server.endpoint);
  const other = new BridgeClient(server.endpoint);
  cleanup.push(async () => {
    await client.close();
    await other.close();
    await server.stop();
  });
  await other.request("ping");
  return { client, other };
}

const SPEC = JSON.stringify({ name: "mine", terms: { success: { weight: 2 } } });

/** A make with `reward: file` while another client pings: both answered, the ping promptly. */
async function makeWithReward(c: { client: BridgeClient; other: BridgeClient }, reward: string): Promise<RawResponse> {
  const made = c.client.call("make", { env_id: "Demo-v0", options: { reward } });
  const t0 = performance.now();
  expect(await c.other.request("ping")).toEqual({ pong: true });
  expect(performance.now() - t0).toBeLessThan(1_000);
  return made;
}

describe("file options on a server", () => {
  it("default data root (the package's configs): /dev/zero, /etc/shadow, missing and outside paths get one identical refusal", async () => {
    const c = await serve();
    const outside = ["/dev/zero", "/etc/shadow", "/etc/passwd", "/no/such/file.json", "/etc", path.join(tmpdir(), "x.json")];
    const replies = await Promise.all(outside.map((p) => makeWithReward(c, p)));
    for (const r of replies) {
      expect(r.error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "reward", libraryCode: "OPTIONS_ERROR" } });
      expect(r.error!.message).toMatch(/^reward: not allowed: this server reads files named by options only under its data root/);
      expect(r.error!.message).not.toMatch(/root:|daemon|No such|ENOENT|EISDIR/);
    }
    expect(new Set(replies.map((r) => r.error!.message)).size).toBe(1);
    expect(new Set(replies.map((r) => JSON.stringify(r.error!.details))).size).toBe(1);
    // The package's own presets, by name or by path under the default data root, still work.
    expect((await c.client.call("make", { env_id: "Demo-v0", options: { reward: "sparse" } })).ok).toBe(true);
    expect(
      (await c.client.call("make", { env_id: "Demo-v0", options: { reward: path.join(CONFIGS_DIR, "rewards", "sparse.json") } })).ok,
    ).toBe(true);
  });

  it("--data-root: FIFOs, symlinked devices, oversized and missing files refused; valid files read; content never echoed", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "rg-dataroot-"));
    const fifo = path.join(root, "pipe.json");
    await promisify(execFile)("mkfifo", [fifo]);
    symlinkSync("/dev/zero", path.join(root, "zero.json"));
    symlinkSync("/etc/passwd", path.join(root, "escape.json"));
    const huge = path.join(root, "huge.json");
    writeFileSync(huge, "");
    truncateSync(huge, 65 * 1024 * 1024); // sparse: no disk used
    writeFileSync(path.join(root, "secret.json"), "root:*:20200:0:99999:7:::\n");
    writeFileSync(path.join(root, "spec.json"), SPEC);
    const c = await serve([root]);
    const refused = async (file: string, pattern: RegExp): Promise<void> => {
      const r = await makeWithReward(c, path.join(root, file));
      expect(r.error?.code).toBe("VALIDATION_ERROR");
      expect(r.error!.message).toMatch(pattern);
      expect(r.error!.message).not.toMatch(/root:\*|20200/);
    };
    await refused("pipe.json", /^reward: not allowed: only regular files and directories/);
    await refused("zero.json", /^reward: not allowed: this server reads files named by options only under its data root/);
    await refused("escape.json", /^reward: not allowed: this server reads files named by options only under its data root/);
    await refused("huge.json", /^reward: not allowed: the file is larger than 67108864 bytes/);
    await refused("missing.json", /^reward: not found under the data root$/);
    await refused("secret.json", /not valid JSON/);
    const ok = await makeWithReward(c, path.join(root, "spec.json"));
    expect(ok.ok).toBe(true);
    // A preset name needs no file under the data root.
    expect((await c.client.call("make", { env_id: "Demo-v0", options: { reward: "shaped" } })).ok).toBe(true);
    // A file rewritten after it was read is read again (not served stale).
    writeFileSync(path.join(root, "spec.json"), "{ not json");
    expect((await c.client.call("make", { env_id: "Demo-v0", options: { reward: path.join(root, "spec.json") } })).error?.message).toMatch(
      /not valid JSON/,
    );
  });

  it("a ToolMisuseBench dataset (directory or file) under the data root is served: make, reset and step", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "rg-tmb-root-"));
    const rec = {
      task_id: "t1",
      split: "test_public",
      difficulty: "easy",
      domain: "crud",
      instruction: "Close account a1 with reason risk_review.",
      toolset_id: "crud_v1",
      initial_state: { accounts: { a1: { id: "a1", status: "active", tier: "basic" } } },
      success_criteria: [{ op: "equals", path: "accounts.a1.status", value: "closed" }],
      budget: { max_steps: 10, max_tool_calls: 10, max_retries: 3, timeout_ms: 1000 },
      fault_plan: [],
      gold_summary: "",
      seed: 1,
    };
    writeFileSync(path.join(root, "test_public.jsonl"), `${JSON.stringify(rec)}\n`);
    const c = await serve([root]);
    for (const dataset of [root, path.join(root, "test_public.jsonl")]) {
      const made = await c.client.request<{ session: string }>("make", {
        env_id: "ToolMisuseBench-v0",
        options: { dataset, split: "test_public" },
      });
      const r = await c.client.request<{ observations: Array<{ task: string }> }>("reset", { session: made.session, seed: 0 });
      expect(r.observations[0].task).toBe(rec.instruction);
      expect((await c.client.call("step", { session: made.session, actions: [{ type: "abort", reason: "test" }] })).ok).toBe(true);
    }
    const outside = await c.client.call("make", { env_id: "ToolMisuseBench-v0", options: { dataset: tmpdir() } });
    expect(outside.error?.message).toMatch(/^dataset: not allowed/);
  });

  it("in-process make() reads a file option anywhere, as before (no server policy left behind)", async () => {
    await serve();
    await cleanup.pop()!();
    const dir = mkdtempSync(path.join(tmpdir(), "rg-inproc-"));
    writeFileSync(path.join(dir, "spec.json"), SPEC);
    const env = make("Demo-v0", { reward: path.join(dir, "spec.json") });
    env.close();
  });
});
