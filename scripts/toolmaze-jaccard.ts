/**
 * Prints the diversity check of a canonical ToolMaze suite: per level, the mean pairwise Jaccard similarity of
 * task tool sets (must be <= 0.06), distinct capability structures, plus tool-set sizes, |s*|, solution counts, domain
 * balance, fault strata (v1: victim category / corruption family of each slot) and text variety.
 * With --check it exits 1 unless every level keeps Jaccard <= 0.06, and for v1 also unless |s*| grows with C, every
 * level holds the same strata mix and every alternative route takes at least two calls.
 * Run: npx tsx scripts/toolmaze-jaccard.ts [--env v0|v1] [--check]
 */
import { formatTable } from "../src/metrics/table.js";
import { canonicalTasks, capabilityStructure, COMPLEXITIES, meanPairwiseJaccard } from "../envs/toolmaze/tasks.js";
import { taskTools } from "../envs/toolmaze/task/model.js";
import { TOOLMAZE_VERSIONS, type ToolMazeVersion } from "../envs/toolmaze/version.js";
import { DOMAINS } from "../envs/toolmaze/world/catalog.js";

const args = process.argv.slice(2);
const at = args.indexOf("--env");
const version = (at >= 0 ? args[at + 1]!.replace(/^ToolMaze-/, "") : "v1") as ToolMazeVersion;
if (!TOOLMAZE_VERSIONS.includes(version)) throw new Error(`--env: expected one of ${TOOLMAZE_VERSIONS.join(", ")}, got ${version}`);
const tasks = canonicalTasks(version);
const strataMix = (ts: typeof tasks): string => {
  const n = new Map<string, number>();
  for (const t of ts) {
    for (const s of t.strata ?? []) {
      const key = `${s.category[0]}/${s.family[0]}`;
      n.set(key, (n.get(key) ?? 0) + 1);
    }
  }
  return (
    [...n.entries()]
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(", ") || "-"
  );
};
const problems: string[] = [];
const sStar: number[] = [];
const firstSlotMix: string[] = [];
const rows = COMPLEXITIES.map((c) => {
  const ts = tasks.filter((t) => t.complexity === c);
  const avg = (f: (t: (typeof ts)[number]) => number) => Math.round((ts.reduce((a, t) => a + f(t), 0) / ts.length) * 100) / 100;
  const j = meanPairwiseJaccard(ts);
  if (j > 0.06) problems.push(`${c}: mean Jaccard ${j.toFixed(4)} > 0.06`);
  sStar.push(avg((t) => t.sStar.length));
  firstSlotMix.push(strataMix(ts.map((t) => ({ ...t, strata: t.strata?.slice(0, 1) }))));
  return [
    c,
    ts.length,
    Math.round(j * 10000) / 10000,
    j <= 0.06 ? "ok" : "FAIL",
    new Set(ts.map(capabilityStructure)).size,
    avg((t) => taskTools(t).length),
    avg((t) => t.sStar.length),
    avg((t) => t.solutions.length),
    DOMAINS.map((d) => ts.filter((t) => t.domain === d).length).join("/"),
    strataMix(ts),
  ];
});
console.log(`ToolMaze-${version} canonical suite`);
console.log(
  formatTable(
    [
      "level",
      "tasks",
      "mean Jaccard",
      "<= 0.06",
      "structures",
      "tools/task",
      "|s*|",
      "solutions",
      "per domain (F/T/O/S/I/G)",
      "strata (a/s/p victim, l/v corruption)",
    ],
    rows,
  ),
);
const openings = new Set(tasks.map((t) => t.text.split(/\s+/).slice(0, 3).join(" ")));
console.log(`texts: ${new Set(tasks.map((t) => t.text)).size} distinct of ${tasks.length}; ${openings.size} distinct three-word openings`);
if (version !== "v0") {
  if (!sStar.every((x, i) => i === 0 || x > sStar[i - 1]!)) problems.push(`|s*| does not grow with C: ${sStar.join(" / ")}`);
  if (new Set(firstSlotMix).size !== 1) problems.push(`strata differ between levels (first slot): ${firstSlotMix.join(" | ")}`);
  // Every alternative route (each branch but the shortest, per slot) takes at least two calls.
  const shortAlternatives = tasks.filter((t) => {
    const branches = new Map<string, number>();
    for (const p of t.positions) {
      const key = p.route ? `${p.slot}/${p.route.branch}` : null;
      if (key) branches.set(key, (branches.get(key) ?? 0) + 1);
    }
    return t.slots.some((s) =>
      [...branches]
        .filter(([k]) => k.startsWith(`${s.slot}/`))
        .map(([, n]) => n)
        .sort((a, b) => a - b)
        .slice(1)
        .some((n) => n < 2),
    );
  });
  if (shortAlternatives.length > 0) problems.push(`alternative routes of one call in ${shortAlternatives.map((t) => t.id).join(", ")}`);
}
if (args.includes("--check")) {
  for (const p of problems) console.log(`FAIL ${p}`);
  console.log(problems.length === 0 ? "check: OK" : `check: ${problems.length} problem(s)`);
  if (problems.length > 0) process.exitCode = 1;
}
