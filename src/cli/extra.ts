/** Commands added by later features (ablate, rescore, collect, export, pairs): name -> help and runner. */
export const EXTRA_COMMANDS: Record<string, { help: string; run(argv: readonly string[]): Promise<number> | number }> = {};
