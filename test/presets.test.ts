import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { execNode, failure } from "./helpers/cli.js";
import { CONFIGS_DIR, type ToolEnv, listEnvs, listRewardPresets, make, registryEntry, resolveRewardSpec } from "../src/index.js";

describe("shipped reward presets", () => {
  const families = readdirSync(join(CONFIGS_DIR, "rewards")).filter((f) => existsSync(join(CONFIGS_DIR, "rewards", f, "shaped.json")));

  it("every family folder's derived presets are up to date with its shaped.json", async () => {
    for (const family of families) {
      const run = await execNode(["scripts/make-ablation-presets.ts", family, "--check"]);
      expect(run.status, `${family}: ${failure(run)}`).toBe(0);
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
