/**
 * Prints the diversity check of the canonical ToolMaze suite: per level, the mean pairwise Jaccard similarity of
 * task tool sets (must be <= 0.06), distinct capability structures, plus tool-set sizes, solution counts, domain
 * balance, and text variety (distinct texts and three-word openings).
 * Run: npx tsx scripts/toolmaze-jaccard.ts
 */
import { formatTable } from "../src/metrics/table.js";
import { canonicalTasks, COMPLEXITIES, meanPairwiseJaccard } from "../envs/toolmaze/tasks.js";
import { taskTools } from "../envs/toolmaze/task/model.js";
import { DOMAINS } from "../envs/toolmaze/world/catalog.js";

const tasks = canonicalTasks();
/** Capability structure of a task: its capabilities and which capabilities feed each (providers ignored). */
const structure = (t: (typeof tasks)[number]): string => t.positions.map((p) => `${p.cap}<${Object.values(p.bindings)
  .flatMap((b) => (b.kind === "bound" ? [b.from.map((f) => t.positions[f]!.cap).join("|")] : [])).join(",")}`).sort().join(";");
const rows = COMPLEXITIES.map((c) => {
  const ts = tasks.filter((t) => t.complexity === c);
  const avg = (f: (t: (typeof ts)[number]) => number) => Math.round((ts.reduce((a, t) => a + f(t), 0) / ts.length) * 100) / 100;
  const j = meanPairwiseJaccard(ts);
  return [c, ts.length, Math.round(j * 10000) / 10000, j <= 0.06 ? "ok" : "FAIL", new Set(ts.map(structure)).size, avg((t) => taskTools(t).length),
    avg((t) => t.sStar.length), avg((t) => t.solutions.length), DOMAINS.map((d) => ts.filter((t) => t.domain === d).length).join("/")];
});
console.log(formatTable(["level", "tasks", "mean Jaccard", "<= 0.06", "structures", "tools/task", "|s*|", "solutions", "per domain (F/T/O/S/I/G)"], rows));
const openings = new Set(tasks.map((t) => t.text.split(/\s+/).slice(0, 3).join(" ")));
console.log(`texts: ${new Set(tasks.map((t) => t.text)).size} distinct of ${tasks.length}; ${openings.size} distinct three-word openings`);
