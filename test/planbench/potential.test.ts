import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { prunedLength, remainingShortestPath, unblockedPaths } from "../../envs/planbench/potential.js";
import { ADVERSARIES, make, recordEpisodes, resolveRewardSpec, returnsUnder, Rng } from "../../src/index.js";
import type { Action } from "../../src/engine/actions.js";
import type { ToolEnv } from "../../src/engine/toolEnv.js";
import { potentialShapingGaps } from "../helpers/potentialIdentity.js";

const ID = "PlanBenchXL-v0";
const SEEDS = Array.from({ length: 12 }, (_, i) => 500 + i);

describe("remaining shortest path over unblocked catalog paths", () => {
  // a -> b -> c -> t (3 calls) and a -> x -> t via a two-input tool (x, a) -> t (2 calls).
  const tools = new Map([
    ["ab", { input_datatypes: ["a"], output_datatype: "b" }],
    ["bc", { input_datatypes: ["b"], output_datatype: "c" }],
    ["ct", { input_datatypes: ["c"], output_datatype: "t" }],
    ["ax", { input_datatypes: ["a"], output_datatype: "x" }],
    ["xat", { input_datatypes: ["x", "a"], output_datatype: "t" }],
  ]);
  const catalog = [
    { tool_set: ["ab", "bc", "ct"], steps: 3 },
    { tool_set: ["ax", "xat"], steps: 2 },
  ] as never;

  it("takes the shorter path, prunes at held datatypes, and skips blocked paths", () => {
    const all = unblockedPaths(catalog, tools, new Set());
    expect(remainingShortestPath(all, new Set(["a"]), "t")).toBe(2);
    // Holding c makes the long path one call away.
    expect(remainingShortestPath(all, new Set(["a", "c"]), "t")).toBe(1);
    expect(prunedLength(all[0]!, new Set(["a", "b"]), "t")).toBe(2);
    expect(remainingShortestPath(all, new Set(["a", "t"]), "t")).toBe(0);
    const blocked = unblockedPaths(catalog, tools, new Set(["xat"]));
    expect(blocked.map((p) => p.index)).toEqual([0]);
    expect(remainingShortestPath(blocked, new Set(["a"]), "t")).toBe(3);
    // A path that cannot finish from what is held does not count.
    expect(prunedLength(all[1]!, new Set(["b"]), "t")).toBeNull();
  });
});

describe("PlanBenchXL-v0 potential Φ = −(remaining shortest path over unblocked tools)", () => {
  it("Φ(s_0) = −(shortest unblocked catalog path) for every query under blockers, and Φ never decreases", () => {
    const env = make(ID, { world: "builtin", setting: "blocker" }) as unknown as PlanBenchEnv;
    let blockedLonger = 0;
    for (const q of env.release.queries) {
      const [, info] = env.reset({ seed: 1, options: { queryId: q.query_id } });
      const plan = env.session!.episode.plan;
      const entries = env.release.catalog.get(q.task_id)!;
      const lens = (skip: ReadonlySet<string>) =>
        entries.filter((p) => !p.tool_set.some((n) => skip.has(n))).map((p) => new Set(p.tool_set).size);
      const unblocked = Math.min(...lens(new Set(plan.blockedTools)));
      expect(info["phi"], q.query_id).toBe(-unblocked);
      expect((info["hidden"] as { remainingCalls: number }).remainingCalls).toBe(unblocked);
      if (unblocked > Math.min(...lens(new Set()))) blockedLonger++;
    }
    // Blocking does lengthen the remaining path for some tasks (the potential sees the blockers).
    expect(blockedLonger).toBeGreaterThan(0);
    const eps = recordEpisodes(ID, { world: "builtin", setting: "blocker" }, "planner", SEEDS, 200);
    for (const e of eps) {
      let prev = e.phi0 as number;
      for (const s of e.steps) {
        expect(s.phi as number).toBeGreaterThanOrEqual(prev);
        prev = s.phi as number;
      }
      if (e.success) expect(prev).toBe(0);
    }
  });

  it("potential-only return equals Φ(s_T) − Φ(s_0) for baselines and adversaries; live with γ = 0.9 too", () => {
    const opts = { world: "builtin", setting: "blocker" };
    const spec = resolveRewardSpec("potential-only", "planbench", (make(ID, opts) as unknown as ToolEnv<unknown>).knownTerms());
    let moved = 0;
    for (const policy of ["planner", "oracle", "random", ...Object.keys(ADVERSARIES).map((a) => `adversary:${a}`)]) {
      const eps = recordEpisodes(ID, opts, policy, SEEDS.slice(0, 6), 200);
      returnsUnder(spec, eps).forEach((r, i) => {
        const e = eps[i]!;
        const d = (e.steps[e.steps.length - 1]!.phi as number) - (e.phi0 as number);
        if (d !== 0) moved++;
        expect(r).toBeCloseTo(d, 12);
      });
    }
    expect(moved).toBeGreaterThan(6);
    const gamma = 0.9;
    // Default setting: the one available path is never blocked, so walking it moves Φ mid-episode.
    const env = make(ID, {
      world: "builtin",
      reward: { name: "pot-0.9", gamma, terms: { potential: { weight: 1, kind: "potential" } } },
    }) as unknown as PlanBenchEnv;
    let movedLive = 0;
    for (const seed of SEEDS.slice(0, 4)) {
      const rng = new Rng(seed).derive("random-play");
      const [, info0] = env.reset({ seed });
      let g = 0;
      let t = 0;
      let phi = info0["phi"] as number;
      // Random play that also walks the one available path, so Φ moves in the middle of the episode.
      const path = (info0["hidden"] as { onePath: string[] }).onePath;
      const values = new Map<string, unknown>(Object.entries((info0["hidden"] as { inputValues: Record<string, string> }).inputValues));
      for (; !env.isDone() && t < 60; t++) {
        let a: Action;
        const k = Math.floor(t / 2);
        if (t % 2 === 0 && k < path.length) {
          const tool = env.release.toolByName.get(path[k]!)!;
          a = (tool.input_datatypes.length > 2
            ? { type: "retrieve", meta_tool: "by_output_info", output_information: tool.output_datatype }
            : {
                type: "retrieve",
                meta_tool: "by_io_info",
                output_information: tool.output_datatype,
                input_information: tool.input_datatypes,
              }) as unknown as Action;
        } else if (k < path.length && env.session!.episode.discovered.has(path[k]!)) {
          const tool = env.release.toolByName.get(path[k]!)!;
          const args: Record<string, unknown> = {};
          for (const [s, dt] of Object.entries(tool.surface_argument_to_datatype)) args[s] = values.get(dt) ?? "?";
          a = { type: "tool_call", name: tool.name, arguments: args } as unknown as Action;
        } else a = rng.bool(0.1) ? ({ type: "answer", content: "x" } as Action) : (env.actionSpace.sample(rng) as Action);
        const [obs, r, , , info] = env.step(a);
        const tr = (obs.response as { toolResult?: { name: string; output: unknown } } | null)?.toolResult;
        if (tr) values.set(env.release.toolByName.get(tr.name)!.output_datatype, tr.output);
        g += gamma ** t * r;
        if (info["phi"] !== phi) movedLive++;
        phi = info["phi"] as number;
      }
      expect(info0["phi"] as number).toBeLessThan(0);
      expect(g).toBeCloseTo(gamma ** t * phi - (info0["phi"] as number), 12);
    }
    expect(movedLive).toBeGreaterThan(4);
  });

  it("shaped − shaped-no-potential = 0.05 · (Φ(s_T) − Φ(s_0)) on the planner's episodes", () => {
    const terms = (make(ID, { world: "builtin" }) as unknown as ToolEnv<unknown>).knownTerms();
    const eps = recordEpisodes(ID, { world: "builtin" }, "planner", SEEDS, 200);
    let progressed = 0;
    for (const { got, want, delta } of potentialShapingGaps("planbench", terms, eps)) {
      if (delta > 0) progressed++;
      expect(got).toBeCloseTo(want, 12);
    }
    expect(progressed).toBeGreaterThan(SEEDS.length / 2);
  });
});
