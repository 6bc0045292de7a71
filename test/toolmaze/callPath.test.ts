import { describe, expect, it } from "vitest";
import { argumentIssues } from "../../src/core/spaces/toolCall.js";
import { stableStringify } from "../../src/core/json.js";
import { Rng } from "../../src/core/rng.js";
import { toolDefinition } from "../../envs/toolmaze/wiring.js";
import { corpus } from "../../envs/toolmaze/world/corpus.js";
import { FNV_START, fnvUpdate, fnvUpdateJson } from "../../envs/toolmaze/world/hash.js";
import { simulate, simulateValid, validateArgs } from "../../envs/toolmaze/world/simulate.js";
import { emptyWorldState } from "../../envs/toolmaze/world/state.js";
import { sampleFromJsonSchema } from "../../src/core/jsonSchema.js";

describe("ToolMaze call path", () => {
  const c = corpus();

  it("hashes JSON data exactly as the text stableStringify writes", () => {
    const values: unknown[] = [
      {},
      { b: 1, a: "x" },
      { q: 'say "hi"\\n', path: "a\\b", ctl: "\u0001\t", e: "\u00e9\u4e2d", pair: "\ud83d\ude00", lone: "\ud800x" },
      { n: -0, m: -12.5, big: 2 ** 40, small: 1e-7, huge: 1e21, f: 0.1 + 0.2, nan: Number.NaN, inf: -Infinity },
      { t: true, f: false, z: null, u: undefined, last: 3 },
      { nested: { b: [1, "two", { c: null }], a: {} }, arr: [undefined, 1] },
      { "k\u0000ey": 1, 'quote"key': 2, Zeta: 3, alpha: 4, _: 5, "10": 6, "9": 7 },
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${(i * 7) % 20}`, i])),
      [1, { b: 2, a: 1 }],
      "plain",
      'esc"aped',
      42,
      null,
    ];
    for (const v of values) expect(fnvUpdateJson(FNV_START, v), stableStringify(v)).toBe(fnvUpdate(FNV_START, stableStringify(v)));
    // From any state, not only the start.
    const mid = fnvUpdate(FNV_START, "group|");
    expect(fnvUpdateJson(mid, { a: "x", b: 2 })).toBe(fnvUpdate(mid, stableStringify({ a: "x", b: 2 })));
  });

  it("refuses through the JSON schema every argument set the simulator's own check refuses", () => {
    // The engine checks the schema before a tool runs, so its definitions skip the simulator's check (simulateValid):
    // that is only the same behaviour while the schema is the stricter of the two.
    const rng = new Rng("tmcall-validate");
    const bad: unknown[] = [null, "", "x", 0, -1, 1.5, 1e300, true, [], {}, "2026-13-01", Number.NaN];
    let refusedBySimulator = 0;
    for (const t of c.tools) {
      // What the engine checks: the definition's parameters.
      const schema = toolDefinition(t).parameters;
      const valid = sampleFromJsonSchema(schema, rng) as Record<string, unknown>;
      expect(argumentIssues(schema, valid)).toBeNull();
      const variants: Record<string, unknown>[] = [
        { ...valid, extra: 1 },
        { ...valid, constructor: "x" },
      ];
      for (const k of Object.keys(valid)) {
        const { [k]: _dropped, ...without } = valid;
        variants.push(without);
        for (const v of bad) variants.push({ ...valid, [k]: v });
      }
      for (const args of variants) {
        if (validateArgs(t, args) === null) continue;
        refusedBySimulator++;
        expect(argumentIssues(schema, args), `${t.name} ${JSON.stringify(args)}`).not.toBeNull();
      }
    }
    expect(refusedBySimulator).toBeGreaterThan(1000);
  });

  it("simulates schema-valid calls the same with and without the simulator's own check", () => {
    const rng = new Rng("tmcall-same");
    for (const t of c.tools) {
      for (let k = 0; k < 3; k++) {
        const args = sampleFromJsonSchema(toolDefinition(t).parameters, rng) as Record<string, unknown>;
        expect(simulateValid(t, args, emptyWorldState())).toEqual(simulate(t, args, emptyWorldState()));
      }
    }
  });
});
