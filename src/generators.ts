/** What `generate` passes a generator: `options` holds the values of its extra flags that were given. */
export interface GeneratorArgs {
  outDir: string;
  seed: number;
  options?: Record<string, string>;
  progress?: GeneratorProgress;
}

/** What a generator wrote, and a one-line summary for the CLI. */
export interface GeneratorResult {
  files: string[];
  summary: string;
}

/** Progress of a generator: `done` of `total` steps finished; `stage` names what runs next. */
export type GeneratorProgress = (done: number, total: number, stage: string) => void;

/** A data generator a family offers to `recovery-gym generate <name> --out DIR`. */
export interface GeneratorEntry {
  description: string;
  /** Extra string flags this generator accepts (`--name value`), name -> help text. */
  flags?: Record<string, string>;
  /**
   * `options` holds the values of the extra flags that were given. A long generator reports its stages through
   * `progress` (`done` of `total` stages finished, `stage` the one starting), so `generate` is never silent.
   */
  run(args: GeneratorArgs): GeneratorResult | Promise<GeneratorResult>;
}

const GENERATORS = new Map<string, GeneratorEntry>();

export function registerGenerator(name: string, entry: GeneratorEntry): void {
  GENERATORS.set(name, entry);
}

export function listGenerators(): [string, GeneratorEntry][] {
  return [...GENERATORS.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export function generatorEntry(name: string): GeneratorEntry | undefined {
  return GENERATORS.get(name);
}
