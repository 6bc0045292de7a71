/**
 * Structural and type validation of a generated task (cycle, categories, domains, bindings), and the graphology DAG
 * over its concrete tools that the cycle check falls back on and the tests read.
 */
import { DirectedGraph } from "graphology";
import { corpus } from "../world/corpus.js";
import type { Domain } from "../world/catalog.js";
import type { Task } from "./model.js";

/** The graphology DAG over concrete tools: an edge per (provider member -> consumer member, parameter). */
export function buildDag(task: Pick<Task, "positions">): DirectedGraph {
  const g = new DirectedGraph({ multi: false, allowSelfLoops: false });
  const c = corpus();
  for (const p of task.positions) {
    for (const m of p.members) {
      const t = c.tool(m);
      g.addNode(m, { position: p.index, group: p.cap, category: t.category, slot: p.slot });
    }
  }
  for (const p of task.positions) {
    for (const [param, b] of Object.entries(p.bindings)) {
      if (b.kind !== "bound") continue;
      for (const from of b.from) {
        for (const src of task.positions[from]!.members) {
          for (const dst of p.members) {
            const field = Object.entries(c.tool(src).outputTypes).find(([, ty]) => ty === b.type)?.[0];
            g.mergeEdge(src, dst, { param, field, type: b.type });
          }
        }
      }
    }
  }
  return g;
}

/** Kahn's algorithm over the graphology DAG; returns undefined when the graph has a cycle. */
export function topoOrder(g: DirectedGraph): string[] | undefined {
  const indeg = new Map<string, number>();
  g.forEachNode((n) => indeg.set(n, g.inDegree(n)));
  const ready = [...indeg.entries()]
    .filter(([, d]) => d === 0)
    .map(([n]) => n)
    .sort();
  const out: string[] = [];
  while (ready.length > 0) {
    const n = ready.shift()!;
    out.push(n);
    for (const m of g.outNeighbors(n).sort()) {
      const d = indeg.get(m)! - 1;
      indeg.set(m, d);
      if (d === 0) ready.push(m);
    }
  }
  return out.length === g.order ? out : undefined;
}

/**
 * Whether `buildDag(task)` would have a cycle, without building it. Every generated task is validated, and a
 * graphology graph defines accessor closures per instance, which give each graph its own hidden class: the old-space
 * map keeps the graph alive through scavenges until a full GC (measured: ~5 KB promoted per sampled reset). Each
 * tool belongs to one position, so the tool graph has a cycle iff the position graph (an edge from each provider
 * position to its consumer, both with members) has one. Tasks outside that shape (a tool in two positions, a provider
 * index out of range) go through `buildDag`, which refuses them exactly as before.
 */
function hasCycle(task: Pick<Task, "positions">): boolean {
  const positions = task.positions;
  const n = positions.length;
  const seen = new Set<string>();
  for (const p of positions) {
    for (const m of p.members) {
      if (seen.has(m)) return !topoOrder(buildDag(task));
      seen.add(m);
    }
  }
  const indeg = new Int32Array(n);
  const out: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    const p = positions[i]!;
    if (p.members.length === 0) continue;
    for (const param in p.bindings) {
      const b = p.bindings[param]!;
      if (b.kind !== "bound") continue;
      for (const f of b.from) {
        const src = positions[f];
        if (src === undefined) return !topoOrder(buildDag(task));
        if (src.members.length === 0) continue;
        out[f]!.push(i);
        indeg[i]! += 1;
      }
    }
  }
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) ready.push(i);
  let done = 0;
  while (ready.length > 0) {
    const i = ready.pop()!;
    done++;
    for (const j of out[i]!) if (--indeg[j]! === 0) ready.push(j);
  }
  return done < n;
}

/**
 * Structural and type validation; returns a list of problems (empty = valid). With `home`, tools of that domain may
 * be joined by General-domain ones (cross-domain tasks); without it a task has exactly one domain.
 */
export function validateTask(task: Pick<Task, "positions" | "slots">, home?: Domain): string[] {
  const problems: string[] = [];
  const c = corpus();
  if (hasCycle(task)) problems.push("task graph has a cycle");
  const cats = new Set(task.positions.map((p) => p.category));
  if (!cats.has("source")) problems.push("no Source node");
  if (!cats.has("action")) problems.push("no Action node");
  const domains = new Set(task.positions.flatMap((p) => p.members.map((m) => c.tool(m).domain)));
  const foreign = [...domains].filter((d) => d !== home && d !== "General");
  const mixed = home === undefined ? domains.size !== 1 : foreign.length > 0 || !domains.has(home);
  if (mixed) problems.push(`mixed domains: ${[...domains].join(",")}`);
  for (const p of task.positions) {
    const capSpec = c.caps.get(p.cap);
    if (!capSpec) {
      problems.push(`unknown capability ${p.cap}`);
      continue;
    }
    for (const m of p.members) if (c.tool(m).group !== p.cap) problems.push(`${m} is not in group ${p.cap}`);
    for (const [param, type] of Object.entries(capSpec.params)) {
      const b = p.bindings[param];
      if (!b) {
        problems.push(`${p.cap}.${param} unbound`);
        continue;
      }
      if (b.kind === "bound") {
        if (b.type !== type) problems.push(`${p.cap}.${param}: edge type ${b.type} != ${type}`);
        for (const f of b.from) {
          const src = task.positions[f];
          if (!src || f >= p.index) problems.push(`${p.cap}.${param}: provider ${f} not upstream`);
          else if (!Object.values(c.caps.get(src.cap)!.outputs).includes(type)) problems.push(`${src.cap} does not output ${type}`);
        }
      }
    }
  }
  for (const s of task.slots) if (task.positions[s.goal]?.category !== "action") problems.push(`slot ${s.slot} goal is not an Action`);
  return problems;
}
