/**
 * Tool-argument validation: today's path (fastSchema predicate, zod when it does not accept) vs ajv vs zod's own
 * JSON Schema import, on every family's tool schemas with sampled valid and mutated arguments. Prints whether the
 * verdicts agree, then ns per validation (valid and rejected calls apart, validators already built) and the one-off
 * build cost per schema, with ratios to today's path. Run: `npm run bench -- validation`.
 */
import Benchmark from "benchmark";
import { formatTable } from "../../src/index.js";
import { type ValidationCase, validationCases } from "./cases.js";
import { ajvVerdict, engineAjv, explicitSchema, today, type Verdict, withSafeIntegers, zodImport } from "./validators.js";
import { z } from "zod";

type ZodJsonSchema = Parameters<typeof z.fromJSONSchema>[0];
import { compileFastCheck } from "../../src/core/fastSchema.js";
import { validatorFor } from "../../src/index.js";

const { cases, churn } = validationCases();
const CANDIDATES: [string, Verdict][] = [
  ["today (fastSchema, then zod)", today],
  ["ajv", ajvVerdict],
  ["zod.fromJSONSchema", zodImport],
];

const verdicts = cases.map((c) => today(c.parameters, c.args));
const differing = (v: Verdict) => cases.filter((c, i) => v(c.parameters, c.args) !== verdicts[i]).length;
const disagreements = CANDIDATES.map(([name, v]) => [name, differing(v)] as const);
const valid = cases.filter((_, i) => verdicts[i]);
const rejected = cases.filter((_, i) => !verdicts[i]);
const schemas = [...new Set(cases.map((c) => c.parameters))];
process.stdout.write(
  `${cases.length} cases (${valid.length} valid, ${rejected.length} rejected) on ${schemas.length} tool schemas ` +
    `of ${new Set(cases.map((c) => c.envId)).size} envs\n` +
    `verdicts differing from today's: ${disagreements.map(([n, d]) => `${n} ${d}`).join(", ")}\n\n`,
);

/** ns per validation of `verdict` over `set` (one Benchmark.js op validates the whole set once). */
function nsPerValidation(verdict: Verdict, set: readonly ValidationCase[]): number {
  let sink = 0;
  const bench = new Benchmark(() => {
    for (const c of set) if (verdict(c.parameters, c.args)) sink++;
  });
  bench.run({ async: false });
  if (sink < 0) process.stdout.write("");
  return 1e9 / (bench.hz * set.length);
}

/** Mean µs to build a validator for one schema (what the first call of a tool pays). */
function buildMicros(build: (schema: ReturnType<typeof explicitSchema>) => unknown): number {
  const t0 = performance.now();
  for (const s of schemas) build(s);
  return ((performance.now() - t0) * 1000) / schemas.length;
}

const ajv = engineAjv();
const builds: Record<string, () => number> = {
  "today (fastSchema, then zod)": () => buildMicros((s) => [compileFastCheck({ type: "object", ...s }), validatorFor({ ...s })]),
  ajv: () => buildMicros((s) => ajv.compile(withSafeIntegers(explicitSchema({ type: "object", ...s })))),
  "zod.fromJSONSchema": () => buildMicros((s) => z.fromJSONSchema(explicitSchema({ type: "object", ...s }) as ZodJsonSchema)),
};

const rows = CANDIDATES.map(([name, v]) => {
  return { name, valid: nsPerValidation(v, valid), rejected: nsPerValidation(v, rejected), build: builds[name]!() };
});
const base = rows[0]!;
process.stdout.write(
  `${formatTable(
    ["validator", "valid ns/call", "× today", "rejected ns/call", "× today", "build µs/schema", "× today"],
    rows.map((r) => {
      const [valid, rejected] = [Math.round(r.valid), Math.round(r.rejected)];
      return [r.name, valid, r.valid / base.valid, rejected, r.rejected / base.rejected, r.build, r.build / base.build];
    }),
  )}\n`,
);

// What a schema object costs over its life: its validators are built once, then used by the calls made with it.
const calls = churn.reduce((a, c) => a + c.toolCalls, 0);
const objects = churn.reduce((a, c) => a + c.schemaObjects, 0);
const perObject = calls / objects;
process.stdout.write(
  `\nschema objects / tool calls in the played episodes: ${churn.map((c) => `${c.envId} ${c.schemaObjects}/${c.toolCalls}`).join(", ")}\n` +
    `at ${perObject.toFixed(2)} calls per schema object, build + calls cost per object (µs): ` +
    `${rows.map((r) => `${r.name} ${(r.build + (perObject * r.valid) / 1000).toFixed(1)}`).join(", ")}\n`,
);
