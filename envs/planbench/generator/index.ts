/**
 * The built-in PlanBench-XL world: generator registration (`recovery-gym generate planbench-xl`)
 * and the default release used when no official data is available.
 *
 * Why a disk cache: generation takes a few seconds; the generated texts are cached under
 * `os.tmpdir()` keyed by domain, seed and a hash of the generator sources + domain file, so test
 * workers and CLI runs pay the cost once, and a code or schema change can never serve stale data.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerGenerator } from "../../../src/family.js";
import { loadRelease, loadReleaseFromTexts } from "../dataset.js";
import { RELEASE_FILES, type PlanBenchRelease } from "../releaseFormat.js";
import { domainFile, listDomains, readDomainFile } from "./schema.js";
import { GENERATOR_VERSION, generatePlanBenchWorld, writeWorld } from "./world.js";

export { generatePlanBenchWorld, writeWorld, GENERATOR_VERSION, type GeneratedWorld, type GenerateWorldOptions } from "./world.js";
export { loadDomain, parseDomain, listDomains, domainFile, DomainSchema, DomainSchemaError, type Domain } from "./schema.js";
export { ToolGraph, minimalToolSets, isMinimal, sufficient, legalOrderings, type PathSetOut } from "./catalog.js";
export { informationGain, readableFromInputs, answerString, usefulness } from "./tasks.js";
export { isFunctional } from "./tools.js";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Hash of everything that determines the output for a domain file (code + schema + version). */
function fingerprint(file: string): string {
  const h = createHash("sha256").update(GENERATOR_VERSION);
  for (const f of readdirSync(here)
    .filter((x) => /\.(ts|js)$/.test(x))
    .sort())
    h.update(f).update(readFileSync(path.join(here, f)));
  h.update(readFileSync(file));
  return h.digest("hex").slice(0, 16);
}

const memo = new Map<string, PlanBenchRelease>();

/** Where `builtinRelease` caches the generated files for a domain (shipped name or file path) and seed. */
export function builtinCacheDir(seed = 42, domain = "retail"): string {
  const file = domainFile(domain);
  return cacheDirFor(seed, file, readDomainFile(file).domain);
}

function cacheDirFor(seed: number, file: string, domainName: string): string {
  return path.join(os.tmpdir(), "recovery-gym", `planbench-${domainName}-s${seed}-${fingerprint(file)}`);
}

/** The generated release for a domain (shipped name or path to a domain JSON file) and seed (memoised, cached on disk). */
export function builtinRelease(seed = 42, domain = "retail"): PlanBenchRelease {
  const file = domainFile(domain);
  const key = `${file}/${seed}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const parsed = readDomainFile(file);
  const dir = cacheDirFor(seed, file, parsed.domain);
  let release: PlanBenchRelease | null = null;
  if (RELEASE_FILES.every((f) => existsSync(path.join(dir, f)))) {
    try {
      release = loadRelease(dir);
    } catch {
      release = null; // a damaged cache entry is regenerated below
    }
  }
  if (!release) {
    const world = generatePlanBenchWorld({ seed, domain: parsed });
    release = loadReleaseFromTexts(`builtin:${parsed.domain}:${seed}`, world.files);
    try {
      // Write to a private directory, then rename: concurrent workers never see half a release.
      const tmp = `${dir}.tmp-${process.pid}`;
      writeWorld(tmp, world.files);
      mkdirSync(path.dirname(dir), { recursive: true });
      if (!existsSync(dir)) renameSync(tmp, dir);
      else rmSync(tmp, { recursive: true, force: true });
    } catch {
      // The cache is an optimisation only (read-only tmp, races): the in-memory release stands.
    }
  }
  memo.set(key, release);
  return release;
}

registerGenerator("planbench-xl", {
  description:
    "PlanBench-XL built-in world in the official release format (retail: 60 datatypes, 185 " +
    "tools + noisy/blocker siblings, cases, tasks, complete path catalog)",
  flags: { domain: `domain schema: a shipped name (${listDomains().join(", ")}) or a path to a domain JSON file (default retail)` },
  run({ outDir, seed, options, progress }) {
    const world = generatePlanBenchWorld({ seed, outDir, domain: options?.["domain"] ?? "retail", progress });
    return { files: RELEASE_FILES.map((f) => path.join(outDir, f)), summary: world.summary };
  },
});
