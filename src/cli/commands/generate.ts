import { OptionsError } from "../../core/errors.js";
import { generatorEntry, listGenerators } from "../../generators.js";
import { intFlag, parseArgs, stringFlag, requiredFlag } from "../args.js";
import { ProgressBar } from "../progress.js";

export const GENERATE_HELP = `recovery-gym generate NAME --out DIR [--seed N] [--quiet] [generator flags, e.g. --domain NAME|FILE.json]
  Writes a family's generated data set (same seed => identical bytes). Names and their flags: see 'recovery-gym list'.`;

const BASE_FLAGS = { out: "string", seed: "string", quiet: "boolean", help: "boolean" } as const;

export async function generateCommand(argv: readonly string[]): Promise<number> {
  // Accept every generator's extra flags while parsing (the name is a positional), then keep the chosen one's.
  const extra = new Set(listGenerators().flatMap(([, g]) => Object.keys(g.flags ?? {})));
  const flags: Record<string, "string" | "boolean"> = { ...BASE_FLAGS };
  for (const f of extra) if (!(f in flags)) flags[f] = "string";
  const args = parseArgs(argv, { flags, command: "generate" });
  if (args.flags.help) {
    process.stdout.write(`${GENERATE_HELP}\n`);
    return 0;
  }
  const name = args.positionals[0];
  const names = listGenerators().map(([n]) => n);
  if (!name) throw new OptionsError("NAME", `generate: which data set? one of ${names.join(", ") || "(none registered)"}`);
  const entry = generatorEntry(name);
  if (!entry) throw new OptionsError("NAME", `generate: unknown generator "${name}"; available: ${names.join(", ") || "(none)"}`);
  const outDir = requiredFlag(args, "out", "generate", "DIR");
  const options: Record<string, string> = {};
  for (const f of extra) {
    const v = stringFlag(args, f);
    if (v === undefined) continue;
    if (!entry.flags || !(f in entry.flags))
      throw new OptionsError(
        `--${f}`,
        `generate ${name}: unknown flag --${f}; accepted: --out, --seed${Object.keys(entry.flags ?? {})
          .map((x) => `, --${x}`)
          .join("")}`,
      );
    options[f] = v;
  }
  const quiet = args.flags.quiet === true;
  if (!quiet) process.stderr.write(`generate ${name}: writing to ${outDir}\n`);
  const started = Date.now();
  // The bar starts with the generator's first report, which tells how many stages there are.
  let bar: ProgressBar | null = null;
  const progress = (done: number, total: number, stage: string) => {
    bar ??= new ProgressBar(total, `generate ${name}`, process.stderr, !quiet, "stages", 0);
    bar.update(done, stage);
  };
  try {
    const res = await entry.run({ outDir, seed: intFlag(args, "seed", 42, 0), options, progress });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`${res.summary}\nwrote ${res.files.length} file(s) to ${outDir} in ${seconds} s\n`);
  } finally {
    (bar as ProgressBar | null)?.stop();
  }
  return 0;
}
