import { RecoveryGymError } from "../core/errors.js";
import "../index.js";
import { LIBRARY_VERSION } from "../core/version.js";
import { generateCommand, GENERATE_HELP } from "./commands/generate.js";
import { LIST_HELP, listCommand } from "./commands/list.js";
import { EVAL_HELP, evalCommand, ROLLOUT_HELP, rolloutCommand } from "./commands/rollout.js";
import { SERVE_HELP, serveCommand } from "./commands/serve.js";
import { EXTRA_COMMANDS } from "./extra.js";

const HELP = `recovery-gym ${LIBRARY_VERSION} — RL environments for tool failure and recovery

Usage: recovery-gym <command> [flags]

Commands:
${[LIST_HELP, ROLLOUT_HELP, EVAL_HELP, SERVE_HELP, GENERATE_HELP, ...Object.values(EXTRA_COMMANDS).map((c) => c.help)]
  .map((h) => `  ${h.replace(/\n/g, "\n  ")}`)
  .join("\n\n")}

Options for the environment pass through as --opt key=value (JSON values accepted), validated like make().
`;

/** Runs the CLI; returns the exit code. Typed errors print one clear line and exit 2. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(HELP);
        return command === undefined ? 2 : 0;
      case "--version":
        process.stdout.write(`${LIBRARY_VERSION}\n`);
        return 0;
      case "list":
        return listCommand(rest);
      case "rollout":
        return await rolloutCommand(rest);
      case "eval":
        return await evalCommand(rest);
      case "serve":
        return await serveCommand(rest);
      case "generate":
        return await generateCommand(rest);
      default: {
        const extra = EXTRA_COMMANDS[command];
        if (extra) return await extra.run(rest);
        process.stderr.write(`recovery-gym: unknown command "${command}". Run 'recovery-gym --help'.\n`);
        return 2;
      }
    }
  } catch (e) {
    if (e instanceof RecoveryGymError) {
      process.stderr.write(`recovery-gym ${command}: error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
