import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories } from "../../src/index.js";
import { failure } from "../helpers/cli.js";
import { cli, interruptedCopy, readJsonl as jsonl, writeJsonl } from "./dataCommands.js";

const dir = mkdtempSync(join(tmpdir(), "rg-cli-export-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("data commands: export", () => {
  // The collected file these tests read: 5 careful episodes (seeds 0..4) with a permanent fault, all successes.
  const file = join(dir, "c.jsonl");
  beforeAll(async () => {
    const res = await cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", file, "--opt", "fault=permanent"]);
    if (res.status !== 0) throw new Error(`collect for the export fixture failed: ${failure(res)}`);
  });

  it("export and rescore skip interrupted records unless asked, and use the last complete record per id", async () => {
    const f = join(dir, "mixed.jsonl");
    const [t0, t1, t2] = readTrajectories(file);
    writeJsonl(f, [interruptedCopy(t0), t0, t1, interruptedCopy(t2), { ...t1, return: 42 }]);
    const out = join(dir, "mixed-chat.jsonl");
    expect((await cli(["export", f, "--out", out])).stdout).toMatch(/wrote 2 chat/);
    expect(jsonl(out).map((r) => [r.metadata.episodeId, r.metadata.return])).toEqual([
      ["Demo-v0:0", t0.return],
      ["Demo-v0:1", 42],
    ]);
    expect((await cli(["export", f, "--out", out, "--include-interrupted"])).stdout).toMatch(/wrote 3 chat/);
    const rescored = JSON.parse((await cli(["rescore", f, "--reward", "sparse", "--json"])).stdout);
    expect(rescored.rows.map((r: { episodeId: string }) => r.episodeId)).toEqual(["Demo-v0:0", "Demo-v0:1"]);
    expect(rescored.skipped).toBe(3);
    expect(JSON.parse((await cli(["rescore", f, "--reward", "sparse", "--json", "--include-interrupted"])).stdout).episodes).toBe(3);
  });

  it("export writes chat records, filtered by outcome", async () => {
    const out = join(dir, "chat.jsonl");
    const res = await cli(["export", file, "--format", "openai-chat", "--out", out, "--outcome", "success"]);
    expect(res.status).toBe(0);
    const records = jsonl(out);
    expect(records.length).toBe(5);
    expect(records[0].messages[1].role).toBe("user");
    expect(records[0].tools.map((t: { function: { name: string } }) => t.function.name)).toContain("send_email");
    expect(records[0].metadata).toMatchObject({ envId: "Demo-v0", success: true, policy: "careful" });
    const none = await cli(["export", file, "--out", out, "--outcome", "failure"]);
    expect(none.stdout).toMatch(/wrote 0/);
    expect((await cli(["export", file, "--format", "csv", "--out", out])).status).toBe(2);
  });

  it("export --where: a key no record has is an error; an existing key filters", async () => {
    const out = join(dir, "where.jsonl");
    const bad = await cli(["export", file, "--out", out, "--where", "toolCallz=3"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/no record .* has a field "toolCallz".*toolCalls/);
    const calls = readTrajectories(file)[0].metrics.toolCalls;
    const ok = await cli(["export", file, "--out", out, "--where", `toolCalls=${String(calls)}`]);
    expect(ok.status).toBe(0);
    expect(jsonl(out).every((r) => r.metadata.episodeId && r.messages.length > 2)).toBe(true);
  });

  it("export declares every family action kind the chat calls as a function schema (PlanBench-XL retrieve)", async () => {
    const pb = join(dir, "pb.jsonl");
    expect((await cli(["collect", "--env", "PlanBenchXL-v0", "--episodes", "2", "--out", pb, "--opt", "setting=blocker"])).status).toBe(0);
    const out = join(dir, "pb-chat.jsonl");
    expect((await cli(["export", pb, "--out", out])).status).toBe(0);
    for (const r of jsonl(out)) {
      const declared = new Set(r.tools.map((t: { function: { name: string } }) => t.function.name));
      const called = r.messages.flatMap((m: { tool_calls?: { function: { name: string } }[] }) =>
        (m.tool_calls ?? []).map((c) => c.function.name),
      );
      expect(called).toContain("retrieve");
      expect(called.filter((n: string) => !declared.has(n))).toEqual([]);
      const retrieve = r.tools.find((t: { function: { name: string } }) => t.function.name === "retrieve").function;
      // Derived from the action's zod schema: its fields besides `type`, with the required ones.
      expect(retrieve.parameters).toMatchObject({ type: "object", required: ["meta_tool"] });
      expect(Object.keys(retrieve.parameters.properties).sort()).toEqual(["input_information", "meta_tool", "output_information"]);
    }
  });
});
