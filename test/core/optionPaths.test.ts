/** Option paths: one policy, applied by every loader of a file named in env options. */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { confineOptionPaths, make, OptionFileNeeded, OptionsError, resolveOptionPath, setOptionPathPolicy } from "../../src/index.js";

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
    // Inside the roots: a directory resolves; a file must first be read asynchronously by the server; a missing
    // one is "not found under the data root".
    expect(resolveOptionPath("dataset", path.join(root, "data"))).toBe(path.join(root, "data"));
    expect(() => resolveOptionPath("dataset", path.join(root, "data", "spec.json"))).toThrow(OptionFileNeeded);
    expect(() => resolveOptionPath("dataset", path.join(root, "data", "missing.json"))).toThrow(/^dataset: not found under the data root$/);
    for (const bad of [
      "/etc/passwd",
      path.join(root, "data", "..", "x"),
      path.join(root, "data", "escape", "f"),
      `${path.join(root, "data")}-sibling`,
    ]) {
      let err: unknown;
      try {
        resolveOptionPath("dataset", bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OptionsError);
      expect((err as OptionsError).field).toBe("dataset");
      expect((err as Error).message).toMatch(/^dataset: not allowed: this server reads files named by options only under its data root/);
    }
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => resolveOptionPath("reward", "/tmp/x.json")).toThrow(/not allowed: this server reads no files named by options/);
  });
});

describe("loaders go through the option-path policy", () => {
  it("the reward option: file paths are refused outside the roots; presets and inline specs need no file", () => {
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => make("Demo-v0", { reward: "/etc/passwd" })).toThrow(/reward: not allowed: this server reads no files/);
    expect(() => make("Demo-v0", { reward: "sparse" })).not.toThrow();
    expect(() => make("Demo-v0", { reward: { name: "inline", terms: { success: { weight: 1 } } } })).not.toThrow();
  });

  it("ToolMisuseBench-v0: a dataset path is refused outside the roots, even after it was loaded once", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-tmb-"));
    expect(() => make("ToolMisuseBench-v0", { dataset: dir, split: "test_public" })).toThrow(); // loads nothing: no tasks
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => make("ToolMisuseBench-v0", { dataset: "/etc/passwd" })).toThrow(/dataset: not allowed: this server reads no files/);
    expect(() => make("ToolMisuseBench-v0", { dataset: dir, split: "test_public" })).toThrow(
      /dataset: not allowed: this server reads no files/,
    );
  });

  it("PlanBenchXL-v0: dataDir and a domain file path are refused outside the roots", () => {
    setOptionPathPolicy(confineOptionPaths([]));
    expect(() => make("PlanBenchXL-v0", { dataDir: "/etc" })).toThrow(/dataDir: not allowed: this server reads no files/);
    expect(() => make("PlanBenchXL-v0", { domain: "/etc/x.json" })).toThrow(/domain: not allowed: this server reads no files/);
  });
});
