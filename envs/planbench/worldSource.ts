/**
 * Which release and settings a PlanBenchXL-v0 env runs on: the option conflicts, the data directory (given, found,
 * or none: the generated built-in world) and one loaded release per directory.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { OptionsError, resolveOptionPath } from "../../src/family.js";
import { loadRelease } from "./dataset.js";
import type { PlanBenchRelease } from "./releaseFormat.js";
import { builtinRelease } from "./generator/index.js";
import type { PlanBenchOptions } from "./options.js";
import { loadPreset, mergeSettings, type PlanBenchSettings } from "./settings.js";

const releaseCache = new Map<string, PlanBenchRelease>();

/** Where the official data is when no `dataDir` is given. */
export function defaultDataDir(): string | null {
  const cands = [process.env["PLANBENCH_DATA_DIR"], path.resolve("../shared/planbench-xl"), path.resolve("../../shared/planbench-xl")];
  for (const c of cands) if (c && existsSync(path.join(c, "tasks.json"))) return path.resolve(c);
  return null;
}

function releaseFor(dir: string): PlanBenchRelease {
  let r = releaseCache.get(dir);
  if (!r) {
    r = loadRelease(dir);
    releaseCache.set(dir, r);
  }
  return r;
}

/** The release and merged settings of an env's options (typed `OptionsError` on a conflict or an unknown query). */
export function resolveWorldSource(options: PlanBenchOptions): { release: PlanBenchRelease; settings: PlanBenchSettings } {
  if (options.world === "builtin" && options.dataDir !== undefined) {
    throw new OptionsError("world", `world "builtin" conflicts with dataDir "${options.dataDir}": pass one or the other`);
  }
  if (options.domain !== undefined && options.dataDir !== undefined) {
    throw new OptionsError(
      "domain",
      `domain "${options.domain}" selects the built-in world and conflicts with dataDir "${options.dataDir}": pass one or the other`,
    );
  }
  const builtin = options.world === "builtin" || options.domain !== undefined;
  const dir = builtin ? null : options.dataDir !== undefined ? resolveOptionPath("dataDir", options.dataDir) : defaultDataDir();
  let settings: PlanBenchSettings = mergeSettings(loadPreset(options.setting), options.settings);
  if (options.maxSteps !== undefined) settings = mergeSettings(settings, { runtime: { max_steps: options.maxSteps } });
  // No release given or found: run on the generated built-in world (same loader, same runtime).
  const release = dir ? releaseFor(path.resolve(dir)) : builtinRelease(options.worldSeed, options.domain ?? "retail");
  if (options.queryIds)
    for (const id of options.queryIds)
      if (!release.queries.some((q) => q.query_id === id)) throw new OptionsError("queryIds", `unknown query "${id}" in ${release.dir}`);
  return { release, settings };
}
