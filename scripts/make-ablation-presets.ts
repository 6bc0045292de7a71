// Writes a family's derived reward presets from its shaped.json:
//   potential-only.json  — the terminal terms plus potential shaping (no event or cost terms): sparse reward with
//                          shaping that provably keeps the optimal policy;
//   shaped-no-<term>.json — shaped with that one term zeroed (one ablation per term).
// Usage: npx tsx scripts/make-ablation-presets.ts <family>   (reads/writes configs/rewards/<family>/)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIGS_DIR } from "../src/rewards/presets.js";
import { parseRewardSpec, type RewardSpec } from "../src/rewards/spec.js";

const family = process.argv[2];
if (!family) {
  process.stderr.write("usage: npx tsx scripts/make-ablation-presets.ts <family>\n");
  process.exit(2);
}
const dir = join(CONFIGS_DIR, "rewards", family);
const shaped = parseRewardSpec(JSON.parse(readFileSync(join(dir, "shaped.json"), "utf8")), null, `${dir}/shaped.json`);
const write = (name: string, spec: RewardSpec) => writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(spec, null, 2)}\n`);

const terminalAndPotential = Object.fromEntries(Object.entries(shaped.terms).filter(([, t]) => t.kind === "terminal" || t.kind === "potential"));
write("potential-only", { name: "potential-only", description: `${family}: terminal terms of 'shaped' plus potential-based shaping only (no event or cost terms).`, gamma: shaped.gamma, terms: terminalAndPotential });
const written = ["potential-only"];
for (const term of Object.keys(shaped.terms)) {
  const terms = { ...shaped.terms, [term]: { ...shaped.terms[term], weight: 0 } };
  const name = `shaped-no-${term.replace(/_/g, "-")}`;
  write(name, { name, description: `${family}: 'shaped' with the ${term} term zeroed (ablation).`, gamma: shaped.gamma, terms });
  written.push(name);
}
process.stdout.write(`${dir}: wrote ${written.join(", ")}\n`);
