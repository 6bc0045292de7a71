import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadRelease, type PlanBenchRelease } from "../../envs/planbench/dataset.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The official data: `$PLANBENCH_DATA_DIR`, else `../shared/planbench-xl` (a worktree sits one level deeper). */
export function officialDir(): string | null {
  const cands = [process.env["PLANBENCH_DATA_DIR"], path.resolve(repoRoot, "../shared/planbench-xl"), path.resolve(repoRoot, "../../shared/planbench-xl")];
  for (const c of cands) if (c && existsSync(path.join(c, "tasks.json"))) return c;
  return null;
}

let cached: PlanBenchRelease | null | undefined;
export function officialRelease(): PlanBenchRelease | null {
  if (cached === undefined) {
    const d = officialDir();
    cached = d ? loadRelease(d) : null;
  }
  return cached;
}
