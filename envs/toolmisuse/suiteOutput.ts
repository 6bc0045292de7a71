/**
 * The generated suite on disk: canonical JSONL (sorted keys) per split, a per-split summary (counts, uniqueness,
 * sha256) and the manifest. Same seed ⇒ same bytes.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { asJsonObject, stableStringify } from "../../src/family.js";
import type { Split } from "./dataset.js";
import { generatePaperSplit, PAPER_GENERATOR_VERSION } from "./paper.js";
import {
  DEFAULT_SEED,
  GENERATOR_VERSION,
  type GeneratedTask,
  GenerationError,
  generateSplit,
  generateSplitUncached,
  SPLIT_SIZES,
  SUITE_PROFILES,
  type SuiteProfile,
} from "./tasks.js";
import type { JsonObj } from "./world/types.js";

export function toCanonicalJsonl(tasks: readonly GeneratedTask[]): string {
  return `${tasks.map((t) => stableStringify(t.record)).join("\n")}\n`;
}

/** Share of distinct values (the paper's uniqueness figures). */
export function uniqueness(values: readonly string[]): number {
  return values.length ? new Set(values).size / values.length : 0;
}

function countBy<T>(xs: readonly T[], f: (x: T) => string): Record<string, number> {
  const m: Record<string, number> = {};
  for (const x of xs) m[f(x)] = (m[f(x)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export interface SplitSummary {
  count: number;
  file: string;
  bytes: number;
  sha256: string;
  instruction_uniqueness: number;
  initial_state_uniqueness: number;
  by_domain: Record<string, number>;
  by_fault_class: Record<string, number>;
  by_difficulty: Record<string, number>;
  by_budget_profile: Record<string, number>;
  persistent: number;
  blind: number;
  /** Paper profile: tasks a persistent fault makes unsolvable. */
  unsolvable?: number;
}

export function summarizeSplit(tasks: readonly GeneratedTask[], file: string, text: string): SplitSummary {
  return {
    count: tasks.length,
    file,
    bytes: Buffer.byteLength(text, "utf8"),
    sha256: createHash("sha256").update(text).digest("hex"),
    instruction_uniqueness: uniqueness(tasks.map((t) => t.record.instruction)),
    initial_state_uniqueness: uniqueness(tasks.map((t) => stableStringify(t.record.initial_state))),
    by_domain: countBy(tasks, (t) => t.record.domain),
    by_fault_class: countBy(tasks, (t) => t.faultClass),
    by_difficulty: countBy(tasks, (t) => t.record.difficulty),
    by_budget_profile: countBy(tasks, (t) => t.profile),
    persistent: tasks.filter((t) => t.persistent).length,
    blind: tasks.filter((t) => t.blind).length,
  };
}

export interface GenerateOptions {
  outDir: string;
  seed?: number;
  /** Override split sizes (tests); defaults to the paper's 5,000 / 800 / 1,000. */
  sizes?: Partial<Record<Split, number>>;
  /** false: build every task from scratch instead of reusing this process's cached tasks (default true). */
  cache?: boolean;
  /** `solvable` (default): our gold-validated suite; `paper`: the v0.1 reconstruction the paper's table was measured on (paper.ts). */
  profile?: SuiteProfile;
  /** Called as each split starts (`recovery-gym generate` shows it), and once at the end. */
  progress?: (done: number, total: number, stage: string) => void;
}

/**
 * Write `{train,dev,test_public}/tasks.jsonl` and `manifest.json` (sha256 per file) under
 * `outDir`. Returns the manifest. Same seed ⇒ byte-identical files.
 */
export function generateToolMisuseBench(opts: GenerateOptions): JsonObj {
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(seed)) throw new GenerationError(`seed must be an integer, got ${String(seed)}`, "seed");
  const profile = opts.profile ?? "solvable";
  if (!SUITE_PROFILES.includes(profile)) {
    throw new GenerationError(`profile must be one of ${SUITE_PROFILES.join(", ")}, got ${String(profile)}`, "profile");
  }
  const splits: Record<string, SplitSummary> = {};
  const order = ["train", "dev", "test_public"] as const;
  for (const split of order) {
    opts.progress?.(order.indexOf(split), order.length, `split ${split}`);
    const size = opts.sizes?.[split] ?? SPLIT_SIZES[split];
    if (!Number.isInteger(size) || size < 0) throw new GenerationError(`sizes.${split} must be a non-negative integer`, `sizes.${split}`);
    const tasks =
      profile === "paper"
        ? generatePaperSplit(split, seed, size, opts.cache !== false)
        : opts.cache === false
          ? generateSplitUncached(split, seed, size)
          : generateSplit(split, seed, size);
    const text = toCanonicalJsonl(tasks);
    const rel = `${split}/tasks.jsonl`;
    mkdirSync(path.join(opts.outDir, split), { recursive: true });
    writeFileSync(path.join(opts.outDir, rel), text);
    splits[split] = summarizeSplit(tasks, rel, text);
    if (profile === "paper") splits[split].unsolvable = tasks.filter((t) => t.solvable === false).length;
  }
  // Sorted keys, pretty-printed: the manifest is read by people and diffed between runs.
  const manifest = JSON.parse(
    stableStringify({
      generator: profile === "paper" ? PAPER_GENERATOR_VERSION : GENERATOR_VERSION,
      seed,
      format: "ToolMisuseBench task record (official schema), canonical JSONL with sorted keys",
      splits: asJsonObject(splits),
      total: Object.values(splits).reduce((a, s) => a + s.count, 0),
    }),
  ) as JsonObj;
  writeFileSync(path.join(opts.outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  opts.progress?.(order.length, order.length, "done");
  return manifest;
}
