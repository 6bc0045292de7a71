/**
 * Deterministic generator for our ToolMisuseBench-style suite: 6,800 tasks (train 5,000 /
 * dev 800 / test_public 1,000), balanced over domain × fault class × difficulty, each task's
 * randomness derived from (seed, split, index). Every task is validated by a scripted gold
 * agent under its own fault plan (must succeed within budget; criteria must not already hold).
 * Output: canonical JSONL (sorted keys) per split + a sha256 manifest; same seed ⇒ same bytes.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { asJsonObject, Rng, stableStringify } from "../../src/family.js";
import { parseTaskRecord, type Split, type TaskRecord } from "./dataset.js";
import { runEpisode, type OfficialAgent } from "./runner.js";
import { planFaults } from "./faultplan.js";
import { checkSuccess } from "./scorer.js";
import { DOMAIN_TOOLSET, officialSchemas } from "./world/toolsets.js";
import type { JsonObj, OfficialAction, OfficialObservation } from "./world/types.js";
import { isObj } from "./world/types.js";
import { generatePaperSplit, PAPER_GENERATOR_VERSION } from "./paper.js";
import { GEN_DOMAINS, TEMPLATES, type Draft, type GenDomain, type GenRng, type PlanStep } from "./templates.js";

export const GENERATOR_VERSION = "rg-toolmisuse-1";
export const DEFAULT_SEED = 42;
export const SPLIT_SIZES: Record<Split, number> = { train: 5000, dev: 800, test_public: 1000 };
export const FAULT_CLASSES = ["clean", "timeout", "schema_drift", "authz", "rate_limit", "adversarial_error"] as const;
export type FaultClass = (typeof FAULT_CLASSES)[number];
export const DIFFICULTIES = ["easy", "medium", "hard"] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];
export const BUDGET_PROFILES = {
  tight: { max_steps: 3, max_tool_calls: 3, max_retries: 1 },
  standard: { max_steps: 6, max_tool_calls: 6, max_retries: 2 },
  relaxed: { max_steps: 10, max_tool_calls: 10, max_retries: 3 },
} as const;
export type BudgetProfile = keyof typeof BUDGET_PROFILES;
const PROFILE_ORDER: BudgetProfile[] = ["tight", "standard", "relaxed"];
const PROFILE_WEIGHTS: Record<Difficulty, number[]> = { easy: [0.2, 0.3, 0.5], medium: [0.33, 0.34, 0.33], hard: [0.5, 0.3, 0.2] };

/** A generated task plus the hidden facts the oracle and reports use. */
export interface GeneratedTask {
  record: TaskRecord;
  gold: OfficialAction[];
  template: string;
  blind: boolean;
  faultClass: FaultClass;
  persistent: boolean;
  profile: BudgetProfile;
  /** Per required gold step, the criteria it makes true: Φ = −(required steps with an unmet criterion). */
  phiSteps: number[][];
  /** Paper profile only: false when a persistent fault makes the task unsolvable (exempt from the gold check). */
  solvable?: boolean;
}

// ------------------------------------------------------------------ gold agent
/**
 * Scripted gold agent with hidden knowledge of which tools fail persistently: retries a
 * transient failure identically, routes around a persistent one (alternative calls) or skips
 * it when the step is optional. Records every action it issues.
 */
export class GoldAgent implements OfficialAgent {
  readonly issued: OfficialAction[] = [];
  private stepIdx = 0;
  private queue: OfficialAction[] = [];
  private current: OfficialAction | null = null;
  private attempts = 0;
  constructor(
    private readonly steps: readonly PlanStep[],
    private readonly persistentTools: ReadonlySet<string>,
  ) {}

  reset(): void {
    this.issued.length = 0;
    this.stepIdx = 0;
    this.queue = [];
    this.current = null;
    this.attempts = 0;
  }

  act(obs: OfficialObservation): OfficialAction | null {
    const failed = obs.last_error !== null && this.current !== null;
    if (failed && this.current) {
      const step = this.steps[this.stepIdx]!;
      if (this.persistentTools.has(this.current.tool_name) && this.queue.length === 0) {
        if (step.alternative && this.current.tool_name === step.call.tool_name)
          this.queue = step.alternative.map((a) => structuredClone(a));
        else if (step.optional) this.advance();
        else return null;
      } else if (this.attempts < 3) {
        return this.emit(this.current, true);
      } else return null;
    } else if (this.current !== null && this.queue.length === 0) {
      this.advance();
    }
    if (this.queue.length > 0) return this.emit(this.queue.shift()!, false);
    const step = this.steps[this.stepIdx];
    if (!step) return null;
    return this.emit(step.call, false);
  }

  private advance(): void {
    this.stepIdx += 1;
    this.current = null;
  }

  private emit(a: OfficialAction, retry: boolean): OfficialAction {
    this.attempts = retry ? this.attempts + 1 : 0;
    this.current = a;
    const copy = structuredClone(a);
    this.issued.push(copy);
    return structuredClone(copy);
  }
}

/** Replays a fixed action list (the oracle for generated tasks). */
export class ReplayAgent implements OfficialAgent {
  private i = 0;
  constructor(private readonly actions: readonly OfficialAction[]) {}
  reset(): void {
    this.i = 0;
  }
  act(): OfficialAction | null {
    const a = this.actions[this.i++];
    return a ? structuredClone(a) : null;
  }
}

// ------------------------------------------------------------------ gold summary format
/** One line per call: `tool_name {json args}`; parseable back into actions. */
export function formatGoldSummary(actions: readonly OfficialAction[]): string {
  return actions.map((a) => `${a.tool_name} ${stableStringify(a.args)}`).join("\n");
}

export function parseGoldSummary(s: string | null): OfficialAction[] | null {
  if (!s) return null;
  const out: OfficialAction[] = [];
  for (const line of s.split("\n")) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*) (\{.*\})$/.exec(line.trim());
    if (!m) return null;
    try {
      const args: unknown = JSON.parse(m[2]!);
      if (!isObj(args)) return null;
      out.push({ tool_name: m[1]!, args });
    } catch {
      return null;
    }
  }
  return out;
}

// ------------------------------------------------------------------ generation
interface Slot {
  domain: GenDomain;
  fault: FaultClass;
  difficulty: Difficulty;
}

const layoutCache = new Map<string, Slot[]>();

/** Balanced (domain, fault, difficulty) slots for a split (cached per process). */
function splitLayout(split: Split, seed: number, size: number): Slot[] {
  const key = `${seed}/${split}/${size}`;
  const hit = layoutCache.get(key);
  if (hit) return hit;
  const slots = computeLayout(split, seed, size);
  layoutCache.set(key, slots);
  return slots;
}

/** Balanced (domain, fault, difficulty) slots for a split, shuffled by the split's stream. */
function computeLayout(split: Split, seed: number, size: number): Slot[] {
  // Each attribute cycles through its values (so every marginal is balanced to ±1) and is
  // shuffled by its own stream (so the joint is well mixed without coupling the attributes).
  const r = new Rng(seed).derive(split).derive("layout");
  const cycle = <T>(vals: readonly T[]): T[] => Array.from({ length: size }, (_, i) => vals[i % vals.length]!);
  const domains = r.derive("domain").shuffle(cycle(GEN_DOMAINS));
  const faults = r.derive("fault").shuffle(cycle(FAULT_CLASSES));
  const diffs = r.derive("difficulty").shuffle(cycle(DIFFICULTIES));
  return domains.map((domain, i) => ({ domain, fault: faults[i]!, difficulty: diffs[i]! }));
}

export class GenerationError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = "GenerationError";
  }
}

const taskCache = new Map<string, GeneratedTask>();

/** Generate (and validate) task `index` of `split`; independent of every other task; cached per process. */
export function generateTask(split: Split, index: number, seed = DEFAULT_SEED, size = SPLIT_SIZES[split]): GeneratedTask {
  const key = `${seed}/${split}/${size}/${index}`;
  const hit = taskCache.get(key);
  if (hit) return hit;
  const t = buildTask(split, index, seed, size);
  taskCache.set(key, t);
  return t;
}

function buildTask(
  split: Split,
  index: number,
  seed: number,
  size: number,
  layout: readonly Slot[] = splitLayout(split, seed, size),
): GeneratedTask {
  if (!Number.isInteger(index) || index < 0 || index >= size) {
    throw new GenerationError(`taskIndex ${index} out of range for split ${split} (0..${size - 1})`, "taskIndex");
  }
  const slot = layout[index]!;
  const base = new Rng(seed).derive(split).derive(index);
  for (let attempt = 0; attempt < 20; attempt++) {
    const r = base.derive(`attempt${attempt}`);
    const t = tryBuild(split, index, slot, r);
    if (t) return t;
  }
  throw new GenerationError(
    `could not build a valid task for ${split}#${index} (${slot.domain}/${slot.fault}/${slot.difficulty})`,
    "generator",
  );
}

function tryBuild(split: Split, index: number, slot: Slot, r: GenRng): GeneratedTask | null {
  const multi = slot.difficulty !== "easy";
  const template = r.derive("template").pick(TEMPLATES[slot.domain].filter((t) => (multi ? t.calls >= 2 : t.calls === 1)));
  const draft = template.build({ rng: r.derive("content"), split, index });
  const plan = planFaults(draft, slot.fault, slot.difficulty, r.derive("faults"));
  if (!plan) return null;
  const seedValue = r.derive("seed").int(1_000_000_000);
  const toolset = DOMAIN_TOOLSET[slot.domain];
  const mk = (budget: TaskRecord["budget"], profile: string): TaskRecord => ({
    task_id: `${split}_rg_${slot.domain}_${slot.fault}_${slot.difficulty}_${profile}_${String(index).padStart(5, "0")}`,
    split,
    difficulty: slot.difficulty,
    domain: slot.domain,
    instruction: draft.instruction,
    toolset_id: toolset,
    tool_schemas: officialSchemas(toolset).map((s) => asJsonObject(s)),
    initial_state: draft.initialState,
    success_criteria: draft.criteria,
    budget,
    fault_plan: plan.specs,
    gold_summary: null,
    seed: seedValue,
  });
  // Dry run under a generous budget to learn the gold's needs.
  const dry = mk({ max_steps: 50, max_tool_calls: 50, max_retries: 50, timeout_ms: 1000 }, "probe");
  const probe = new GoldAgent(draft.steps, plan.persistentTools);
  const dryRun = runEpisode(dry, probe, { compat: "fixed" });
  if (!dryRun.report.success) return null;
  const need = { calls: dryRun.metrics.tool_calls, errors: dryRun.transcript.filter((e) => e.error !== null).length };
  const feasible = PROFILE_ORDER.map((p) => {
    const b = BUDGET_PROFILES[p];
    return need.calls <= b.max_tool_calls && need.calls <= b.max_steps && need.errors <= b.max_retries
      ? PROFILE_WEIGHTS[slot.difficulty][PROFILE_ORDER.indexOf(p)]!
      : 0;
  });
  if (feasible.every((w) => w === 0)) return null;
  const profile = PROFILE_ORDER[r.derive("profile").weighted(feasible)]!;
  const record = mk({ ...BUDGET_PROFILES[profile], timeout_ms: 1000 }, profile);
  const gold = probe.issued.map((a) => structuredClone(a));
  record.gold_summary = formatGoldSummary(gold);
  // Validation: the gold succeeds within the real budget, and the goal is not already met.
  const run = runEpisode(record, new ReplayAgent(gold), { compat: "fixed" });
  if (!run.report.success || run.metrics.budget_exceeded) return null;
  if (checkSuccess(record, structuredClone(record.initial_state), [], "fixed").success) return null;
  const official = runEpisode(record, new ReplayAgent(gold), { compat: "official" });
  if (!official.report.success) return null;
  return {
    record: parseTaskRecord(JSON.parse(JSON.stringify(record))),
    gold,
    template: draft.template,
    blind: draft.blind,
    faultClass: slot.fault,
    persistent: slot.difficulty === "hard" && slot.fault !== "clean",
    profile,
    phiSteps: phiSteps(draft),
  };
}

/**
 * Criteria per required step. A template either declares `achieves` on every required step
 * (each criterion exactly once) or nowhere (then all criteria belong to the last required step).
 */
export function phiSteps(d: Draft): number[][] {
  const required = d.steps.filter((s) => !s.optional);
  const n = d.criteria.length;
  if (required.every((s) => s.achieves === undefined))
    return required.length ? [...required.map(() => [] as number[]).slice(1), Array.from({ length: n }, (_, i) => i)] : [];
  const seen = new Array<number>(n).fill(0);
  for (const s of required) {
    if (!s.achieves)
      throw new GenerationError(`template ${d.template}: required step ${s.call.tool_name} declares no 'achieves'`, "achieves");
    for (const i of s.achieves) seen[i] = (seen[i] ?? 0) + 1;
  }
  if (seen.some((c) => c !== 1) || seen.length !== n)
    throw new GenerationError(`template ${d.template}: every criterion must be achieved by exactly one required step`, "achieves");
  return required.map((s) => [...(s.achieves ?? [])]);
}

const splitCache = new Map<string, GeneratedTask[]>();

/** All tasks of a split, cached per process. */
export function generateSplit(split: Split, seed = DEFAULT_SEED, size = SPLIT_SIZES[split]): GeneratedTask[] {
  const key = `${seed}/${split}/${size}`;
  const hit = splitCache.get(key);
  if (hit) return hit;
  const out: GeneratedTask[] = [];
  for (let i = 0; i < size; i++) out.push(generateTask(split, i, seed, size));
  splitCache.set(key, out);
  return out;
}

/** All tasks of a split built from scratch, touching no cache (to check that generation itself is deterministic). */
export function generateSplitUncached(split: Split, seed = DEFAULT_SEED, size = SPLIT_SIZES[split]): GeneratedTask[] {
  const layout = computeLayout(split, seed, size);
  return Array.from({ length: size }, (_, i) => buildTask(split, i, seed, size, layout));
}

// ------------------------------------------------------------------ canonical output
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

export const SUITE_PROFILES = ["solvable", "paper"] as const;
export type SuiteProfile = (typeof SUITE_PROFILES)[number];

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
  writeFileSync(path.join(opts.outDir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  opts.progress?.(order.length, order.length, "done");
  return manifest;
}
