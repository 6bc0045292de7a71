import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/rng.js";
import {
  canonicalInstance,
  canonicalTasks,
  COMPLEXITIES,
  generateTask,
  meanPairwiseJaccard,
  capabilityStructure,
  CANONICAL_INSTANCES,
} from "../../envs/toolmaze/tasks.js";
import { countOrderings } from "../../envs/toolmaze/task/orderings.js";
import { buildDag, topoOrder, validateTask } from "../../envs/toolmaze/task/validate.js";
import { taskTools } from "../../envs/toolmaze/task/model.js";
import { corpus } from "../../envs/toolmaze/world/corpus.js";
import { phrasingsOf } from "../../envs/toolmaze/task/phrasings.js";

describe("ToolMaze tasks", () => {
  const tasks = canonicalTasks();

  it("has 400 base tasks, 100 per level, 2,000 instances addressable by index", () => {
    expect(tasks.length).toBe(400);
    for (const c of COMPLEXITIES) expect(tasks.filter((t) => t.complexity === c).length).toBe(100);
    expect(CANONICAL_INSTANCES).toBe(2000);
    const inst = canonicalInstance(1234);
    expect(inst.task).toBe(tasks[246]);
    expect(inst.perturbation).toBe("P4");
    expect(() => canonicalInstance(2000)).toThrow(/taskIndex/);
  });

  it("keeps mean pairwise Jaccard similarity of tool sets <= 0.06 within each level", () => {
    for (const c of COMPLEXITIES) expect(meanPairwiseJaccard(tasks.filter((t) => t.complexity === c))).toBeLessThanOrEqual(0.06);
  });

  it("builds valid, acyclic, type-checked, single-domain DAGs with a Source and an Action", () => {
    const cat = corpus();
    for (const t of tasks) {
      expect(validateTask(t), t.id).toEqual([]);
      const g = buildDag(t);
      expect(topoOrder(g)).toBeDefined();
      g.forEachEdge((_e, attr, src, dst) => {
        expect(cat.tool(src).outputTypes[attr.field as string]).toBe(attr.type);
        expect(cat.tool(dst).paramTypes[attr.param as string]).toBe(attr.type);
      });
      expect(t.sStar).toEqual(t.solutions[0]);
      expect(t.text.length).toBeGreaterThan(30);
    }
  });

  it("finds a cycle exactly when the graphology DAG has one (validateTask checks without building the graph)", () => {
    const cyclic = (t: (typeof tasks)[number]) => validateTask(t).includes("task graph has a cycle");
    const bound = (t: (typeof tasks)[number]) =>
      t.positions.flatMap((p, i) =>
        Object.entries(p.bindings).flatMap(([k, b]) => (b.kind === "bound" ? [{ i, k, b, from: b.from[0]! }] : [])),
      );
    let rewired = 0;
    for (const t of tasks.filter((_, i) => i % 10 === 0)) {
      expect(cyclic(t)).toBe(false);
      // Point the first bound parameter's provider at a consumer downstream of it: a cycle when one exists.
      const edges = bound(t);
      const e = edges.find((x) => edges.some((y) => y.from === x.i));
      if (!e) continue;
      const down = edges.find((y) => y.from === e.i)!;
      const positions = t.positions.map((p, i) =>
        i === e.i ? { ...p, bindings: { ...p.bindings, [e.k]: { ...e.b, from: [down.i] } } } : p,
      );
      const bent = { ...t, positions };
      expect(cyclic(bent), t.id).toBe(topoOrder(buildDag(bent)) === undefined);
      if (cyclic(bent)) rewired++;
    }
    expect(rewired).toBeGreaterThan(5);
  });

  it("matches each level's structure", () => {
    for (const t of tasks) {
      const multi = t.positions.filter((p) => p.members.length > 1).length;
      if (t.complexity === "C1") {
        expect(t.solutions.length).toBe(1);
        expect(multi).toBe(0);
        expect(t.slots.length).toBe(1);
      }
      if (t.complexity === "C2") {
        expect(multi).toBe(1);
        expect(t.solutions.length).toBeGreaterThanOrEqual(2);
      }
      if (t.complexity === "C3") {
        expect(new Set(t.positions.filter((p) => p.route).map((p) => p.route!.branch)).size).toBeGreaterThanOrEqual(2);
        expect(t.solutions.length).toBeGreaterThanOrEqual(3);
      }
      if (t.complexity === "C4") expect(t.slots.length).toBeGreaterThanOrEqual(2);
    }
  });

  it("prunes redundant chains: no solution contains another, s* is shortest", () => {
    for (const t of tasks.filter((x) => x.complexity !== "C1")) {
      const sets = t.solutions.map((s) => new Set(s));
      for (let i = 0; i < sets.length; i++) {
        expect(t.solutions[i]!.length).toBeGreaterThanOrEqual(t.sStar.length);
        for (let j = 0; j < sets.length; j++) {
          if (i !== j && sets[i]!.size < sets[j]!.size) expect([...sets[i]!].every((x) => sets[j]!.has(x))).toBe(false);
        }
      }
    }
  });

  it("counts the legal call orders of each solution (brute force agrees on small sets)", () => {
    const legal = (t: (typeof tasks)[number], order: readonly string[]): boolean =>
      order.every((tool, i) => {
        const p = t.positions.find((x) => x.members.includes(tool))!;
        return Object.values(p.bindings).every(
          (b) => b.kind === "literal" || b.from.some((f) => t.positions[f]!.members.some((m) => order.slice(0, i).includes(m))),
        );
      });
    const permutations = (xs: readonly string[]): string[][] =>
      xs.length <= 1 ? [[...xs]] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
    let checked = 0;
    for (const t of tasks) {
      for (const sol of t.solutions.slice(0, 3)) {
        const n = countOrderings(t.positions, sol);
        // The listed order is always legal (canonical position order is topological).
        expect(legal(t, sol), t.id).toBe(true);
        if (sol.length > 7) {
          expect(n).toBeGreaterThanOrEqual(1);
          continue;
        }
        expect(n, `${t.id} ${sol.join(",")}`).toBe(permutations(sol).filter((o) => legal(t, o)).length);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(500);
    // Chains have one order; C4's parallel slots interleave (6 = C(4,2) for two independent 2-tool chains).
    expect(tasks.filter((t) => t.complexity === "C1").every((t) => countOrderings(t.positions, t.sStar) === 1)).toBe(true);
    expect(tasks.filter((t) => t.complexity === "C4").every((t) => countOrderings(t.positions, t.sStar) >= 6)).toBe(true);
  });

  it("quotes literal arguments in the task text", () => {
    for (const t of tasks.slice(0, 50)) {
      for (const p of t.positions) {
        if (p.route && p.route.branch > 0) continue;
        for (const b of Object.values(p.bindings)) if (b.kind === "literal") expect(t.text).toContain(String(b.value).replace(/\.$/, ""));
      }
    }
  });

  it("has no duplicate texts (all 400 distinct) and no duplicate tool sets within a level", () => {
    expect(new Set(tasks.map((t) => t.text)).size).toBe(400);
    for (const c of COMPLEXITIES) {
      const sets = tasks.filter((t) => t.complexity === c).map((t) => [...new Set(taskTools(t))].sort().join(","));
      expect(new Set(sets).size, c).toBe(100);
    }
    // C3 capability structures (positions' capabilities and their bindings): 22 before the generator widened C3.
    expect(new Set(tasks.filter((t) => t.complexity === "C3").map(capabilityStructure)).size).toBeGreaterThanOrEqual(25);
  });

  it("varies the wording: several phrasings per capability, many distinct openings, varied connectors", () => {
    for (const capSpec of corpus().caps.values()) {
      const ph = phrasingsOf(capSpec.id);
      expect(ph.length, capSpec.id).toBeGreaterThanOrEqual(3);
      expect(new Set(ph).size).toBe(ph.length);
    }
    const opening = (t: string, n: number) => t.split(/\s+/).slice(0, n).join(" ");
    const open3 = new Set(tasks.map((t) => opening(t.text, 3)));
    // 36 distinct three-word openings with one phrase per capability and six openers; 83 now.
    expect(open3.size).toBeGreaterThanOrEqual(70);
    // Every capability that occurs in at least 3 tasks is worded in more than one way across the suite.
    const worded = new Map<string, Set<string>>();
    for (const t of tasks) {
      for (const p of t.positions) {
        const forms = phrasingsOf(p.cap)
          .map((f) => f.split("{")[0]!.trim().toLowerCase())
          .filter((f) => f.length > 0);
        const used = forms.find((f) => t.text.toLowerCase().includes(f));
        if (used) worded.set(p.cap, (worded.get(p.cap) ?? new Set()).add(used));
      }
    }
    const frequent = [...worded.entries()].filter(
      ([cap]) => tasks.filter((t) => t.positions.some((p) => p.cap === cap && !(p.route && p.route.branch > 0))).length >= 3,
    );
    expect(frequent.filter(([, forms]) => forms.size >= 2).length / frequent.length).toBeGreaterThan(0.8);
  });

  it("is deterministic and samples unlimited tasks from any seed", () => {
    const a = generateTask(new Rng(99), "C3", "Travel", "x");
    const b = generateTask(new Rng(99), "C3", "Travel", "x");
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const texts = new Set<string>();
    for (let s = 0; s < 40; s++) texts.add(generateTask(new Rng(s), COMPLEXITIES[s % 4]!, "Office", `s${s}`).text);
    expect(texts.size).toBeGreaterThan(30);
    expect(taskTools(a).length).toBeGreaterThan(2);
  });
});
