/**
 * Built-in PlanBench-XL world: generation time, counts, L* histogram, and oracle / planner /
 * random metrics over every query (default and blocker settings). Run: npx tsx bench/planbench-builtin.ts
 */
import { generatePlanBenchWorld } from "../envs/planbench/generator/index.js";
import { loadReleaseFromTexts } from "../envs/planbench/dataset.js";
import type { PlanBenchRelease } from "../envs/planbench/releaseFormat.js";
import { createWorld } from "../envs/planbench/world/index.js";
import { loadPreset } from "../envs/planbench/settings.js";
import { PlanBenchSession } from "../envs/planbench/session.js";
import { OracleAgent, PlannerAgent, RandomAgent, randomPhrases, type PlanBenchAgent } from "../envs/planbench/baselines.js";
import { aggregateMetrics, scoreEpisode } from "../envs/planbench/scorer.js";
import { Rng } from "../src/core/rng.js";

const seed = Number(process.argv[2] ?? 42);
const t0 = performance.now();
const world = generatePlanBenchWorld({ seed });
const genMs = performance.now() - t0;
const t1 = performance.now();
const rel: PlanBenchRelease = loadReleaseFromTexts(`builtin:${seed}`, world.files);
const loadMs = performance.now() - t1;
console.log(world.summary);
console.log(`generation ${(genMs / 1000).toFixed(2)} s, load (parse + validate) ${(loadMs / 1000).toFixed(2)} s`);
console.log("stats", JSON.stringify(world.stats));
const sets = [...rel.catalog.values()].map((s) => s.length).sort((a, b) => a - b);
console.log(
  `path sets per task: min ${sets[0]}, median ${sets[sets.length >> 1]}, mean ` +
    `${(sets.reduce((a, b) => a + b, 0) / sets.length).toFixed(2)}, max ` +
    `${sets[sets.length - 1]}`,
);
const types = new Map<string, number>();
for (const q of rel.queries) types.set(String(q.input_type), (types.get(String(q.input_type)) ?? 0) + 1);
console.log("input types", JSON.stringify(Object.fromEntries(types)));

function run(setting: "default" | "blocker", mk: (i: number) => PlanBenchAgent) {
  const w = createWorld(rel, loadPreset(setting));
  return rel.queries.map((q, i) => {
    const s = new PlanBenchSession(w, q);
    const agent = mk(i);
    while (!s.episode.done) s.step(agent.act(s.observation(), s.hidden()));
    return scoreEpisode(s.episode.result!, q, rel.catalog.get(q.task_id)!, { toolByName: rel.toolByName }) as unknown as Record<
      string,
      number | null
    >;
  });
}
const phrases = randomPhrases(rel);
const agents: Record<string, (i: number) => PlanBenchAgent> = {
  oracle: () => new OracleAgent(rel),
  planner: () => new PlannerAgent(),
  random: (i) => {
    const r = new Rng(`random/${i}`);
    return new RandomAgent(() => r.random(), phrases);
  },
};
const keys = ["accuracy", "avgTurns", "meanExploredDatatypes", "searchToCallRatio", "itcr", "uirr", "egtPrecision", "egtRecall"] as const;
console.log(["policy", "setting", ...keys].join("\t"));
for (const [name, mk] of Object.entries(agents))
  for (const setting of ["default", "blocker"] as const) {
    const rep = aggregateMetrics(run(setting, mk)) as unknown as Record<string, number | null>;
    console.log(
      [name, setting, ...keys.map((k) => (typeof rep[k] === "number" ? (rep[k] as number).toFixed(4) : String(rep[k])))].join("\t"),
    );
  }
