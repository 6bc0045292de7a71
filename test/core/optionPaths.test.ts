/** Option paths: one policy, applied by every loader of a file named in env options. */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { confineOptionPaths, make, OptionsError, resolveOptionPath, setOptionPathPolicy } from "../../src/index.js";

afterEach(() => setOptionPathPolicy(null));

describe("option paths", () => {
  it("without a policy any path resolves; a confining policy admits only paths inside its roots", () => {
    const root = mkdtempSync(path.join(tmpdir(), "rg-roots-"));
    mkdirSync(path.join(root, "data"));
    writeFileSync(path.join(root, "data", "spec.json"), "{}");
    const outside = mkdtempSync(path.join(tmpdir(), "rg-outside-"));
    symlinkSync(outside, path.join(root, "data", "escape"));
    expect(resolveOptionPath("dataset", "/etc/passwd")).toBe("/etc/passwd");
    setOptionPathPolicy(confineOptionPaths([path.join(root, "data")]));
    expect(resolveOptionPath("dataset", path.join(root, "data", "spec.json"))).toBe(path.join(root, "data", "spec.json"));
    expect(resolveOptionPath("dataset", path.join(root, "data", "missing.json"))).toBe(path.join(root, "data", "missing.json"));
    for (const bad of ["/etc/passwd", path.join(root, "data", "..", "x"), path.join(root, "data", "escape", "f"), `${path.join(root, "data")}-sibling`]) {
      let err: unknown;
      try {
        resolveOptionPath("dataset", bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OptionsError);
      expect((err as OptionsError).field).toBe("dataset");
      expect((err as Error).message).toMatch(/outside the server's data roots/);
    }
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => resolveOptionPath("reward", "/tmp/x.json")).toThrow(/reads no files named by options/);
  });
});

describe("loaders go through the option-path policy", () => {
  it("the reward option: file paths are refused outside the roots; presets and inline specs need no file", () => {
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => make("Demo-v0", { reward: "/etc/passwd" })).toThrow(/reward: this server reads no files/);
    expect(() => make("Demo-v0", { reward: "sparse" })).not.toThrow();
    expect(() => make("Demo-v0", { reward: { name: "inline", terms: { success: { weight: 1 } } } })).not.toThrow();
  });

  it("ToolMisuseBench-v0: a dataset path is refused outside the roots, even after it was loaded once", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-tmb-"));
    expect(() => make("ToolMisuseBench-v0", { dataset: dir, split: "test_public" })).toThrow(); // loads nothing: no tasks
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => make("ToolMisuseBench-v0", { dataset: "/etc/passwd" })).toThrow(/dataset: this server reads no files/);
    expect(() => make("ToolMisuseBench-v0", { dataset: dir, split: "test_public" })).toThrow(/dataset: this server reads no files/);
  });

  it("PlanBenchXL-v0: dataDir and a domain file path are refused outside the roots", () => {
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => make("PlanBenchXL-v0", { dataDir: "/etc" })).toThrow(/dataDir: this server reads no files/);
    expect(() => make("PlanBenchXL-v0", { domain: "/etc/x.json" })).toThrow(/domain: this server reads no files/);
  });
});
