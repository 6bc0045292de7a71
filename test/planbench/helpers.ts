import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadRelease } from "../../envs/planbench/dataset.js";
import type { PlanBenchRelease } from "../../envs/planbench/releaseFormat.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The official data: `$PLANBENCH_DATA_DIR` (e.g. a full 327-query release), else `../shared/planbench-xl` (the
 * 227-query subset; a worktree sits one level deeper). A set but wrong `$PLANBENCH_DATA_DIR` is an error, not a
 * silent fall-back to the subset, so the tests that need a full release cannot be skipped by a typo.
 */
export function officialDir(): string | null {
  const env = process.env["PLANBENCH_DATA_DIR"];
  if (env) {
    const dir = path.resolve(env);
    if (!existsSync(path.join(dir, "tasks.json"))) throw new Error(`PLANBENCH_DATA_DIR=${env}: no tasks.json in ${dir}`);
    return dir;
  }
  const cands = [path.resolve(repoRoot, "../shared/planbench-xl"), path.resolve(repoRoot, "../../shared/planbench-xl")];
  for (const c of cands) if (existsSync(path.join(c, "tasks.json"))) return c;
  return null;
}

/** The full official release has 327 queries; the shipped subset 227. */
export const FULL_RELEASE_QUERIES = 327;

let cached: PlanBenchRelease | null | undefined;
export function officialRelease(): PlanBenchRelease | null {
  if (cached === undefined) {
    const d = officialDir();
    cached = d ? loadRelease(d) : null;
  }
  return cached;
}
