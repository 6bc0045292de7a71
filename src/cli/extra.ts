import { ABLATE_HELP, ablateCommand } from "./commands/ablate.js";
import { COLLECT_HELP, collectCommand } from "./commands/collect.js";
import { EXPORT_HELP, exportCommand } from "./commands/export.js";
import { PAIRS_HELP, pairsCommand } from "./commands/pairs.js";
import { RESCORE_HELP, rescoreCommand } from "./commands/rescore.js";

/** Reward-analysis and data commands: name -> help and runner. */
export const EXTRA_COMMANDS: Record<string, { help: string; run(argv: readonly string[]): Promise<number> | number }> = {
  ablate: { help: ABLATE_HELP, run: ablateCommand },
  rescore: { help: RESCORE_HELP, run: rescoreCommand },
  collect: { help: COLLECT_HELP, run: collectCommand },
  export: { help: EXPORT_HELP, run: exportCommand },
  pairs: { help: PAIRS_HELP, run: pairsCommand },
};
