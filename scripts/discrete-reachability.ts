/**
 * Reachability of the discrete action mode over whole suites: for every task, the family's reference policy (the
 * oracle where there is one) drives the discrete env, and each of its structured actions must be one of the step's
 * candidates. Prints, per suite, exact / message-equivalent / unreachable counts and the exceptions grouped by
 * reason (see docs/DISCRETE.md). The tests run a sample of the same check (test/discrete).
 *
 *   npx tsx scripts/discrete-reachability.ts                 # every suite
 *   npx tsx scripts/discrete-reachability.ts toolmaze-v0     # named suites only
 *   npx tsx scripts/discrete-reachability.ts --json out.json # also write the numbers
 *   PB_K=128 npx tsx scripts/discrete-reachability.ts planbench-builtin planbench   # PlanBench-XL at another K
 *   npx tsx scripts/discrete-reachability.ts --min 0.99      # exit 1 when a suite is below 99% (the bar)
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Action, type DiscreteToolEnv, type JsonValue, make, stableStringify } from "../src/index.js";
import { driveDiscrete, type Unreachable } from "../src/engine/discrete/replay.js";
import type { PlanBenchEnv } from "../envs/planbench/env.js";
import { defaultDataDir } from "../envs/planbench/worldSource.js";

interface Suite {
  name: string;
  id: string;
  options: Record<string, unknown>;
  policy: string;
  seeds: number;
}

/**
 * K of the PlanBench-XL suites (env PB_K; default: the env's own default, 256): a retrieval names one of the
 * vocabulary's ~56 datatypes, so a step lists far more requests than other families' steps list calls.
 */
const PB_K: Record<string, number> = process.env["PB_K"] ? { maxCandidates: Number(process.env["PB_K"]) } : {};

const SUITES: Suite[] = [
  { name: "demo", id: "Demo-v0", options: { fault: "transient" }, policy: "careful", seeds: 100 },
  { name: "demo-implicit", id: "Demo-v0", options: { fault: "implicit" }, policy: "careful", seeds: 100 },
  // Canonical suites: seed i plays instance i.
  { name: "toolmaze-v0", id: "ToolMaze-v0", options: {}, policy: "oracle", seeds: 2000 },
  { name: "toolmaze-v1", id: "ToolMaze-v1", options: {}, policy: "oracle", seeds: 2000 },
  // `cycle`: seed i plays scenario i (286 scenarios).
  { name: "failingtools", id: "FailingTools-v0", options: { cycle: true }, policy: "oracle", seeds: 286 },
  // The oracle there reads precise ids from the hidden truth; the observable baseline shows what an agent can express.
  { name: "failingtools-careful", id: "FailingTools-v0", options: { cycle: true }, policy: "careful", seeds: 286 },
  // Seed i plays task i of the test split (1,000 tasks).
  { name: "toolmisuse-test", id: "ToolMisuseBench-v0", options: { split: "test_public" }, policy: "oracle", seeds: 1000 },
  // `cycle`: seed i plays query i of the pool, with K = PB_K (docs/DISCRETE.md).
  {
    name: "planbench-builtin",
    id: "PlanBenchXL-v0",
    options: { world: "builtin", cycle: true, ...PB_K },
    policy: "oracle",
    seeds: -1,
  },
  // The official subset, when ../shared holds it.
  ...(defaultDataDir()
    ? [{ name: "planbench", id: "PlanBenchXL-v0", options: { cycle: true, ...PB_K }, policy: "oracle", seeds: -1 }]
    : []),
];

/** A suite's task count; -1: the env's whole episode pool (PlanBench-XL's query sample). */
function suiteSize(s: Suite): number {
  if (s.seeds >= 0) return s.seeds;
  const { maxCandidates: _k, ...options } = s.options;
  const env = make(s.id, options).unwrapped as unknown as PlanBenchEnv;
  return env.queryPool().length;
}

/** Why an action was no candidate: which argument values the agent never saw (or, if all were seen, the cap). */
function reason(u: Unreachable, options: Record<string, unknown>, id: string, indices: readonly number[]): string {
  const a = u.action as Action & { name?: string; arguments?: Record<string, JsonValue> };
  if (a.type === "retrieve") return "retrieve: request not among the step's retrieval candidates (the slots the calls and answers leave)";
  if (a.type !== "tool_call") return `${a.type}: no candidate with this text (nor one with the same outcome)`;
  const env = make(id, { ...options, actionMode: "discrete" }) as unknown as DiscreteToolEnv;
  env.reset({ seed: u.seed });
  for (const i of indices) env.step(i);
  const ep = env.inner.observableEpisode();
  const seen = new Set<string>();
  const collect = (v: JsonValue): void => {
    if (v !== null && typeof v === "object") for (const x of Object.values(v)) collect(x);
    seen.add(stableStringify(v));
  };
  for (const p of ep?.parameters ?? []) if (p.value !== undefined) collect(p.value);
  for (const c of ep?.calls ?? []) if (c.ok) collect(c.response);
  const unseen = Object.entries(a.arguments ?? {})
    .filter(([, v]) => !seen.has(stableStringify(v)))
    .map(([k]) => k);
  if (!ep?.tools.some((t) => t.name === a.name)) return "tool_call: tool not visible";
  if (unseen.length > 0) return `tool_call: argument(s) never observed (${unseen.sort().join(", ")})`;
  return "tool_call: values observed but not combined (matching or cap)";
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { json: { type: "string" }, limit: { type: "string" }, min: { type: "string" } },
});
const below: string[] = [];
const wanted = positionals.length ? SUITES.filter((s) => positionals.includes(s.name)) : SUITES;
const report: Record<string, JsonValue> = {};
for (const suite of wanted) {
  const size = suiteSize(suite);
  const n = values.limit ? Math.min(Number(values.limit), size) : size;
  if (n === 0) continue;
  const t0 = performance.now();
  let exact = 0;
  let equivalent = 0;
  let success = 0;
  const reasons = new Map<string, { count: number; examples: string[] }>();
  for (let seed = 0; seed < n; seed++) {
    const r = driveDiscrete(suite.id, suite.options, suite.policy, seed);
    if (r.success) success++;
    if (r.unreachable) {
      const why = reason(r.unreachable, suite.options, suite.id, r.indices);
      const entry = reasons.get(why) ?? { count: 0, examples: [] };
      entry.count++;
      const example = `seed ${seed} step ${r.unreachable.step}: ${JSON.stringify(r.unreachable.action).slice(0, 200)}`;
      if (entry.examples.length < 3) entry.examples.push(example);
      reasons.set(why, entry);
    } else if (r.equivalent.length > 0) equivalent++;
    else exact++;
  }
  const secs = (performance.now() - t0) / 1000;
  const reachable = exact + equivalent;
  console.log(
    `${suite.name} (${suite.id}, policy ${suite.policy}): ${reachable}/${n} reachable = ${((100 * reachable) / n).toFixed(1)}%` +
      ` (exact ${exact}, message-equivalent ${equivalent}); policy success ${success}/${n}; ${secs.toFixed(1)} s`,
  );
  for (const [why, e] of [...reasons.entries()].sort((x, y) => y[1].count - x[1].count)) {
    console.log(`  ${e.count} × ${why}`);
    for (const ex of e.examples) console.log(`      ${ex}`);
  }
  const exceptions = Object.fromEntries(reasons);
  const row = { id: suite.id, policy: suite.policy, tasks: n, exact, equivalent, reachable, success, exceptions };
  report[suite.name] = row as unknown as JsonValue;
  if (values.min !== undefined && reachable / n < Number(values.min)) below.push(`${suite.name} ${((100 * reachable) / n).toFixed(1)}%`);
}
if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
if (below.length > 0) {
  console.error(`below ${values.min}: ${below.join(", ")}`);
  process.exitCode = 1;
}
