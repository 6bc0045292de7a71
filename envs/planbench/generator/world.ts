/**
 * `generatePlanBenchWorld`: the whole built-in release (datatypes, baseline / noisy / blocker
 * tools, database, tasks, queries, path catalog) in the official file format.
 *
 * Why text output: files are written with a fixed formatter (insertion-ordered keys, 2-space
 * indent, Python float repr), so the same seed gives identical bytes, and the in-memory default
 * world is parsed from exactly these texts, so its runtime semantics equal the on-disk release's.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Rng } from "../../../src/family.js";
import { pyJsonDumps, type PyValue } from "../compat/pyvalue.js";
import type { Datatype, ReleaseFile } from "../releaseFormat.js";
import { HashingRetriever } from "../world/retriever.js";
import { renderBlockers } from "./blockers.js";
import { ToolGraph } from "./catalog.js";
import { entityIndex, generateDatabase, type GeneratedDatabase } from "./database.js";
import { renderNoisy } from "./noisy.js";
import { loadDomain, parseDomain, type Domain } from "./schema.js";
import { generateTasks } from "./tasks.js";
import { buildToolSpecs, renderBaseline } from "./tools.js";

/** Bump when the generator's output changes for a fixed seed (keys caches of generated worlds). */
export const GENERATOR_VERSION = "3";

export interface GenerateWorldOptions {
  seed?: number;
  /** Write the release files here (created if missing). */
  outDir?: string;
  /** A shipped domain name, a path to a domain JSON file, or a parsed domain object. */
  domain?: string | Domain;
  /** Called as each stage starts (`recovery-gym generate` shows it), and once at the end. */
  progress?: (done: number, total: number, stage: string) => void;
}

export interface GeneratedWorld {
  domain: string;
  seed: number;
  /** File name -> exact text. */
  files: Record<ReleaseFile, string>;
  stats: Record<string, number>;
  /** Histogram of shortest solution lengths L* (steps -> tasks). */
  stepsHistogram: Record<string, number>;
  summary: string;
}

/** Datatype records; aliases that the runtime's retriever would map elsewhere are dropped. */
function datatypeRecords(domain: Domain, db: GeneratedDatabase): { records: Datatype[]; droppedAliases: number } {
  const { entityOf } = entityIndex(domain);
  const records: Datatype[] = domain.datatypes.map((d) => {
    const example = db.rows.map((r) => r[d.name]).find((v) => v !== null && v !== undefined) ?? null;
    return {
      name: d.name,
      category: entityOf.get(d.name)!.category,
      value_type: d.value_type,
      description: d.description,
      example: example as PyValue,
      aliases: [...d.aliases],
    };
  });
  const retr = new HashingRetriever(records, []);
  let dropped = 0;
  for (const r of records) {
    const keep = r.aliases.filter((a) => retr.match(a).dt === r.name);
    dropped += r.aliases.length - keep.length;
    if (keep.length < 5)
      throw new Error(
        `generator: datatype "${r.name}" keeps only ${keep.length} aliases that retrieve it (need >= 5); edit the domain file`,
      );
    r.aliases = keep;
  }
  return { records, droppedAliases: dropped };
}

const dump = (v: unknown): string => pyJsonDumps(v, { indent: 2 });

export function generatePlanBenchWorld(opts: GenerateWorldOptions = {}): GeneratedWorld {
  const seed = opts.seed ?? 42;
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError(`generatePlanBenchWorld: seed must be a non-negative integer, got ${seed}`);
  const domain = typeof opts.domain === "object" ? parseDomain(opts.domain) : loadDomain(opts.domain ?? "retail");
  const rng = new Rng(`planbench-xl/${domain.domain}/${seed}`);
  const stage = (done: number, name: string) => opts.progress?.(done, 4, name);
  stage(0, "database");
  const db = generateDatabase(domain, rng.derive("database"));
  const { records, droppedAliases } = datatypeRecords(domain, db);
  stage(1, "tools");
  const { specs, dropped } = buildToolSpecs(domain, db, rng.derive("tools"));
  const names = new Set<string>();
  const baseline = renderBaseline(domain, specs, rng.derive("baseline"), names);
  const noisy = renderNoisy(domain, baseline, db, rng.derive("noisy"), names);
  const blockers = renderBlockers(domain, baseline, rng.derive("blockers"), names);
  const graph = new ToolGraph(baseline.map((t) => ({ name: t.name, inputs: t.input_datatypes, output: t.output_datatype })));
  stage(2, "tasks");
  const { tasks, stats } = generateTasks(domain, graph, db, rng.derive("tasks"));
  if (tasks.length === 0) throw new Error(`generator: domain "${domain.domain}" produced no task passing the filters`);

  const cases: Record<string, unknown> = {};
  db.ids.forEach((id, i) => (cases[id] = db.rows[i]));
  const catalog: Record<string, unknown> = {};
  for (const t of tasks) catalog[String(t.task["task_id"])] = t.catalog;
  const files: Record<ReleaseFile, string> = {
    "datatypes.json": dump(records),
    "baseline_tools.json": dump(baseline),
    "noisy_tools.json": dump(noisy),
    "blocker_tools.json": dump(blockers),
    "database.json": dump({ [domain.database.rootKey]: cases }),
    "tasks.json": dump(tasks.map((t) => t.task)),
    "queries.json": dump(tasks.map((t) => t.query)),
    "paths_set_catalog.json": dump(catalog),
  };
  const hist: Record<string, number> = {};
  for (const t of tasks) hist[String(t.task["steps"])] = (hist[String(t.task["steps"])] ?? 0) + 1;
  const pathSets = tasks.reduce((s, t) => s + t.catalog.length, 0);
  const composites = specs.filter((s) => s.kind === "composite").length;
  const fullStats = {
    ...stats,
    datatypes: records.length,
    baselineTools: baseline.length,
    compositeTools: composites,
    noisyTools: noisy.length,
    blockerTools: blockers.length,
    cases: db.rows.length,
    tasks: tasks.length,
    pathSets,
    droppedAliases,
    droppedNonFunctionalTools: dropped,
  };
  const summary =
    `PlanBench-XL built-in world "${domain.domain}" (seed ${seed}): ${records.length} ` +
    `datatypes, ${baseline.length} executable tools (${composites} composite), ` +
    `${noisy.length} noisy, ${blockers.length} blockers, ${db.rows.length} cases, ${tasks.length} tasks, ${pathSets} catalog path sets; ` +
    `L* histogram ${Object.entries(hist)
      .map(([k, v]) => `${k}:${v}`)
      .join(" ")}`;
  stage(3, "files");
  if (opts.outDir) writeWorld(opts.outDir, files);
  stage(4, "done");
  return { domain: domain.domain, seed, files, stats: fullStats, stepsHistogram: hist, summary };
}

/** Write the release files (UTF-8, no trailing newline, as the official files). */
export function writeWorld(outDir: string, files: Record<string, string>): string[] {
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const p = path.join(outDir, name);
    writeFileSync(p, text, "utf8");
    written.push(p);
  }
  return written;
}
