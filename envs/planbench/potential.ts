/**
 * The remaining shortest path of a PlanBench-XL episode: the fewest baseline calls that still lead from what the
 * agent holds (trusted datatypes) to the target, over catalog paths that avoid the blocked tools. Its negation is
 * the shaping potential Φ (issue 8; Ng, Harada & Russell, 1999).
 *
 * Why the catalog is enough: the catalog lists every inclusion-minimal tool set that derives the target from the
 * query inputs. If T is an optimal remaining plan from the held set H, and A the trusted calls that produced H,
 * then A ∪ T derives the target, so it contains a catalog set M; pruning M backward from the target at held
 * datatypes keeps only tools outside A, i.e. inside T. So min over catalog sets of the pruned size equals |T|.
 * (Blocked tools are never shown, hence never in A; restricting to unblocked sets keeps the argument.)
 */
import type { PathSet, ToolRecord } from "./releaseFormat.js";

/** One catalog path as producer links: output datatype -> input datatypes of the tool that makes it. */
export interface PathSignature {
  index: number;
  producers: ReadonlyMap<string, readonly string[]>;
}

type Signature = Pick<ToolRecord, "input_datatypes" | "output_datatype">;

/** Catalog paths whose tools are all unblocked (path index = catalog order). */
export function unblockedPaths(
  entries: readonly PathSet[],
  toolByName: ReadonlyMap<string, Signature>,
  blocked: ReadonlySet<string>,
): PathSignature[] {
  const out: PathSignature[] = [];
  entries.forEach((p, index) => {
    if (p.tool_set.some((n) => blocked.has(n))) return;
    const producers = new Map<string, readonly string[]>();
    for (const n of p.tool_set) {
      const t = toolByName.get(n);
      // A minimal set has one producer per datatype; keep the first if a release says otherwise.
      if (t && !producers.has(t.output_datatype)) producers.set(t.output_datatype, t.input_datatypes);
    }
    out.push({ index, producers });
  });
  return out;
}

/** Calls of one path still needed from `held` (null when the path cannot finish from there). */
export function prunedLength(path: PathSignature, held: ReadonlySet<string>, target: string): number | null {
  if (held.has(target)) return 0;
  const seen = new Set<string>();
  const stack = [target];
  while (stack.length > 0) {
    const d = stack.pop()!;
    if (held.has(d) || seen.has(d)) continue;
    const inputs = path.producers.get(d);
    if (!inputs) return null;
    seen.add(d);
    for (const i of inputs) stack.push(i);
  }
  return seen.size;
}

/** The remaining shortest path length over the given paths (null: none can finish). */
export function remainingShortestPath(paths: readonly PathSignature[], held: ReadonlySet<string>, target: string): number | null {
  if (held.has(target)) return 0;
  let best: number | null = null;
  for (const p of paths) {
    const n = prunedLength(p, held, target);
    if (n !== null && (best === null || n < best)) best = n;
  }
  return best;
}
