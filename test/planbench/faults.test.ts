import { describe, expect, it } from "vitest";
import { planBlockers } from "../../envs/planbench/faults.js";
import { loadPreset, SETTING_NAMES, PRESET_NAMES, listPresetFiles, mergeSettings, presetName } from "../../envs/planbench/settings.js";
import { FULL_RELEASE_QUERIES, officialRelease } from "./helpers.js";

const rel = officialRelease();

describe("setting presets", () => {
  it("has one valid JSON preset per setting name", () => {
    expect(listPresetFiles()).toEqual([...PRESET_NAMES].sort());
    for (const n of SETTING_NAMES) expect(() => loadPreset(n)).not.toThrow();
    expect(loadPreset("feedback").runtime.enable_incorrect_final_answer_feedback).toBe(true);
    expect(loadPreset("noise_ratio_0.4").blocker.target_remaining_ratio).toBe(0.4);
    expect(loadPreset("default").blocker.enable_block).toBe(false);
  });
  it("names the ratio presets by the paper's block ratio (1 - remaining ratio); the official run names are aliases", () => {
    // Official run YAML retail_gpt5.4_noise_ratio_0p2.yaml: blocker.target_remaining_ratio 0.2 -> 80% of paths blocked.
    for (const [alias, block] of [
      ["noise_ratio_0.2", 0.8],
      ["noise_ratio_0.4", 0.6],
      ["noise_ratio_0.6", 0.4],
      ["noise_ratio_0.8", 0.2],
    ] as const) {
      const name = `block_ratio_${block}` as const;
      expect(presetName(alias)).toBe(name);
      expect(loadPreset(name)).toEqual(loadPreset(alias));
      expect(1 - loadPreset(name).blocker.target_remaining_ratio!).toBeCloseTo(block, 12);
    }
    expect(presetName("blocker")).toBe("blocker");
  });
  it("rejects bad overrides naming the field", () => {
    expect(() => mergeSettings(loadPreset("default"), { runtime: { max_steps: -1 } })).toThrow(/max_steps/);
  });
});

describe.skipIf(!rel)("blocker planning (seed 42)", () => {
  it("blocks the reference tools of retail_task_0001 under `blocker`", () => {
    const p = planBlockers("retail_task_0001", rel!.catalog.get("retail_task_0001")!, loadPreset("blocker").blocker);
    expect(p.status).toBe("success");
    expect(p.blockedTools).toEqual([
      "get_account_on_file_from_payment_method_record_id_edge",
      "get_live_order_id_from_warehouse_request_max",
      "get_payment_id_from_refund_record_id_instant",
      "get_quote_from_fulfillment_enterprise",
    ]);
    for (const t of p.blockedTools)
      expect(p.replacements.get(t)).toEqual(["explicit failures", "implicit failures", "semantic misleading"]);
  });
  // retail_task_0002 is one of the 100 queries held back from the shipped subset: this runs when
  // PLANBENCH_DATA_DIR points at a full release (e.g. `PLANBENCH_DATA_DIR=/path/to/retail npx vitest run test/planbench`).
  it.skipIf(!rel?.catalog.has("retail_task_0002"))(
    "blocks the reference tools of retail_task_0002 under `blocker` (runs on a full release: PLANBENCH_DATA_DIR)",
    () => {
      const p = planBlockers("retail_task_0002", rel!.catalog.get("retail_task_0002")!, loadPreset("blocker").blocker);
      expect(p.blockedTools).toEqual([
        "get_completed_order_record_id_from_pricing_quote_id",
        "get_outbound_shipment_id_from_attempt_record_id_v2",
        "get_placed_order_id_from_shipment_reference_quick",
        "get_quote_from_fulfillment_enterprise",
      ]);
    },
  );
  it.runIf(rel?.queries.length === FULL_RELEASE_QUERIES)(
    "full release (PLANBENCH_DATA_DIR): the reference §6 counts for `blocker` (322 tasks blocked, one_available_path intact in 144)",
    () => {
      const cfg = loadPreset("blocker").blocker;
      const plans = rel!.tasks.map((t) => ({ t, p: planBlockers(t.task_id, rel!.catalog.get(t.task_id)!, cfg) }));
      expect(plans.filter(({ p }) => p.blockedTools.length > 0)).toHaveLength(322);
      expect(plans.filter(({ t, p }) => !t.one_available_path.some((n) => p.replacements.has(n)))).toHaveLength(144);
    },
  );
  it("keeps 1-2 catalog paths for every blocked task and never blocks single-path tasks", () => {
    const cfg = loadPreset("blocker").blocker;
    for (const t of rel!.tasks) {
      const cat = rel!.catalog.get(t.task_id)!;
      const p = planBlockers(t.task_id, cat, cfg);
      if (cat.length === 1) expect(p.blockedTools).toEqual([]);
      expect(p.remainingPathIndices.length).toBeGreaterThanOrEqual(1);
      expect(p.remainingPathIndices.length).toBeLessThanOrEqual(2);
      // A remaining path uses no blocked tool.
      for (const i of p.remainingPathIndices) for (const n of cat[i]!.tool_set) expect(p.replacements.has(n)).toBe(false);
    }
  });
  it("finegrain_long keeps one_available_path intact far less often than finegrain_short", () => {
    const intact = (name: "finegrain_long" | "finegrain_short"): number =>
      rel!.tasks.filter((t) => {
        const p = planBlockers(t.task_id, rel!.catalog.get(t.task_id)!, loadPreset(name).blocker);
        return !t.one_available_path.some((n) => p.replacements.has(n));
      }).length;
    expect(intact("finegrain_long")).toBeLessThan(intact("finegrain_short"));
  });
});
