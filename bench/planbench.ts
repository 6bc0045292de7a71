/**
 * PlanBench-XL speed: retrieval steps/s, call steps/s, and reset (blocker planning) time per task.
 * Run: npx tsx bench/planbench.ts [dataDir]
 */
import path from "node:path";
import { loadRelease } from "../envs/planbench/dataset.js";
import { defaultDataDir } from "../envs/planbench/worldSource.js";
import { planBlockers } from "../envs/planbench/faults.js";
import { loadPreset } from "../envs/planbench/settings.js";
import { createWorld, PlanBenchEpisode } from "../envs/planbench/world/index.js";
import { resolveQueryInputs } from "../envs/planbench/dataset.js";

const dir = process.argv[2] ?? defaultDataDir();
if (!dir) {
  console.error("no PlanBench-XL release found: pass a directory or set PLANBENCH_DATA_DIR");
  process.exit(1);
}
const rel = loadRelease(path.resolve(dir));
const now = (): number => performance.now();

function retrievalRate(setting: "default" | "blocker"): number {
  const world = createWorld(rel, loadPreset(setting));
  const phrases = rel.datatypes.map((d) => d.aliases[0] ?? d.name);
  let n = 0;
  const t0 = now();
  while (now() - t0 < 1000) {
    const q = rel.queries[n % rel.queries.length]!;
    const ep = new PlanBenchEpisode(world, q);
    for (let i = 0; i < 20; i++) {
      const p = phrases[(n + i) % phrases.length]!;
      ep.step({
        kind: "retrieve",
        request: { meta_tool: i % 2 ? "by_output_info" : "by_inputs", output_information: p, input_information: [p] },
      });
    }
    n += 20;
  }
  return (n * 1000) / (now() - t0);
}

function callRate(): number {
  const world = createWorld(rel, loadPreset("default"));
  let n = 0;
  const t0 = now();
  while (now() - t0 < 1000) {
    for (const q of rel.queries) {
      const ep = new PlanBenchEpisode(world, q);
      const vals = new Map<string, unknown>(Object.entries(resolveQueryInputs(rel, q)));
      for (const name of ep.task.one_available_path) ep.discovered.add(name);
      for (const name of ep.task.one_available_path) {
        const t = rel.toolByName.get(name)!;
        const args: Record<string, never> = {};
        for (const [s, d] of Object.entries(t.surface_argument_to_datatype)) args[s] = vals.get(d) as never;
        const o = ep.step({ kind: "call", payload: { name, arguments: args } });
        vals.set(t.output_datatype, o.entry.tool_result?.output_value);
        n++;
      }
    }
  }
  return (n * 1000) / (now() - t0);
}

function resetTimes(): Array<[string, number, number]> {
  const out: Array<[string, number, number]> = [];
  for (const s of ["blocker", "finegrain_long", "noise_ratio_0.2", "noise_ratio_0.8"] as const) {
    const cfg = loadPreset(s).blocker;
    const times: number[] = [];
    for (const t of rel.tasks) {
      const t0 = now();
      planBlockers(t.task_id, rel.catalog.get(t.task_id)!, cfg);
      times.push(now() - t0);
    }
    times.sort((a, b) => a - b);
    out.push([s, times.reduce((a, b) => a + b, 0) / times.length, times[Math.floor(times.length * 0.99)]!]);
  }
  return out;
}

const rD = retrievalRate("default");
const rB = retrievalRate("blocker");
const c = callRate();
console.log(`PlanBench-XL bench on ${rel.queries.length} queries (${dir})`);
console.log("| measure | value |\n|---|---|");
console.log(`| retrieval steps/s (default) | ${rD.toFixed(0)} |`);
console.log(`| retrieval steps/s (blocker) | ${rB.toFixed(0)} |`);
console.log(`| call steps/s (baseline DB lookups) | ${c.toFixed(0)} |`);
console.log(`| ratio call / retrieval | ${(c / rD).toFixed(2)} |`);
console.log("\n| setting | blocker planning ms/task (mean) | p99 |\n|---|---|---|");
for (const [s, m, p] of resetTimes()) console.log(`| ${s} | ${m.toFixed(2)} | ${p.toFixed(2)} |`);
