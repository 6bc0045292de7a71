import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readOptionFile, resolveOptionPath } from "../core/optionPaths.js";
import { CONFIGS_DIR } from "../core/paths.js";
import { ConfigError } from "../core/errors.js";
import { rewardTermCatalog } from "./catalog.js";
import { loadRewardSpecFile, parseRewardSpec, type RewardSpec } from "./spec.js";

export { CONFIGS_DIR };

/** Preset names available to a family: its own folder first, then the generic presets. */
export function listRewardPresets(family: string | null): string[] {
  const names = new Set<string>();
  for (const dir of [family ? join(CONFIGS_DIR, "rewards", family) : null, join(CONFIGS_DIR, "rewards")]) {
    if (!dir || !existsSync(dir)) continue;
    for (const f of readdirSync(dir)) if (f.endsWith(".json")) names.add(f.slice(0, -5));
  }
  return [...names].sort();
}

/**
 * Resolves the `reward` option: a preset name (family folder, then generic), a path to a JSON file, or an inline
 * spec object. Terms are checked against the env's catalog: its known terms with the kinds the catalog fixes.
 */
export function resolveRewardSpec(reward: string | object, family: string | null, knownTerms: readonly string[]): RewardSpec {
  const catalog = rewardTermCatalog(family, knownTerms);
  if (typeof reward === "object") return parseRewardSpec(reward, catalog, "inline reward spec");
  if (reward.endsWith(".json") || reward.includes("/")) {
    return loadRewardSpecFile(resolveOptionPath("reward", reward), catalog, (file) => readOptionFile("reward", file));
  }
  const candidates = [
    family ? join(CONFIGS_DIR, "rewards", family, `${reward}.json`) : null,
    join(CONFIGS_DIR, "rewards", `${reward}.json`),
  ];
  for (const path of candidates) if (path && existsSync(path)) return loadRewardSpecFile(path, catalog);
  throw new ConfigError("reward", `unknown reward preset "${reward}"; available: ${listRewardPresets(family).join(", ")}`);
}
