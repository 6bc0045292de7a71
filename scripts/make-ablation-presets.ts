/**
 * Writes a family's ablation presets from its `shaped` preset (issue 8): `shaped-no-<term>.json` for every term of
 * `configs/rewards/<family>/shaped.json` (that term's weight set to 0, everything else unchanged) and
 * `potential-only.json` (the terminal outcome terms plus the potential term, no event or cost shaping).
 * Deterministic: re-running it on an unchanged shaped preset rewrites the same files.
 *
 *   npx tsx scripts/make-ablation-presets.ts <family>
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRewardSpec, type RewardSpec } from "../src/rewards/spec.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const family = process.argv[2];
if (!family || !/^[a-z0-9_-]+$/.test(family)) {
  console.error("usage: npx tsx scripts/make-ablation-presets.ts <family>   (a folder of configs/rewards/)");
  process.exit(2);
}
const dir = join(root, "configs", "rewards", family);
const shapedPath = join(dir, "shaped.json");
let shaped: RewardSpec;
try {
  shaped = parseRewardSpec(JSON.parse(readFileSync(shapedPath, "utf8")), null, shapedPath);
} catch (e) {
  console.error(`cannot read ${shapedPath}: ${(e as Error).message}`);
  process.exit(1);
}

const write = (name: string, spec: RewardSpec): void => {
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(spec, null, 2)}\n`);
  console.log(`wrote configs/rewards/${family}/${name}.json`);
};

for (const term of Object.keys(shaped.terms)) {
  const terms = structuredClone(shaped.terms);
  terms[term] = { ...terms[term], weight: 0 };
  write(`shaped-no-${term.replace(/_/g, "-")}`, {
    name: `shaped-no-${term.replace(/_/g, "-")}`,
    description: `Ablation of the ${family} shaped preset: "${term}" zeroed, every other term unchanged.`,
    gamma: shaped.gamma,
    terms,
  });
}

const potential = Object.entries(shaped.terms).find(([, t]) => t.kind === "potential");
const terminal = Object.entries(shaped.terms).filter(([, t]) => t.kind === "terminal");
if (!potential) console.warn(`note: ${family}/shaped.json has no potential term; potential-only adds "potential" with weight 1`);
write("potential-only", {
  name: "potential-only",
  description: `The ${family} outcome terms plus potential-based shaping F = γΦ(s′) − Φ(s) only: no event or cost terms, so the optimal policy is that of the sparse reward (Ng, Harada & Russell, 1999).`,
  gamma: shaped.gamma,
  terms: { ...Object.fromEntries(terminal), [potential?.[0] ?? "potential"]: potential?.[1] ?? { weight: 1, kind: "potential" } },
});
