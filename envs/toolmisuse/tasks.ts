/**
 * Deterministic generator for our ToolMisuseBench-style suite: 6,800 tasks (train 5,000 /
 * dev 800 / test_public 1,000), balanced over domain × fault class × difficulty, each task's
 * randomness derived from (seed, split, index). Every task is validated by a scripted gold
 * agent under its own fault plan (must succeed within budget; criteria must not already hold).
 * The gold agents are in goldAgents.ts; the files (canonical JSONL per split + a sha256 manifest) in suiteOutput.ts.
 */
import { asJsonObject, Rng } from "../../src/family.js";
import { parseTaskRecord, type Split, type TaskRecord } from "./dataset.js";
import { formatGoldSummary, GoldAgent, ReplayAgent } from "./goldAgents.js";
import { runEpisode } from "./runner.js";
import { planFaults } from "./faultplan.js";
import { checkSuccess } from "./scorer.js";
import { DOMAIN_TOOLSET, officialSchemas } from "./world/toolsets.js";
import type { OfficialAction } from "./world/types.js";
import { GEN_DOMAINS, TEMPLATES, type Draft, type GenDomain, type GenRng } from "./templates.js";

export const GENERATOR_VERSION = "rg-toolmisuse-1";
export const DEFAULT_SEED = 42;
export const SPLIT_SIZES: Record<Split, number> = { train: 5000, dev: 800, test_public: 1000 };
/** What a generated suite holds: solvable tasks only, or the paper's mix (half unsolvable by design). */
export const SUITE_PROFILES = ["solvable", "paper"] as const;
export type SuiteProfile = (typeof SUITE_PROFILES)[number];
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
