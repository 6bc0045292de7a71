import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main as checkPresets } from "../scripts/make-ablation-presets.js";
import { CONFIGS_DIR, type ToolEnv, listEnvs, listRewardPresets, make, registryEntry, resolveRewardSpec } from "../src/index.js";

describe("shipped reward presets", () => {
  const families = readdirSync(join(CONFIGS_DIR, "rewards")).filter((f) => existsSync(join(CONFIGS_DIR, "rewards", f, "shaped.json")));

  // The script's own entry (`--check` writes nothing), in process: a child per family paid a tsx start-up each.
  it("every family folder's derived presets are up to date with its shaped.json", () => {
    const messages: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void messages.push(args.join(" ")));
    try {
      for (const family of families) {
        messages.length = 0;
        expect(checkPresets([family, "--check"]), `${family}: ${messages.join("\n")}`).toBe(0);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it("every preset of every env validates against that env's term catalog", () => {
    for (const { id } of listEnvs()) {
      const env = make(id) as unknown as ToolEnv<unknown>;
      const family = registryEntry(id).family;
      const presets = listRewardPresets(family);
      expect(presets).toEqual(expect.arrayContaining(["sparse", "shaped"]));
      for (const p of presets) expect(() => resolveRewardSpec(p, family, env.knownTerms()), `${id}/${p}`).not.toThrow();
    }
  });
});
