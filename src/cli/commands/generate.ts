import { OptionsError } from "../../core/errors.js";
import { generatorEntry, listGenerators } from "../../generators.js";
import { intFlag, parseArgs, stringFlag } from "../args.js";

export const GENERATE_HELP = `recovery-gym generate NAME --out DIR [--seed N]
  Writes a family's generated data set (same seed => identical bytes). Names: see 'recovery-gym list'.`;

export async function generateCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: { out: "string", seed: "string", help: "boolean" }, command: "generate" });
  if (args.flags.help) {
    process.stdout.write(`${GENERATE_HELP}\n`);
    return 0;
  }
  const name = args.positionals[0];
  const names = listGenerators().map(([n]) => n);
  if (!name) throw new OptionsError("NAME", `generate: which data set? one of ${names.join(", ") || "(none registered)"}`);
  const entry = generatorEntry(name);
  if (!entry) throw new OptionsError("NAME", `generate: unknown generator "${name}"; available: ${names.join(", ") || "(none)"}`);
  const outDir = stringFlag(args, "out");
  if (!outDir) throw new OptionsError("--out", "generate: --out DIR is required");
  const res = await entry.run({ outDir, seed: intFlag(args, "seed", 42, 0) });
  process.stdout.write(`${res.summary}\nwrote ${res.files.length} file(s) to ${outDir}\n`);
  return 0;
}
