import { describe, expect, it } from "vitest";
import { createWorld, PlanBenchEpisode } from "../../envs/planbench/world/index.js";
import { loadPreset } from "../../envs/planbench/settings.js";
import { PlanBenchSession } from "../../envs/planbench/session.js";
import { OracleAgent, PlannerAgent, admitsUnreliability, looksSuspicious, targetPhrase } from "../../envs/planbench/baselines.js";
import { aggregateMetrics, scoreEpisode } from "../../envs/planbench/scorer.js";
import { resolveQueryInputs } from "../../envs/planbench/dataset.js";
import { pystr, normAns } from "../../envs/planbench/compat/index.js";
import { officialRelease } from "./helpers.js";

const rel = officialRelease();

function runAll(setting: "default" | "blocker", make: () => { act: PlannerAgent["act"] | OracleAgent["act"] }) {
  const world = createWorld(rel!, loadPreset(setting));
  return rel!.queries.map((q) => {
    const s = new PlanBenchSession(world, q);
    const agent = make();
    while (!s.episode.done) s.step(agent.act(s.observation(), s.hidden()));
    return { q, ep: s.episode, m: scoreEpisode(s.episode.result!, q, rel!.catalog.get(q.task_id)!, { toolByName: rel!.toolByName }) };
  });
}

describe.skipIf(!rel)("baselines on the official data", () => {
  it("replays every task's one_available_path to the gold answer (executor semantics)", () => {
    const world = createWorld(rel!, loadPreset("default"));
    for (const q of rel!.queries) {
      const vals = new Map<string, unknown>(Object.entries(resolveQueryInputs(rel!, q)));
      let last: unknown = null;
      for (const n of rel!.taskById.get(q.task_id)!.one_available_path) {
        const t = rel!.toolByName.get(n)!;
        const args = Object.fromEntries(t.input_datatypes.map((d) => [d, vals.get(d) as never]));
        const ex = world.cases.execute(t, args);
        expect(ex.provenance, `${q.query_id} ${n}`).toBe("trusted");
        vals.set(t.output_datatype, ex.outputValue);
        last = ex.outputValue;
      }
      expect(normAns(last).includes(normAns(q.correct_answer)), `${q.query_id}: ${pystr(last)} vs ${q.correct_answer}`).toBe(true);
    }
  });

  it("oracle reproduces the reference run's per-query numbers (default)", () => {
    const rows = runAll("default", () => new OracleAgent(rel!));
    for (const { ep, m } of rows) {
      expect(ep.result!.status).toBe("success");
      expect(m.turns).toBe(2 * ep.task.steps + 1);
      expect(m.searchTurns).toBe(ep.task.steps);
      expect(m.callTurns).toBe(ep.task.steps);
      expect(m.egtPrecision).toBe(1);
    }
    const rep = aggregateMetrics(rows.map((r) => r.m));
    expect(rep.accuracy).toBe(1);
    expect(rep.searchToCallRatio).toBe(1);
    expect(rep.itcr).toBe(0);
    expect(rep.uirr).toBe(0);
    expect(rep.noisyCallsTotal).toBe(0);
    expect(rep.totalTurns).toBe(rows.reduce((s, r) => s + 2 * r.ep.task.steps + 1, 0));
    // On all 327 queries the reference gives mean explored 5.847 and recall 0.5696; on the subset
    // we only know they must be of that size.
    expect(rep.meanExploredDatatypes).toBeGreaterThan(5.5);
    expect(rep.meanExploredDatatypes).toBeLessThan(6.2);
    expect(rep.egtRecall!).toBeGreaterThan(0.54);
    expect(rep.egtRecall!).toBeLessThan(0.6);
  });

  it("planner scores well in default and visibly worse under blockers", () => {
    const d = aggregateMetrics(runAll("default", () => new PlannerAgent()).map((r) => r.m));
    const b = aggregateMetrics(runAll("blocker", () => new PlannerAgent()).map((r) => r.m));
    expect(d.accuracy).toBeGreaterThan(0.6);
    expect(b.accuracy).toBeLessThan(d.accuracy - 0.05);
    expect(d.noisyCallsTotal).toBe(0);
  });

  it("planner heuristics read descriptions and values", () => {
    expect(admitsUnreliability(rel!.noisyTools[0]!.description)).toBe(true);
    expect(rel!.noisyTools.every((t) => admitsUnreliability(t.description))).toBe(true);
    expect(rel!.baselineTools.filter((t) => admitsUnreliability(t.description)).length).toBeLessThanOrEqual(2);
    expect(["########", "-19.99", "???", "2026-13-40", "1970-01-01T25:61:61Z"].every(looksSuspicious)).toBe(true);
    expect(["ord_7001", "2026-04-01T09:15:00Z", "approved", 79.99].some(looksSuspicious)).toBe(false);
    expect(targetPhrase("Some context `x`. What is the exact funding account reference associated with that purchase?")).toBe("funding account reference");
  });
});

describe.skipIf(!rel)("ambiguous lookups (official crash) become in-episode errors", () => {
  it("returns an ambiguous_lookup call error for a 'None' argument", () => {
    const world = createWorld(rel!, loadPreset("default"));
    // A shipment -> order tool: 14 chain-less cases have null shipment ids.
    const tool = rel!.baselineTools.find((t) => t.input_datatypes.length === 1 && t.input_datatypes[0] === "shipment_id" && t.output_datatype === "order_id")!;
    const ex = world.cases.execute(tool, { shipment_id: "None" });
    expect(ex.ambiguous!.length).toBeGreaterThan(1);
    const q = rel!.queries.find((x) => x.input_datatypes.includes("delivery_attempt_id"))!;
    const ep = new PlanBenchEpisode(world, q);
    ep.currentDatatypes.add("shipment_id");
    ep.step({ kind: "retrieve", request: { meta_tool: "by_io_info", output_information: "order_id", input_information: ["shipment_id"] } });
    const arg = Object.keys(tool.surface_argument_to_datatype)[0]!;
    const o = ep.step({ kind: "call", payload: { name: tool.name, arguments: { [arg]: null } } });
    expect(o.entry.internal_error_type).toBe("ambiguous_lookup");
    expect(o.done).toBe(false);
  });
});
