import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/rng.js";
import { buildProfile, corruptValue } from "../../envs/toolmaze/faults.js";
import { isUnsolvable } from "../../envs/toolmaze/scorer.js";
import { CANONICAL_SEED, canonicalTasks, PERTURBATIONS } from "../../envs/toolmaze/tasks.js";
import { fieldType, WORLD_NOW } from "../../envs/toolmaze/world/types.js";
import { corpus } from "../../envs/toolmaze/world/corpus.js";
import { statelessOutputs } from "../../envs/toolmaze/world/simulate.js";
import { type JsonSchema, zodFromJsonSchema } from "../../src/core/jsonSchema.js";

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
        if (p === "NP") {
          expect(prof.faults.length).toBe(0);
          continue;
        }
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
          classes.add(k.cls === "temporal" ? `temporal/${k.temporal}` : k.cls);
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
    expect([...classes].sort()).toEqual(["leakage", "physics", "scale", "temporal/before_request", "temporal/end_before_start"]);
  });

  it("keeps every canonical silent payload schema-conformant, except the physics class's range violations", () => {
    const c = corpus();
    const exceptions: { type: string; cls: string; issues: string[] }[] = [];
    let checked = 0;
    tasks.forEach((t, i) => {
      for (const p of ["P3", "P4"] as const) {
        for (const f of profileOf(i, p).faults) {
          const k = f.corruption!;
          for (const member of f.members) {
            const tool = c.tool(member);
            // The victim's clean response for the task's own literals (or typical values), then the payload.
            const args = Object.fromEntries(
              Object.entries(tool.paramTypes).map(([param, ty]) => {
                const b = t.positions[f.position]!.bindings[param];
                return [param, b?.kind === "literal" ? b.value : (fieldType(ty).literals?.[0] ?? fieldType(ty).gen(i + 1))];
              }),
            );
            const clean = statelessOutputs(tool, args);
            const payload = { ...clean, [k.field]: corruptValue(clean[k.field]!, k, clean) };
            const verdict = conforms(tool.outputSchema.properties[k.field] as JsonSchema, payload[k.field]);
            checked++;
            // Field-level implausibility, or (end before start) a contradiction with the response's own window end.
            if (k.temporal !== "end_before_start")
              expect(fieldType(k.type).plausible(payload[k.field]!), `${member}.${k.field} = ${String(payload[k.field])}`).toBe(false);
            else {
              const end = Object.entries(payload).find(([f2]) => /_end$/.test(f2))![1] as string;
              expect(Date.parse(payload[k.field] as string)).toBeGreaterThan(Date.parse(end));
              expect(Date.parse(payload[k.field] as string)).toBeGreaterThan(Date.parse(WORLD_NOW));
            }
            if (verdict.length > 0) exceptions.push({ type: k.type, cls: k.cls, issues: verdict });
          }
        }
      }
    });
    expect(checked).toBeGreaterThan(1500);
    // The exception list is exactly the physics class breaking a declared bound (probability-like scores above 1,
    // percentages above 100, negative counts): leakage, temporal and scale payloads all conform.
    expect(exceptions.length).toBeGreaterThan(0);
    for (const e of exceptions) {
      expect(e.cls, `${e.type}: ${e.issues.join("; ")}`).toBe("physics");
      for (const issue of e.issues) expect(issue).toMatch(/^(too_big|too_small)$/);
    }
  });
});

/** Issues of a value against a field schema: the project's JSON-schema validator, plus `format: uri`. */
function conforms(schema: JsonSchema, value: unknown): string[] {
  const r = zodFromJsonSchema(schema).safeParse(value);
  const issues: string[] = r.success ? [] : r.error.issues.map((x) => x.code);
  if (schema.format === "uri" && !(typeof value === "string" && URL.canParse(value))) issues.push("format_uri");
  return issues;
}
