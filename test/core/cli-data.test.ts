import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Action, type Info, type JsonObject, episodePolicyRng, make, policyEntry, readTrajectories, registryEntry, stableStringify, type Trajectory } from "../../src/index.js";
import { pairsCommand } from "../../src/cli/commands/pairs.js";

const dir = mkdtempSync(join(tmpdir(), "rg-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Runs the CLI; commands with a progress bar get --quiet. */
const cli = (args: string[]) => spawnSync(process.execPath, ["bin/recovery-gym.js", ...args, ...(["export", "rescore"].includes(args[0]) ? [] : ["--quiet"])], { encoding: "utf8" });
const jsonl = (path: string) => readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const writeJsonl = (path: string, records: readonly unknown[]) => writeFileSync(path, records.map((r) => `${stableStringify(r)}\n`).join(""));
/** An interrupted copy of a finished record: cut after its first step, as a SIGINT mid-episode leaves it. */
const interruptedCopy = (t: Trajectory): Trajectory => ({ ...t, steps: t.steps.slice(0, 1), length: 1, return: t.steps[0].reward, terminationReason: "interrupted", success: false, metrics: {} });

describe("data and reward-analysis commands", () => {
  const file = join(dir, "c.jsonl");

  it("collect is resumable and refuses to mix options", () => {
    expect(cli(["collect", "--env", "Demo-v0", "--episodes", "3", "--out", file, "--opt", "fault=permanent"]).status).toBe(0);
    const again = cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", file, "--opt", "fault=permanent"]);
    expect(again.stdout).toMatch(/5 episodes \(2 new\)/);
    expect(readTrajectories(file).map((t) => t.seed)).toEqual([0, 1, 2, 3, 4]);
    expect(readTrajectories(file).every((t) => t.policy === "careful")).toBe(true);
    const mixed = cli(["collect", "--env", "Demo-v0", "--episodes", "5", "--out", file]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/different options/);
  });

  it("collect records the policy and refuses to resume a file with another one", () => {
    const before = readFileSync(file, "utf8");
    const other = cli(["collect", "--env", "Demo-v0", "--policy", "random", "--episodes", "7", "--out", file, "--opt", "fault=permanent"]);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/collected with policy careful, not random/);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("collect supersedes interrupted records: every episode id appears once, complete", () => {
    const f = join(dir, "resume.jsonl");
    expect(cli(["collect", "--env", "Demo-v0", "--episodes", "2", "--out", f]).status).toBe(0);
    const [t0, t1] = readTrajectories(f);
    // Seed 1 was cut short on a first run and seed 2 never finished: both are in the file only as interrupted.
    writeJsonl(f, [t0, interruptedCopy(t1), interruptedCopy({ ...t1, episodeId: "Demo-v0:2", seed: 2 })]);
    const res = cli(["collect", "--env", "Demo-v0", "--episodes", "3", "--out", f]);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/3 episodes \(2 new, 2 superseded record\(s\) removed\)/);
    const after = readTrajectories(f);
    expect(after.map((t) => t.episodeId)).toEqual(["Demo-v0:0", "Demo-v0:1", "Demo-v0:2"]);
    expect(after.every((t) => t.terminationReason !== "interrupted")).toBe(true);
    expect(after[1]).toEqual(t1);
  });

  it("export and rescore skip interrupted records unless asked, and use the last complete record per id", () => {
    const f = join(dir, "mixed.jsonl");
    const [t0, t1, t2] = readTrajectories(file);
    writeJsonl(f, [interruptedCopy(t0), t0, t1, interruptedCopy(t2), { ...t1, return: 42 }]);
    const out = join(dir, "mixed-chat.jsonl");
    expect(cli(["export", f, "--out", out]).stdout).toMatch(/wrote 2 chat/);
    expect(jsonl(out).map((r) => [r.metadata.episodeId, r.metadata.return])).toEqual([["Demo-v0:0", t0.return], ["Demo-v0:1", 42]]);
    expect(cli(["export", f, "--out", out, "--include-interrupted"]).stdout).toMatch(/wrote 3 chat/);
    const rescored = JSON.parse(cli(["rescore", f, "--reward", "sparse", "--json"]).stdout);
    expect(rescored.rows.map((r: { episodeId: string }) => r.episodeId)).toEqual(["Demo-v0:0", "Demo-v0:1"]);
    expect(rescored.skipped).toBe(3);
    expect(JSON.parse(cli(["rescore", f, "--reward", "sparse", "--json", "--include-interrupted"]).stdout).episodes).toBe(3);
  });

  it("rescore recomputes returns offline", () => {
    const res = spawnSync(process.execPath, ["bin/recovery-gym.js", "rescore", file, "--reward", "sparse", "--json"], { encoding: "utf8" });
    const out = JSON.parse(res.stdout);
    expect(out.episodes).toBe(5);
    expect(out.rows.every((r: { rescored: number; success: boolean }) => r.rescored === (r.success ? 1 : 0))).toBe(true);
    expect(out.meanOriginal).not.toBe(out.meanRescored);
  });

  it("rescore groups records by (env, options) and checks the spec against each group's env", () => {
    const tm = join(dir, "tm.jsonl");
    expect(cli(["collect", "--env", "ToolMaze-v0", "--episodes", "3", "--out", tm, "--opt", "perturbation=P2"]).status).toBe(0);
    const both = join(dir, "both.jsonl");
    writeFileSync(both, readFileSync(file, "utf8"));
    appendFileSync(both, readFileSync(tm, "utf8"));
    // Every record was played under its family's default "shaped" preset, so re-scoring with "shaped" resolved for
    // each record's own env gives back the recorded returns; scoring ToolMaze records with Demo's preset would not.
    const out = JSON.parse(cli(["rescore", both, "--reward", "shaped", "--json"]).stdout);
    expect(out.groups.map((g: { envId: string; episodes: number }) => [g.envId, g.episodes])).toEqual([["Demo-v0", 5], ["ToolMaze-v0", 3]]);
    for (const r of out.rows as { original: number; rescored: number }[]) expect(r.rescored).toBeCloseTo(r.original, 9);
    // --gamma discounts both returns the same way.
    const g = JSON.parse(cli(["rescore", both, "--reward", "sparse", "--gamma", "0.5", "--json"]).stdout);
    const rec = readTrajectories(both).find((t) => t.episodeId === "ToolMaze-v0:0") as Trajectory;
    const row = g.rows.find((r: { episodeId: string }) => r.episodeId === "ToolMaze-v0:0");
    expect(row.rescored).toBeCloseTo(rec.success ? 0.5 ** (rec.length - 1) : 0, 12);
  });

  it("export writes chat records, filtered by outcome", () => {
    const out = join(dir, "chat.jsonl");
    const res = spawnSync(process.execPath, ["bin/recovery-gym.js", "export", file, "--format", "openai-chat", "--out", out, "--outcome", "success"], { encoding: "utf8" });
    expect(res.status).toBe(0);
    const records = jsonl(out);
    expect(records.length).toBe(5);
    expect(records[0].messages[1].role).toBe("user");
    expect(records[0].tools.map((t: { function: { name: string } }) => t.function.name)).toContain("send_email");
    expect(records[0].metadata).toMatchObject({ envId: "Demo-v0", success: true, policy: "careful" });
    const none = spawnSync(process.execPath, ["bin/recovery-gym.js", "export", file, "--out", out, "--outcome", "failure"], { encoding: "utf8" });
    expect(none.stdout).toMatch(/wrote 0/);
    expect(spawnSync(process.execPath, ["bin/recovery-gym.js", "export", file, "--format", "csv", "--out", out], { encoding: "utf8" }).status).toBe(2);
  });

  it("export --where: a key no record has is an error; an existing key filters", () => {
    const out = join(dir, "where.jsonl");
    const bad = cli(["export", file, "--out", out, "--where", "toolCallz=3"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/no record .* has a field "toolCallz".*toolCalls/);
    const calls = readTrajectories(file)[0].metrics.toolCalls;
    const ok = cli(["export", file, "--out", out, "--where", `toolCalls=${String(calls)}`]);
    expect(ok.status).toBe(0);
    expect(jsonl(out).every((r) => r.metadata.episodeId && r.messages.length > 2)).toBe(true);
  });

  it("export declares every family action kind the chat calls as a function schema (PlanBench-XL retrieve)", () => {
    const pb = join(dir, "pb.jsonl");
    expect(cli(["collect", "--env", "PlanBenchXL-v0", "--episodes", "2", "--out", pb, "--opt", "setting=blocker"]).status).toBe(0);
    const out = join(dir, "pb-chat.jsonl");
    expect(cli(["export", pb, "--out", out]).status).toBe(0);
    for (const r of jsonl(out)) {
      const declared = new Set(r.tools.map((t: { function: { name: string } }) => t.function.name));
      const called = r.messages.flatMap((m: { tool_calls?: { function: { name: string } }[] }) => (m.tool_calls ?? []).map((c) => c.function.name));
      expect(called).toContain("retrieve");
      expect(called.filter((n: string) => !declared.has(n))).toEqual([]);
      const retrieve = r.tools.find((t: { function: { name: string } }) => t.function.name === "retrieve").function;
      // Derived from the action's zod schema: its fields besides `type`, with the required ones.
      expect(retrieve.parameters).toMatchObject({ type: "object", required: ["meta_tool"] });
      expect(Object.keys(retrieve.parameters.properties).sort()).toEqual(["input_information", "meta_tool", "output_information"]);
    }
  });

  it("ablate prints every preset and writes CSV (with the recovery metrics) and SVG", () => {
    const outDir = join(dir, "abl");
    const res = cli(["ablate", "--env", "Demo-v0", "--episodes", "10", "--presets", "shaped,sparse", "--out-dir", outDir]);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/shaped/);
    const csv = readFileSync(join(outDir, "ablation.csv"), "utf8").trim().split("\n");
    expect(csv[0]).toBe("preset,mean_return,ci95,success,episodes,gamma,successRate,meanToolCalls");
    expect(csv).toHaveLength(3);
    const [shaped, sparse] = csv.slice(1).map((l) => l.split(","));
    expect(shaped[0]).toBe("shaped");
    // The recovery metrics describe the episodes, which every preset shares.
    expect(shaped.slice(6)).toEqual(sparse.slice(6));
    expect(Number(/meanToolCalls\s+([\d.]+)/.exec(res.stdout)?.[1])).toBeCloseTo(Number(shaped[7]), 3);
    expect(readFileSync(join(outDir, "ablation.svg"), "utf8")).toMatch(/^<svg/);
    expect(cli(["ablate", "--env", "Demo-v0", "--presets", "nope"]).stderr).toMatch(/unknown reward preset/);
  });

  it("pairs forks at the first fault and continues two policies from the same state", () => {
    const out = join(dir, "pairs.jsonl");
    const res = cli(["pairs", "--env", "Demo-v0", "--contrast", "adversary:immediate-abort", "--episodes", "3", "--out", out, "--opt", "fault=transient"]);
    expect(res.status).toBe(0);
    expect(existsSync(out)).toBe(true);
    const pairs = jsonl(out);
    expect(pairs).toHaveLength(3);
    expect(pairs[0]).toMatchObject({ forkStep: 1, preferred: 0, contrast: "policy" });
    expect(pairs[0].branches[1].terminationReason).toBe("aborted");
    expect(pairs[0].branches[0].success).toBe(true);
  });
});

// ---- pairs on every family ----------------------------------------------------------------------------------------

interface Replayed {
  actions: Action[];
  rewards: number[];
  faultSteps: number[];
}

/** Plays `actions` from reset on a fresh env and reports the rewards and the steps on which a fault fired. */
function replay(envId: string, options: Record<string, unknown>, seed: number, actions: readonly Action[]): Replayed {
  const env = make(envId, options);
  env.reset({ seed });
  const out: Replayed = { actions: [], rewards: [], faultSteps: [] };
  actions.forEach((a, t) => {
    const [, r, , , info] = env.step(a);
    out.actions.push(a);
    out.rewards.push(r);
    if (((info.events as { type: string }[] | undefined) ?? []).some((e) => e.type === "fault_injected" || /blocker|fault/.test(e.type))) out.faultSteps.push(t);
  });
  env.close();
  return out;
}

/** A policy's own uninterrupted episode (fresh instance, seeded from the episode seed, as pairs does). */
function ownEpisode(envId: string, options: Record<string, unknown>, policyName: string, seed: number, maxSteps = 100): Action[] {
  const env = make(envId, options);
  const policy = policyEntry(envId, policyName).create(env, episodePolicyRng(seed, policyName));
  let [obs, info] = env.reset({ seed }) as [unknown, Info];
  policy.reset?.(obs, info);
  const actions: Action[] = [];
  for (let t = 0; t < maxSteps; t++) {
    const a = policy.act(obs, info) as Action;
    const [o, , term, trunc, i] = env.step(a);
    actions.push(a);
    obs = o;
    info = i;
    if (term || trunc) break;
  }
  env.close();
  return actions;
}

interface PairRecord {
  contrast: string;
  seed: number;
  forkStep: number;
  faultStep?: number;
  prefix: Action[];
  options: JsonObject;
  noFaultOptions?: JsonObject;
  branches: { policy: string; options: JsonObject; actions: Action[]; rewards: number[]; episodeReturn: number }[];
}

const FAMILIES: { id: string; options: Record<string, unknown>; policy: string; contrast: string }[] = [
  { id: "ToolMaze-v0", options: { perturbation: "P2" }, policy: "heuristic", contrast: "random" },
  { id: "PlanBenchXL-v0", options: { setting: "blocker" }, policy: "planner", contrast: "random" },
  { id: "FailingTools-v0", options: {}, policy: "careful", contrast: "naive" },
  { id: "ToolMisuseBench-v0", options: {}, policy: "instruction-parser", contrast: "heuristic" },
];

describe("pairs on every family", () => {
  const runPairs = (id: string, options: Record<string, unknown>, policy: string, contrast: string, episodes: number): PairRecord[] => {
    const out = join(dir, `pairs-${id}-${contrast}.jsonl`);
    const opts = Object.entries(options).flatMap(([k, v]) => ["--opt", `${k}=${String(v)}`]);
    expect(pairsCommand(["--env", id, "--policy", policy, "--contrast", contrast, "--episodes", String(episodes), "--out", out, "--quiet", ...opts])).toBe(0);
    return existsSync(out) ? (jsonl(out) as PairRecord[]) : [];
  };

  for (const { id, options, policy, contrast } of FAMILIES) {
    it(`${id}: ${policy} vs ${contrast} after the first fault; both branches continue from the real fork state`, () => {
      const pairs = runPairs(id, options, policy, contrast, 4);
      expect(pairs.length).toBeGreaterThan(0);
      for (const p of pairs) {
        // P's branch is exactly what P does when it plays the episode uninterrupted (not a new instance that lost
        // the tool schemas and its plan at the fork).
        expect(stableStringify([...p.prefix, ...p.branches[0].actions])).toBe(stableStringify(ownEpisode(id, options, policy, p.seed)));
        // The fault fired on the last prefix step, and Q's branch replays to the rewards recorded for it.
        const q = replay(id, options, p.seed, [...p.prefix, ...p.branches[1].actions]);
        expect(q.faultSteps[0]).toBe(p.forkStep - 1);
        expect(q.rewards.slice(p.forkStep)).toEqual(p.branches[1].rewards);
        expect(p.branches[1].policy).toBe(contrast);
      }
    });

    it(`${id}: the same seed with and without the fault (--contrast fault)`, () => {
      const pairs = runPairs(id, options, policy, "fault", 3);
      expect(pairs.length).toBeGreaterThan(0);
      const noFault = registryEntry(id).noFaultOptions as JsonObject;
      expect(noFault).toBeDefined();
      for (const p of pairs) {
        expect(p).toMatchObject({ contrast: "fault", preferred: null });
        expect(p.branches.map((b) => b.policy)).toEqual([policy, policy]);
        const [faulty, clean] = p.branches.map((b, i) => replay(id, i === 0 ? p.options : (p.noFaultOptions as JsonObject), p.seed, [...p.prefix, ...b.actions]));
        expect(faulty.faultSteps.length).toBeGreaterThan(0);
        expect(clean.faultSteps).toEqual([]);
        expect(faulty.rewards.reduce((a, b) => a + b, 0)).toBeCloseTo(p.branches[0].episodeReturn, 9);
        expect(clean.rewards.reduce((a, b) => a + b, 0)).toBeCloseTo(p.branches[1].episodeReturn, 9);
        // Same task: both episodes start from the same observation.
        const [a, b] = [make(id, p.options), make(id, p.noFaultOptions as JsonObject)];
        expect(stableStringify(b.reset({ seed: p.seed })[0])).toBe(stableStringify(a.reset({ seed: p.seed })[0]));
      }
    });
  }

  it("--contrast fault refuses options under which the no-fault variant is another task", () => {
    expect(() => pairsCommand(["--env", "ToolMaze-v0", "--contrast", "fault", "--episodes", "3", "--out", join(dir, "tm-any.jsonl"), "--quiet"])).toThrow(/initial observations differ/);
  });
});
