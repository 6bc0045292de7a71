import { loadFamilies } from "./core/families.js";

/** A data generator a family offers to `recovery-gym generate <name> --out DIR`. */
export interface GeneratorEntry {
  description: string;
  /** Extra string flags this generator accepts (`--name value`), name -> help text. */
  flags?: Record<string, string>;
  /** `options` holds the values of the extra flags that were given. */
  run(args: { outDir: string; seed: number; options?: Record<string, string> }): Promise<{ files: string[]; summary: string }> | { files: string[]; summary: string };
}

const GENERATORS = new Map<string, GeneratorEntry>();

export function registerGenerator(name: string, entry: GeneratorEntry): void {
  GENERATORS.set(name, entry);
}

export function listGenerators(): [string, GeneratorEntry][] {
  loadFamilies(); // families register their generators as they load
  return [...GENERATORS.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export function generatorEntry(name: string): GeneratorEntry | undefined {
  if (!GENERATORS.has(name)) loadFamilies();
  return GENERATORS.get(name);
}
