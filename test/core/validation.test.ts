import { describe, expect, it } from "vitest";
import { validationCases } from "../../bench/validation/cases.js";
import { ajvVerdict, today, zodImport } from "../../bench/validation/validators.js";
import { validatorFor } from "../../src/index.js";

// Tool-argument validation keeps today's path (src/core/fastSchema.ts, then zod): `npm run bench -- validation`
// measured ajv and zod's JSON Schema import against it. Whatever path validates, the verdicts must be the same.
describe("tool-argument validation verdicts on every family's tool schemas", () => {
  const { cases } = validationCases();
  const envs = new Set(cases.map((c) => c.envId));

  it("covers every family with sampled and mutated arguments", () => {
    const families = ["Demo-v0", "FailingTools-v0", "PlanBenchXL-v0", "ToolMaze-v0", "ToolMisuseBench-v0"];
    for (const id of families) expect(envs.has(id), id).toBe(true);
    expect(cases.filter((c) => c.kind === "sampled").length).toBeGreaterThan(100);
    expect(cases.filter((c) => c.kind !== "sampled" && !today(c.parameters, c.args)).length).toBeGreaterThan(500);
  });

  it("accepts every sampled argument set and rejects unknown keys, missing required keys and non-objects", () => {
    for (const c of cases) {
      const where = `${c.envId} ${c.tool} ${c.kind}`;
      if (c.kind === "sampled") expect(today(c.parameters, c.args), where).toBe(true);
      const closed = c.parameters.additionalProperties === undefined;
      const notAnObject = c.kind === "not_an_object" || c.kind === "null";
      const surelyBad = notAnObject || c.kind.startsWith("missing:") || (c.kind === "unknown_key" && closed);
      if (surelyBad) expect(today(c.parameters, c.args), where).toBe(false);
    }
  });

  it("the fast path, zod alone, ajv and zod's JSON Schema import give the same verdict on every case", () => {
    const differ: string[] = [];
    for (const c of cases) {
      const verdict = today(c.parameters, c.args);
      const others = {
        zod: validatorFor(c.parameters).safeParse(c.args).success,
        ajv: ajvVerdict(c.parameters, c.args),
        zodImport: zodImport(c.parameters, c.args),
      };
      for (const [name, v] of Object.entries(others)) {
        if (v !== verdict) differ.push(`${name} ${c.envId} ${c.tool} ${c.kind}: ${v} vs ${verdict}`);
      }
    }
    expect(differ).toEqual([]);
  });
});
