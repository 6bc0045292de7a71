import { OptionsError } from "../../core/errors.js";
import { listEnvs } from "../../core/registry.js";
import { listGenerators } from "../../generators.js";
import { policyNames } from "../../ablation.js";
import { parseArgs } from "../args.js";

export const LIST_HELP = `recovery-gym list [--json]
  Lists the registered environments, their options, policies, and the data generators.`;

export function listCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, { flags: { json: "boolean", help: "boolean" }, command: "list" });
  if (args.flags.help) {
    process.stdout.write(`${LIST_HELP}\n`);
    return 0;
  }
  if (args.positionals.length > 0)
    throw new OptionsError(args.positionals[0], `list: unexpected argument "${args.positionals[0]}"; accepted: --json, --help`);
  if (Object.keys(args.opts).length > 0) throw new OptionsError("--opt", "list: takes no --opt; accepted: --json, --help");
  const json = args.flags.json === true;
  // Every env can run the generic random policy (the CLI default), so it is listed even where the family has none.
  const envs = listEnvs().map((e) => ({ ...e, policies: policyNames(e.id) }));
  if (json) {
    const generators = listGenerators().map(([name, g]) => ({ name, description: g.description, flags: g.flags ?? {} }));
    process.stdout.write(`${JSON.stringify({ envs, generators }, null, 2)}\n`);
    return 0;
  }
  for (const e of envs) {
    process.stdout.write(
      `${e.id}  (${e.family}; max steps ${e.maxEpisodeSteps ?? "none"})\n` +
        `  ${e.description}\n  policies: ${e.policies.join(", ")}\n  options:\n`,
    );
    for (const [k, doc] of Object.entries(e.options)) process.stdout.write(`    ${k.padEnd(16)} ${doc}\n`);
    process.stdout.write("\n");
  }
  const gens = listGenerators();
  if (gens.length) {
    process.stdout.write("generators (recovery-gym generate NAME --out DIR):\n");
    for (const [name, g] of gens) {
      process.stdout.write(`  ${name.padEnd(16)} ${g.description}\n`);
      for (const [f, doc] of Object.entries(g.flags ?? {})) process.stdout.write(`    --${f.padEnd(14)} ${doc}\n`);
    }
  }
  return 0;
}
