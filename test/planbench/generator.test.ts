import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../../envs/index.js";
import { checkEnv } from "../../src/checker.js";
import { make } from "../../src/core/registry.js";
import { generatorEntry } from "../../src/generators.js";
import { Rng } from "../../src/core/rng.js";
import { loadRelease, loadReleaseFromTexts } from "../../envs/planbench/dataset.js";
import { RELEASE_FILES, type PlanBenchRelease } from "../../envs/planbench/releaseFormat.js";
import {
  DomainSchemaError,
  generatePlanBenchWorld,
  informationGain,
  isFunctional,
  isMinimal,
  sufficient,
  loadDomain,
  parseDomain,
  readableFromInputs,
  ToolGraph,
  builtinCacheDir,
  builtinRelease,
} from "../../envs/planbench/generator/index.js";
import { snake, titleName } from "../../envs/planbench/generator/naming.js";
import { generateDatabase } from "../../envs/planbench/generator/database.js";
import { buildToolSpecs } from "../../envs/planbench/generator/tools.js";
import { OracleAgent } from "../../envs/planbench/baselines.js";
import { createWorld } from "../../envs/planbench/world/index.js";
import { loadPreset } from "../../envs/planbench/settings.js";
import { PlanBenchSession } from "../../envs/planbench/session.js";
import { resolveQueryInputs } from "../../envs/planbench/dataset.js";
import { normAns, pystr } from "../../envs/planbench/compat/index.js";
import { TRAVEL_DOMAIN } from "./travelDomain.js";
import { execNode, failure } from "../helpers/cli.js";

/** Tools that can fire from the inputs and whose output can lead to the target (a superset of every minimal set). */
function relevantTools(r: PlanBenchRelease, g: ToolGraph, inputs: readonly string[], target: string): string[] {
  const reach = g.forward(inputs);
  const firable = r.baselineTools.filter((x) => x.input_datatypes.every((d) => reach.has(d)) && !inputs.includes(x.output_datatype));
  const useful = new Set([target]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const x of firable)
      if (useful.has(x.output_datatype))
        for (const d of x.input_datatypes)
          if (!useful.has(d)) {
            useful.add(d);
            changed = true;
          }
  }
  return firable.filter((x) => useful.has(x.output_datatype)).map((x) => x.name);
}

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");
const hashes = (files: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(files).map(([k, v]) => [k, sha(v)]));

let files: Record<string, string>;
let rel: PlanBenchRelease;
let outDir: string;

// The default world (generated once per machine and cached on disk; see builtinRelease).
beforeAll(() => {
  rel = builtinRelease(42);
  files = Object.fromEntries(RELEASE_FILES.map((f) => [f, readFileSync(path.join(builtinCacheDir(42), f), "utf8")]));
  outDir = mkdtempSync(path.join(os.tmpdir(), "pbxl-gen-"));
}, 60_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("built-in world: scale and format", () => {
  it("has the official scale", () => {
    expect(rel.datatypes.length).toBeGreaterThanOrEqual(50);
    expect(rel.datatypes.length).toBeLessThanOrEqual(60);
    for (const d of rel.datatypes) {
      expect(d.aliases.length, d.name).toBeGreaterThanOrEqual(5);
      expect(d.aliases.length, d.name).toBeLessThanOrEqual(10);
    }
    expect(rel.baselineTools.length).toBeGreaterThanOrEqual(175);
    expect(rel.baselineTools.length).toBeLessThanOrEqual(195);
    for (const t of rel.baselineTools) {
      expect(t.input_datatypes.length).toBeGreaterThanOrEqual(1);
      expect(t.input_datatypes.length).toBeLessThanOrEqual(5);
    }
    expect(rel.noisyTools.length).toBe(5 * rel.baselineTools.length);
    expect(rel.blockerTools.length).toBe(3 * rel.baselineTools.length);
    expect(rel.cases.length).toBe(100);
    expect(rel.tasks.length).toBeGreaterThanOrEqual(300);
    expect(rel.queries.length).toBe(rel.tasks.length);
    for (const t of rel.tasks) {
      expect(t.steps).toBeGreaterThanOrEqual(5);
      expect(t.steps).toBeLessThanOrEqual(9);
      const sets = rel.catalog.get(t.task_id)!;
      expect(Math.min(...sets.map((s) => s.steps)), t.task_id).toBe(t.steps);
    }
    // The whole 5–9 range is used: long tasks (L* 8–9) are at least 5% of the set.
    expect(new Set(rel.tasks.map((t) => t.steps))).toEqual(new Set([5, 6, 7, 8, 9]));
    expect(rel.tasks.filter((t) => t.steps >= 8).length).toBeGreaterThanOrEqual(Math.ceil(0.05 * rel.tasks.length));
    // Both one- and two-input tasks, and the official two-input labels.
    expect(new Set(rel.tasks.map((t) => t.num_inputs))).toEqual(new Set([1, 2]));
    const labels = new Set(rel.queries.map((q) => q.input_type));
    expect(
      [...labels].every((l) =>
        ["single_input", "all_both", "both_and_single", "all_single_one_side", "all_single_both_sides"].includes(String(l)),
      ),
    ).toBe(true);
  });

  it("has 5 noisy siblings (one per type) and 3 blockers (one per type) per tool; semantic outputs are invented", () => {
    const names = new Set(rel.datatypes.map((d) => d.name));
    const noisy = new Map<string, string[]>();
    for (const t of rel.noisyTools) noisy.set(t.baseline_tool_name!, [...(noisy.get(t.baseline_tool_name!) ?? []), String(t.noise_type)]);
    const blockers = new Map<string, string[]>();
    for (const t of rel.blockerTools)
      blockers.set(t.baseline_tool_name!, [...(blockers.get(t.baseline_tool_name!) ?? []), String(t.noise_type)]);
    for (const b of rel.baselineTools) {
      expect(noisy.get(b.name)!.sort()).toEqual([
        "condition_limited",
        "deprecated",
        "miswired_or_unreliable",
        "non_authoritative_value",
        "stale",
      ]);
      expect(blockers.get(b.name)!.sort()).toEqual(["explicit failures", "implicit failures", "semantic misleading"]);
    }
    for (const t of rel.blockerTools) {
      const base = rel.toolByName.get(t.baseline_tool_name!)!;
      expect(t.input_datatypes).toEqual(base.input_datatypes);
      if (t.noise_type === "semantic misleading") expect(names.has(t.output_datatype), t.name).toBe(false);
      else expect(t.output_datatype).toBe(base.output_datatype);
    }
    // Stale siblings return real values of their datatype.
    for (const t of rel.noisyTools.filter((x) => x.noise_type === "stale")) {
      expect(
        rel.cases.some((c) => pystr(c.values[t.output_datatype]) === pystr(t.return_value)),
        t.name,
      ).toBe(true);
    }
  });

  it("follows the naming rule (visible names from aliases, internal Get_<Output>_From_<Input>[_<Variant>])", () => {
    const dt = new Map(rel.datatypes.map((d) => [d.name, d]));
    const raw = JSON.parse(files["baseline_tools.json"]) as Array<{
      name: string;
      internal_tool_name: string;
      input_datatypes: string[];
      output_datatype: string;
    }>;
    for (const t of raw) {
      const outAliases = dt.get(t.output_datatype)!.aliases.map(snake);
      expect(t.name.length).toBeLessThanOrEqual(64);
      expect(
        outAliases.some((a) => t.name.startsWith(`get_${a}_from_`)),
        t.name,
      ).toBe(true);
      const firstIn = t.input_datatypes[0]!;
      const rest = t.name.slice(t.name.indexOf("_from_") + 6);
      expect(
        [firstIn, ...dt.get(firstIn)!.aliases.map(snake)].some((a) => rest.startsWith(a)),
        t.name,
      ).toBe(true);
      const canon = `Get_${titleName(t.output_datatype)}_From_${t.input_datatypes.map(titleName).join("_And_")}`;
      expect(
        t.internal_tool_name === canon || new RegExp(`^${canon}_[A-Z][a-z0-9]*$`).test(t.internal_tool_name),
        t.internal_tool_name,
      ).toBe(true);
    }
    expect(new Set(raw.map((t) => t.name)).size).toBe(raw.length);
  });

  it("every executable tool is a functional lookup in the database (deterministic dependency)", () => {
    const rows = rel.cases.map((c) => c.values);
    for (const t of rel.baselineTools) expect(isFunctional(rows, t.input_datatypes, t.output_datatype), t.name).toBe(true);
  });
});

describe("built-in world: scale does not depend on the seed", () => {
  const domain = loadDomain("retail");
  const target = domain.generation;
  it("every seed 0..9 reaches the target tool count and composite share; every schema key stays functional", () => {
    for (let seed = 0; seed < 10; seed++) {
      // The same streams generatePlanBenchWorld uses (database, then tools).
      const rng = new Rng(`planbench-xl/${domain.domain}/${seed}`);
      const db = generateDatabase(domain, rng.derive("database"));
      for (const k of domain.keys)
        expect(isFunctional(db.rows, k.inputs, k.output), `seed ${seed}: key ${k.inputs.join("+")} -> ${k.output}`).toBe(true);
      const { specs, dropped } = buildToolSpecs(domain, db, rng.derive("tools"));
      expect(dropped, `seed ${seed}`).toBe(0);
      expect(specs.length, `seed ${seed}`).toBe(target.baselineTools);
      expect(specs.filter((t) => t.kind === "composite").length, `seed ${seed}`).toBe(target.compositeTools);
    }
  });

  it("a whole world at seed 7 (164 tools and 21 composites before keys were kept functional) has the official scale", () => {
    const w = generatePlanBenchWorld({ seed: 7 });
    expect(w.stats["baselineTools"]).toBe(target.baselineTools);
    expect(w.stats["compositeTools"]).toBe(target.compositeTools);
    expect(w.stats["tasks"]).toBeGreaterThanOrEqual(300);
    expect(Object.keys(w.stepsHistogram).sort()).toEqual(["5", "6", "7", "8", "9"]);
  }, 60_000);

  it("a key whose value space cannot be kept unique is a clear error naming the key", () => {
    // 8 travellers x 4 purposes = 32 tuples for 40 trips.
    const d = { ...structuredClone(TRAVEL_DOMAIN), keys: [{ inputs: ["traveler_id", "trip_purpose"], output: "trip_id" }] };
    expect(() => generatePlanBenchWorld({ seed: 1, domain: parseDomain(d) })).toThrow(
      /fresh key \(traveler_id, trip_purpose\) -> trip_id.*keys\.0/,
    );
  });
});

describe("built-in world: catalog", () => {
  it("every catalog set is sufficient and inclusion-minimal; orderings are legal", () => {
    const g = new ToolGraph(rel.baselineTools.map((t) => ({ name: t.name, inputs: t.input_datatypes, output: t.output_datatype })));
    for (const t of rel.tasks) {
      for (const s of rel.catalog.get(t.task_id)!) {
        expect(isMinimal(g, t.input_datatypes, t.target_datatype, s.tool_set), `${t.task_id} ${s.tool_set}`).toBe(true);
        const held = new Set(t.input_datatypes);
        for (const n of s.tool_set) {
          const tool = rel.toolByName.get(n)!;
          expect(
            tool.input_datatypes.every((d) => held.has(d)),
            `${t.task_id}: ${n} out of order`,
          ).toBe(true);
          held.add(tool.output_datatype);
        }
      }
    }
  });

  it("the catalog is complete (sample): every randomly reached inclusion-minimal set is in it", () => {
    // Greedy deletion in a random order from the full relevant tool pool ends in an inclusion-minimal
    // set, and every minimal set is reachable this way (delete the tools outside it first), so random
    // orders sample the minimal sets with positive probability each, independently of the search.
    const g = new ToolGraph(rel.baselineTools.map((t) => ({ name: t.name, inputs: t.input_datatypes, output: t.output_datatype })));
    const rng = new Rng("catalog-sample");
    for (const t of rng.shuffle(rel.tasks).slice(0, 8)) {
      const pool = relevantTools(rel, g, t.input_datatypes, t.target_datatype);
      const cat = new Set(rel.catalog.get(t.task_id)!.map((s) => [...s.tool_set].sort().join(",")));
      const seen = new Set<string>();
      for (let k = 0; k < 120; k++) {
        let cur = [...pool];
        for (const n of rng.shuffle(pool)) {
          const next = cur.filter((x) => x !== n);
          if (sufficient(g, t.input_datatypes, t.target_datatype, next)) cur = next;
        }
        const key = [...cur].sort().join(",");
        seen.add(key);
        expect(cat.has(key), `${t.task_id}: minimal set missing from the catalog: ${key}`).toBe(true);
      }
      expect(seen.size).toBeGreaterThan(0);
    }
  });

  it("the catalog is complete: exhaustive brute force over all tool subsets on the small second domain", () => {
    const r = loadReleaseFromTexts("travel", generatePlanBenchWorld({ seed: 3, domain: parseDomain(TRAVEL_DOMAIN) }).files);
    const g = new ToolGraph(r.baselineTools.map((t) => ({ name: t.name, inputs: t.input_datatypes, output: t.output_datatype })));
    for (const t of r.tasks) {
      const pool = relevantTools(r, g, t.input_datatypes, t.target_datatype);
      expect(pool.length, t.task_id).toBeLessThanOrEqual(20);
      const n = pool.length;
      const suff = new Uint8Array(1 << n);
      for (let mask = 0; mask < 1 << n; mask++)
        suff[mask] = sufficient(
          g,
          t.input_datatypes,
          t.target_datatype,
          pool.filter((_, i) => mask & (1 << i)),
        )
          ? 1
          : 0;
      const brute = new Set<string>();
      for (let mask = 0; mask < 1 << n; mask++) {
        if (!suff[mask]) continue;
        let minimal = true;
        for (let i = 0; i < n && minimal; i++) if (mask & (1 << i) && suff[mask ^ (1 << i)]) minimal = false;
        if (minimal)
          brute.add(
            pool
              .filter((_, i) => mask & (1 << i))
              .sort()
              .join(","),
          );
      }
      expect(new Set(r.catalog.get(t.task_id)!.map((s) => [...s.tool_set].sort().join(","))), t.task_id).toEqual(brute);
    }
  });
});

describe("built-in world: runtime", () => {
  it("replays every task's one_available_path (and every catalog set) to the gold answer with the runtime's executor", () => {
    const w = createWorld(rel, loadPreset("default"));
    for (const q of rel.queries) {
      const inputs = resolveQueryInputs(rel, q);
      expect(Object.keys(inputs).sort(), q.query_id).toEqual([...q.input_datatypes].sort());
      const task = rel.taskById.get(q.task_id)!;
      for (const order of [task.one_available_path, ...rel.catalog.get(q.task_id)!.map((s) => s.tool_set)]) {
        const vals = new Map<string, unknown>(Object.entries(inputs));
        let last: unknown = null;
        for (const n of order) {
          const t = rel.toolByName.get(n)!;
          const ex = w.cases.execute(t, Object.fromEntries(t.input_datatypes.map((d) => [d, vals.get(d) as never])));
          expect(ex.provenance, `${q.query_id} ${n}`).toBe("trusted");
          vals.set(t.output_datatype, ex.outputValue);
          last = ex.outputValue;
        }
        expect(normAns(last).includes(normAns(q.correct_answer)), `${q.query_id}`).toBe(true);
      }
    }
  });

  it("the oracle scores accuracy 1.0 on every query through the real runtime", () => {
    const w = createWorld(rel, loadPreset("default"));
    let ok = 0;
    for (const q of rel.queries) {
      const s = new PlanBenchSession(w, q);
      const agent = new OracleAgent(rel);
      while (!s.episode.done) s.step(agent.act(s.observation(), s.hidden()));
      if (s.episode.result!.status === "success") ok++;
    }
    expect(ok / rel.queries.length).toBe(1);
  });
});

describe("built-in world: determinism, CLI generator, loader, default env", () => {
  it("`generate planbench-xl` writes identical bytes for the same seed; the loader accepts the directory", async () => {
    expect(generatorEntry("planbench-xl")).toBeDefined();
    // The same registered entry, run in a child process: a from-scratch world takes seconds (more under load) of
    // synchronous work, which in-process would hold this worker's event loop and starve vitest's worker RPC.
    const script = `import "./envs/index.ts";
      import { generatorEntry } from "./src/generators.ts";
      process.stdout.write(JSON.stringify(await generatorEntry("planbench-xl").run(${JSON.stringify({ outDir, seed: 42 })})));`;
    const run = await execNode(["--input-type=module", "-e", script]);
    expect(run.status, failure(run)).toBe(0);
    const res = JSON.parse(run.stdout) as { files: string[]; summary: string };
    expect(res.files.map((f) => path.basename(f)).sort()).toEqual([...RELEASE_FILES].sort());
    const disk = Object.fromEntries(RELEASE_FILES.map((f) => [f, readFileSync(path.join(outDir, f), "utf8")]));
    expect(hashes(disk)).toEqual(hashes(files));
    const loaded = loadRelease(outDir);
    expect(loaded.tasks.length).toBe(rel.tasks.length);
    expect(loaded.domain).toBe("retail");
    const env = make("PlanBenchXL-v0", { dataDir: outDir });
    expect((env as unknown as { release: PlanBenchRelease }).release.queries.length).toBe(rel.queries.length);
  }, 180_000); // ~20 s beside the rest of npm test on a quiet machine, 28 s beside a second CI run

  it("a second domain is a schema file away; same seed => same bytes, different seed => different", () => {
    const a = generatePlanBenchWorld({ seed: 1, domain: parseDomain(TRAVEL_DOMAIN) });
    const b = generatePlanBenchWorld({ seed: 1, domain: parseDomain(TRAVEL_DOMAIN) });
    const c = generatePlanBenchWorld({ seed: 2, domain: parseDomain(TRAVEL_DOMAIN) });
    expect(hashes(a.files)).toEqual(hashes(b.files));
    expect(sha(a.files["database.json"])).not.toBe(sha(c.files["database.json"]));
    expect(sha(a.files["tasks.json"])).not.toBe(sha(c.files["tasks.json"]));
    const r = loadReleaseFromTexts("travel", a.files);
    expect(r.domain).toBe("travel");
    expect(r.tasks.length).toBeGreaterThan(0);
    expect(r.datatypes.map((d) => d.name)).toContain("loyalty_number");
    const w = createWorld(r, loadPreset("default"));
    for (const q of r.queries) {
      const s = new PlanBenchSession(w, q);
      const agent = new OracleAgent(r);
      while (!s.episode.done) s.step(agent.act(s.observation(), s.hidden()));
      expect(s.episode.result!.status, q.query_id).toBe("success");
    }
  });

  it("domain schema errors name the field", () => {
    const bad = structuredClone(TRAVEL_DOMAIN) as typeof TRAVEL_DOMAIN;
    bad.entities[1]!.parents = ["nowhere"];
    expect(() => parseDomain(bad, "bad.json")).toThrow(DomainSchemaError);
    expect(() => parseDomain(bad, "bad.json")).toThrow(/entities\.1\.parents\.0/);
    const dup = structuredClone(TRAVEL_DOMAIN) as typeof TRAVEL_DOMAIN;
    dup.datatypes[1]!.aliases[0] = "trip id";
    expect(() => parseDomain(dup, "dup.json")).toThrow(/datatypes\.3\.aliases\.0.*also used by "traveler_name"/);
    expect(() => loadDomain("no-such-domain")).toThrow(/unknown domain "no-such-domain"; known domains: retail/);
  });

  it("filters: information gain and pure-reasoning shortcuts", () => {
    const rows = [
      { a: "x1", b: "red", c: "k" },
      { a: "x2", b: "blue", c: "k" },
      { a: "x3", b: "red", c: "k" },
      { a: "x4", b: "green", c: "k" },
    ];
    expect(informationGain(rows, ["a"], "b")).toBeCloseTo(1.5, 6);
    expect(informationGain(rows, ["a"], "c")).toBe(0);
    expect(informationGain(rows, ["c"], "b")).toBe(0);
    expect(readableFromInputs("Maya Okafor", ["maya.okafor12@example.net"])).toBe(true);
    expect(readableFromInputs("gold", ["cus_12345"])).toBe(false);
    expect(isFunctional(rows, ["b"], "a")).toBe(false);
    expect(isFunctional(rows, ["a"], "b")).toBe(true);
  });

  it("the built-in world is the default env's data when asked (checkEnv passes), and conflicting options are rejected", () => {
    const env = make("PlanBenchXL-v0", { world: "builtin" });
    checkEnv(env as never, { episodes: 2, maxSteps: 120 });
    expect(() => make("PlanBenchXL-v0", { world: "builtin", dataDir: outDir })).toThrow(/world/);
  }, 60_000);
});
