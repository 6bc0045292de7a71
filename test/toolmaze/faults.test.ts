import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/rng.js";
import { buildProfile, corruptValue } from "../../envs/toolmaze/faults.js";
import { isUnsolvable } from "../../envs/toolmaze/scorer.js";
import { CANONICAL_SEED, canonicalTasks, PERTURBATIONS } from "../../envs/toolmaze/tasks.js";
import { fieldType } from "../../envs/toolmaze/world/types.js";

const profileOf = (taskIdx: number, p: (typeof PERTURBATIONS)[number]) => {
  const t = canonicalTasks()[taskIdx]!;
  return buildProfile(t, p, new Rng(`${CANONICAL_SEED}/${t.id}/${p}`));
};

describe("ToolMaze perturbation profiles", () => {
  const tasks = canonicalTasks();

  it("are deterministic per (task, P) and place the victim group on s*", () => {
    tasks.forEach((t, i) => {
      for (const p of PERTURBATIONS) {
        const prof = profileOf(i, p);
        expect(JSON.stringify(prof)).toBe(JSON.stringify(profileOf(i, p)));
        if (p === "NP") { expect(prof.faults.length).toBe(0); continue; }
        expect(prof.faults.length).toBe(t.slots.length); // C4: one local fault per parallel slot
        for (const f of prof.faults) {
          const pos = t.positions[f.position]!;
          expect(pos.slot).toBe(f.slot);
          expect(pos.members.some((m) => t.sStar.includes(m))).toBe(true);
          expect(f.members).toEqual(pos.members);
          const pattern = t.slots[f.slot]!.pattern;
          if (pattern === "substitute") expect(pos.members.length).toBeGreaterThan(1);
          if (pattern === "multipath") expect(pos.route).toBeDefined();
        }
        const permanent = p === "P2" || p === "P4";
        expect(isUnsolvable(t, prof)).toBe(permanent && t.complexity === "C1");
      }
    });
  });

  it("uses HTTP-style errors for explicit modes (429 with retry-after, 404, 500, 503, timeout)", () => {
    const seen = new Set<number>();
    tasks.forEach((_, i) => {
      for (const p of ["P1", "P2"] as const) {
        for (const f of profileOf(i, p).faults) {
          expect(f.visibility).toBe("explicit");
          seen.add(f.explicit!.status);
          if (f.explicit!.status === 429) expect(f.explicit!.retryAfter).toBeGreaterThan(0);
          if (p === "P1") expect([429, 500, 503, 504]).toContain(f.explicit!.status);
          else expect([404, 500, 503]).toContain(f.explicit!.status);
        }
      }
    });
    expect([...seen].sort()).toEqual([404, 429, 500, 503, 504]);
  });

  it("makes implicit payloads type-correct but semantically wrong, covering every corruption class", () => {
    const classes = new Set<string>();
    tasks.forEach((_, i) => {
      for (const p of ["P3", "P4"] as const) {
        for (const f of profileOf(i, p).faults) {
          const k = f.corruption!;
          classes.add(k.cls);
          const ft = fieldType(k.type);
          for (const h of [1, 77, 123456, 987654321]) {
            const clean = ft.gen(h);
            const bad = corruptValue(clean, k);
            expect(typeof bad).toBe(typeof clean);
            expect(ft.plausible(bad), `${k.type} ${k.cls} ${String(clean)} -> ${String(bad)}`).toBe(false);
            expect(corruptValue(clean, k)).toBe(bad);
          }
        }
      }
    });
    expect([...classes].sort()).toEqual(["leakage", "physics", "scale", "temporal"]);
  });
});
