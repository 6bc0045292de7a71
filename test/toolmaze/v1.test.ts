/**
 * ToolMaze-v1's world, checked structurally on sampled tasks, plus the canonical suite's diversity, path lengths and
 * strata (one test, a few seconds to generate the suite). The acceptance that needs 2,000 heuristic and oracle episodes
 * — PRR / RC / TSR pattern, oracle 100% — is printed as PASS / FAIL by `npx tsx scripts/toolmaze-eval.ts --check`.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/rng.js";
import { listEnvs, make } from "../../src/index.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import "../../envs/toolmaze/index.js";
import { recoveryCategory } from "../../envs/toolmaze/analysis.js";
import { buildProfile } from "../../envs/toolmaze/faults.js";
import { buildView } from "../../envs/toolmaze/instanceCache.js";
import { canonicalTasks, COMPLEXITIES, genOptions, generateTask, meanPairwiseJaccard, PERTURBATIONS } from "../../envs/toolmaze/tasks.js";
import type { Task } from "../../envs/toolmaze/task/model.js";
import { versionProfile } from "../../envs/toolmaze/version.js";
import { DOMAINS } from "../../envs/toolmaze/world/catalog.js";
import { corpus } from "../../envs/toolmaze/world/corpus.js";

const v1 = versionProfile("v1");

/** Sampled v1 tasks: per level, one per stratum index that the domain can meet (a generation error skips it). */
function sample(level: (typeof COMPLEXITIES)[number], n: number): Task[] {
  const out: Task[] = [];
  for (let i = 0; i < n; i++) {
    try {
      out.push(generateTask(new Rng(`v1-test/${level}/${i}`), level, DOMAINS[i % DOMAINS.length]!, `t-${level}-${i}`, genOptions(v1, i)));
    } catch {
      /* this domain cannot meet stratum i at this level */
    }
  }
  return out;
}

describe("ToolMaze-v1", () => {
  it("is registered beside v0, which keeps its frozen profile", () => {
    const ids = listEnvs().map((e) => e.id);
    expect(ids).toEqual(expect.arrayContaining(["ToolMaze-v0", "ToolMaze-v1"]));
    const v0 = versionProfile("v0");
    expect([v0.sharedErrorPool, v0.decoys, v0.strata, v0.recovery, v0.recoveryOptimum, v0.canonicalSeed]).toEqual([
      false,
      false,
      null,
      "success",
      "oracle",
      "toolmaze-canonical-v1",
    ]);
    // v1 shares error texts across persistence, so its recovery cost is measured against an observable policy.
    expect([v1.sharedErrorPool, v1.recoveryOptimum]).toEqual([true, "observable"]);
  });

  it("lands the fault on the task's stratum, Actions included at every level", () => {
    for (const level of COMPLEXITIES) {
      const tasks = sample(level, 20);
      expect(tasks.length, level).toBeGreaterThan(10);
      let actions = 0;
      for (const t of tasks) {
        const prof = buildProfile(t, "P3", new Rng(`${t.id}/P3`), v1);
        prof.faults.forEach((f, k) => {
          const want = t.strata![k]!;
          expect(corpus().caps.get(f.group)!.category, `${t.id} slot ${k}`).toBe(want.category);
          expect(f.corruption!.cls === "leakage", `${t.id} slot ${k} family`).toBe(want.family === "leakage");
          if (want.category === "action") actions++;
          // The victim has a way around it except in C1 (where a permanent fault leaves only a wise abort).
          if (level !== "C1" && t.positions[f.position]!.members.length < 2) expect(t.positions[f.position]!.route, t.id).toBeDefined();
        });
      }
      expect(actions, level).toBeGreaterThan(0);
    }
  });

  it("draws transient and permanent explicit errors from one pool that never announces permanence", () => {
    const messages = { P1: new Set<string>(), P2: new Set<string>() };
    for (const t of sample("C2", 30)) {
      for (const p of ["P1", "P2"] as const) {
        for (const f of buildProfile(t, p, new Rng(`${t.id}/${p}`), v1).faults) messages[p].add(f.explicit!.message);
      }
    }
    const all = [...messages.P1, ...messages.P2];
    for (const m of all) expect(m).not.toMatch(/retired|no ETA|misconfigured|not found|deprecated/i);
    expect([...messages.P2].some((m) => messages.P1.has(m))).toBe(true);
  });

  it("routes C3 alternatives through at least two calls; C4 paths are longer than C3's", () => {
    const mean = (ts: Task[]) => ts.reduce((a, t) => a + t.sStar.length, 0) / ts.length;
    const c3 = sample("C3", 24);
    for (const t of c3) {
      const branches = new Map<string, number>();
      for (const p of t.positions) {
        if (!p.route) continue;
        const key = `${p.route.id}#${p.route.branch}`;
        branches.set(key, (branches.get(key) ?? 0) + 1);
      }
      const lengths = [...branches.values()].sort((a, b) => a - b);
      expect(
        lengths.slice(1).every((n) => n >= 2),
        t.id,
      ).toBe(true);
    }
    // The full ordering C1 < C2 < C3 < C4 is a suite property (`npx tsx scripts/toolmaze-jaccard.ts --env v1 --check`).
    expect(mean(sample("C4", 12))).toBeGreaterThan(mean(c3));
  });

  it("shows decoys (type-valid sandbox twins and distractors that produce task types) only in v1", () => {
    const tasks = sample("C3", 12);
    let twins = 0;
    for (const t of tasks) {
      const v = buildView(t, new Rng(`${t.id}/view`), 3, "v1");
      twins += v.visible.filter((n) => n.endsWith("_sandbox")).length;
      expect(buildView(t, new Rng(`${t.id}/view`), 3, "v0").visible.some((n) => n.endsWith("_sandbox"))).toBe(false);
    }
    expect(twins).toBeGreaterThan(0);
  });

  it("counts recovery as the paper does (whatever the outcome) and keeps the success-conditioned value apart", () => {
    const env = make("ToolMaze-v1", { suite: "sampled", perturbation: "P1" });
    let recoveredButFailed = 0;
    for (let seed = 0; seed < 120; seed++) {
      let [obs] = env.reset({ seed }) as [ToolObservation, unknown];
      const rng = new Rng(`v1-test/random/${seed}`);
      for (let step = 0; step < 25; step++) {
        const out = env.step(env.actionSpace.sample(rng));
        obs = out[0] as ToolObservation;
        if (out[2] || out[3]) {
          const m = (out[4] as { metrics: { recovered: number | null; recoveredOnSuccess: number | null; success: number } }).metrics;
          if (m.recovered === null) expect(m.recoveredOnSuccess).toBeNull();
          else expect(m.recoveredOnSuccess).toBe(m.recovered === 1 && m.success === 1 ? 1 : 0);
          if (m.recovered === 1 && m.success === 0) recoveredButFailed++;
          break;
        }
      }
      void obs;
    }
    expect(recoveredButFailed).toBeGreaterThan(0);
    env.close();
  });

  it("names a recovery category only for recoveries that worked (v1 reads recoveredOnSuccess)", () => {
    const base = { exposed: 1, strategies: "retry" };
    expect(recoveryCategory({ ...base, recovered: 1, recoveredOnSuccess: 0 })).toBe("not_recovered");
    expect(recoveryCategory({ ...base, recovered: 1, recoveredOnSuccess: 1 })).toBe("recovered_by_retry");
    expect(recoveryCategory({ ...base, recovered: 1 })).toBe("recovered_by_retry"); // a v0 row
  });

  it("canonical suite: Jaccard <= 0.06, |s*| grows with C, the same strata in every level", () => {
    // About 3.5 s of CPU the first time (the v1 suite is generated by rejection sampling).
    const tasks = canonicalTasks("v1");
    const mix = (ts: readonly Task[]) =>
      JSON.stringify(
        Object.entries(
          ts.reduce<Record<string, number>>((acc, t) => {
            const s = t.strata![0]!;
            acc[`${s.category}/${s.family}`] = (acc[`${s.category}/${s.family}`] ?? 0) + 1;
            return acc;
          }, {}),
        ).sort(),
      );
    const lengths = COMPLEXITIES.map((c) => {
      const ts = tasks.filter((t) => t.complexity === c);
      expect(meanPairwiseJaccard(ts), c).toBeLessThanOrEqual(0.06);
      expect(mix(ts), c).toBe(mix(tasks.filter((t) => t.complexity === "C1")));
      return ts.reduce((a, t) => a + t.sStar.length, 0) / ts.length;
    });
    lengths.forEach((x, i) => {
      if (i > 0) expect(x, COMPLEXITIES[i]).toBeGreaterThan(lengths[i - 1]!);
    });
  }, 120_000);

  it("keeps instances deterministic per (task, P)", () => {
    const t = sample("C4", 1)[0]!;
    for (const p of PERTURBATIONS) {
      const build = () => JSON.stringify(buildProfile(t, p, new Rng(`${t.id}/${p}`), v1));
      expect(build()).toBe(build());
    }
  });
});
