/**
 * Writes a family's reward ablation presets next to its `shaped.json`:
 *   - `potential-only.json`: only the potential term, weight 1 (its return is γ^T·Φ(s_T) − Φ(s_0)),
 *   - `shaped-no-<term>.json`: `shaped` with that one term's weight set to 0, for every term of `shaped`,
 *   - `sparse.json` (success only) when the family has none.
 * Stale `shaped-no-*.json` files (for terms no longer in `shaped`) are removed, so the folder always matches
 * `shaped.json`. Output is deterministic (sorted as in `shaped.json`, 2-space JSON), so re-running is a no-op.
 *
 * Usage: npx tsx scripts/make-ablation-presets.ts <family> [--check]
 *   --check: write nothing; exit 1 if the committed files differ from what would be generated (for CI).
 */
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIGS_DIR } from "../src/rewards/presets.js";
import { parseRewardSpec, type RewardSpec } from "../src/rewards/spec.js";

export function ablationPresets(shaped: RewardSpec, family: string): Record<string, RewardSpec> {
  const out: Record<string, RewardSpec> = {};
  const pot = Object.entries(shaped.terms).find(([, t]) => t.kind === "potential");
  if (pot) {
    out["potential-only"] = {
      name: "potential-only",
      description:
        `${family}: only potential-based shaping F = γΦ(s′) − Φ(s) with weight 1, so an episode's ` +
        `return is γ^T·Φ(s_T) − Φ(s_0). Generated from shaped.json by ` +
        `scripts/make-ablation-presets.ts.`,
      gamma: shaped.gamma,
      terms: { [pot[0]]: { weight: 1, kind: "potential" } },
    };
  }
  for (const [name, term] of Object.entries(shaped.terms)) {
    const id = `shaped-no-${name}`;
    const terms = Object.fromEntries(Object.entries(shaped.terms).map(([k, t]) => [k, k === name ? { ...t, weight: 0 } : t]));
    out[id] = {
      name: id,
      description:
        `${family}: the shaped preset with the '${name}' term (${term.kind}) zeroed. Generated ` +
        `from shaped.json by scripts/make-ablation-presets.ts.`,
      gamma: shaped.gamma,
      terms,
    };
  }
  return out;
}

/** The command line without the process: exit status for `argv` (tests call it in process). */
export function main(argv: readonly string[]): number {
  const family = argv.find((a) => !a.startsWith("--"));
  const check = argv.includes("--check");
  if (!family) {
    console.error("usage: npx tsx scripts/make-ablation-presets.ts <family> [--check]");
    return 2;
  }
  const dir = join(CONFIGS_DIR, "rewards", family);
  const shapedPath = join(dir, "shaped.json");
  if (!existsSync(shapedPath)) {
    console.error(`no ${shapedPath}: write the family's shaped preset first`);
    return 2;
  }
  const shaped = parseRewardSpec(JSON.parse(readFileSync(shapedPath, "utf8")), null, shapedPath);
  const want = ablationPresets(shaped, family);
  if (!existsSync(join(dir, "sparse.json"))) {
    want.sparse = {
      name: "sparse",
      description: "Success only: 1 when the episode is judged successful, 0 otherwise.",
      gamma: 1,
      terms: { success: { weight: 1, kind: "terminal" } },
    };
  }
  const stale = readdirSync(dir).filter((f) => f.startsWith("shaped-no-") && f.endsWith(".json") && !(f.slice(0, -5) in want));
  let differs = stale.length > 0;
  for (const [name, spec] of Object.entries(want)) {
    parseRewardSpec(spec, null, `${name}.json`);
    const path = join(dir, `${name}.json`);
    const text = `${JSON.stringify(spec, null, 2)}\n`;
    const same = existsSync(path) && readFileSync(path, "utf8") === text;
    if (same) continue;
    differs = true;
    if (check) console.error(`out of date: ${path}`);
    else writeFileSync(path, text);
  }
  for (const f of stale) {
    if (check) console.error(`stale: ${join(dir, f)}`);
    else unlinkSync(join(dir, f));
  }
  if (check) return differs ? 1 : 0;
  console.log(`${family}: ${Object.keys(want).length} presets generated in ${dir}${stale.length ? `, ${stale.length} stale removed` : ""}`);
  return 0;
}

if (process.argv[1] && /make-ablation-presets\.ts$/.test(process.argv[1])) process.exit(main(process.argv.slice(2)));
