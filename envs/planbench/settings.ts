/**
 * Runtime settings (the official run-config fields) and the named presets of the paper's runs.
 *
 * Why snake_case: the presets mirror the official run YAMLs key for key, so a reader can diff a
 * preset against the YAML it reproduces. Presets live as JSON in `configs/planbench/`.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { CONFIGS_DIR } from "../../src/family.js";
import { z } from "zod";

const BLOCKER_TYPE = z.enum(["explicit failures", "implicit failures", "semantic misleading"]);

export const BlockerSettingsSchema = z.strictObject({
  enable_block: z.boolean().default(false),
  selection_mode: z.enum(["target_remaining_paths", "target_remaining_ratio", "exact_blocked_paths"]).default("target_remaining_ratio"),
  block_n_per_task: z.number().int().min(0).nullable().default(null),
  target_remaining_paths: z.number().int().min(0).nullable().default(null),
  target_remaining_ratio: z.number().min(0).max(1).nullable().default(0.6),
  remaining_tolerance: z.number().int().min(0).default(1),
  min_remaining_paths: z.number().int().min(0).default(1),
  remaining_path_length_objective: z.enum(["none", "maximize", "minimize", "random", "random_middle"]).default("none"),
  blocking_edge_count_objective: z.enum(["none", "minimize"]).default("none"),
  noise_mode: z.enum(["random", "fixed", "fixed_multi", "random_multi"]).default("random"),
  fixed_noise_type: BLOCKER_TYPE.nullable().default(null),
  fixed_noise_types: z.array(BLOCKER_TYPE).nullable().default(null),
  multi_noise_count: z.number().int().default(1),
  seed: z.number().int().min(0).default(42),
  max_combo_candidates: z.number().int().positive().default(20000),
  max_cover_size: z.number().int().positive().default(4),
});
export type BlockerSettings = z.infer<typeof BlockerSettingsSchema>;

export const PlanBenchSettingsSchema = z.strictObject({
  noise: z
    .strictObject({
      mode: z.enum(["append_noisy_siblings", "none"]).default("append_noisy_siblings"),
      max_total_tools: z.number().int().min(0).nullable().default(30),
    })
    .prefault({}),
  blocker: BlockerSettingsSchema.prefault({}),
  runtime: z
    .strictObject({
      max_steps: z.number().int().positive().default(100),
      max_label_errors: z.number().int().positive().default(3),
      max_retrieval_errors: z.number().int().positive().default(3),
      max_call_errors: z.number().int().positive().default(3),
      enable_incorrect_final_answer_feedback: z.boolean().default(false),
      incorrect_final_answer_feedback_budget: z.number().int().min(0).default(5),
    })
    .prefault({}),
  /** The official model config's `capabilities` (only `tool_id_calling` affects the runtime). */
  capabilities: z
    .strictObject({
      /** Tools are shown with per-query ids T1, T2, … and a call's `tool_id` overrides its `name`. */
      tool_id_calling: z.boolean().default(false),
    })
    .prefault({}),
  /** The official `query_sample`: a seeded CPython `random.sample` of the query indices, file order kept. */
  query_sample: z
    .strictObject({
      size: z.number().int().min(0).nullable().default(null),
      seed: z.number().int().min(0).default(42),
    })
    .prefault({}),
});
export type PlanBenchSettings = z.infer<typeof PlanBenchSettingsSchema>;
/** Input form of the settings: every field optional (defaults as in the official base config + run YAMLs). */
export type PlanBenchSettingsInput = z.input<typeof PlanBenchSettingsSchema>;

/** The preset files (`configs/planbench/<name>.json`). */
export const PRESET_NAMES = [
  "default",
  "blocker",
  "explicit",
  "implicit",
  "misleading",
  "finegrain_long",
  "finegrain_short",
  "block_ratio_0.2",
  "block_ratio_0.4",
  "block_ratio_0.6",
  "block_ratio_0.8",
  "feedback",
] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/**
 * Old names, kept as aliases. The official run YAMLs `noise_ratio_0pX` set `target_remaining_ratio: X` (X of the
 * catalog paths remain); the paper's block ratio is the blocked share, 1 − X. So `noise_ratio_0.2` (few paths left,
 * the severe setting) is `block_ratio_0.8`.
 */
export const SETTING_ALIASES = {
  "noise_ratio_0.2": "block_ratio_0.8",
  "noise_ratio_0.4": "block_ratio_0.6",
  "noise_ratio_0.6": "block_ratio_0.4",
  "noise_ratio_0.8": "block_ratio_0.2",
} as const satisfies Record<string, PresetName>;

/** Every accepted `setting` value: the presets and the aliases. */
export const SETTING_NAMES = [...PRESET_NAMES, ...(Object.keys(SETTING_ALIASES) as Array<keyof typeof SETTING_ALIASES>)] as const;
export type SettingName = PresetName | keyof typeof SETTING_ALIASES;

/** The preset a setting name stands for (aliases resolved). */
export function presetName(name: SettingName): PresetName {
  return (SETTING_ALIASES as Record<string, PresetName>)[name] ?? (name as PresetName);
}

/** Locate `configs/planbench` from the source tree or from `dist/`. */
export function presetDir(): string {
  return path.join(CONFIGS_DIR, "planbench");
}

const presetCache = new Map<string, PlanBenchSettings>();

/** Load and validate a named preset (`configs/planbench/<name>.json`). */
export function loadPreset(setting: SettingName): PlanBenchSettings {
  const name = presetName(setting);
  const hit = presetCache.get(name);
  if (hit) return structuredClone(hit);
  const file = path.join(presetDir(), `${name}.json`);
  const raw: unknown = JSON.parse(readFileSync(file, "utf8"));
  const r = PlanBenchSettingsSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new Error(`configs/planbench/${name}.json: field '${i.path.join(".")}': ${i.message}`);
  }
  presetCache.set(name, r.data);
  return structuredClone(r.data);
}

export function listPresetFiles(): string[] {
  return readdirSync(presetDir())
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.replace(/\.json$/, ""))
    .sort();
}

/** Deep-merge plain objects (arrays and scalars replace). */
export function mergeSettings(base: PlanBenchSettings, over: PlanBenchSettingsInput | undefined): PlanBenchSettings {
  if (!over) return base;
  const merged = {
    noise: { ...base.noise, ...(over.noise ?? {}) },
    blocker: { ...base.blocker, ...(over.blocker ?? {}) },
    runtime: { ...base.runtime, ...(over.runtime ?? {}) },
    capabilities: { ...base.capabilities, ...(over.capabilities ?? {}) },
    query_sample: { ...base.query_sample, ...(over.query_sample ?? {}) },
  };
  return PlanBenchSettingsSchema.parse(merged);
}
