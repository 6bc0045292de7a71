/**
 * Failing Tools speed: full-episode env steps/s for each baseline on Base (every scenario once), reset/s, scenario
 * generation time, and scoring calls/s. Run: npx tsx bench/failingtools.ts  (or `npm run bench -- failingtools`).
 */
import { fileURLToPath } from "node:url";
import "../envs/failingtools/index.js";
import { FT_POLICIES } from "../envs/failingtools/baselines.js";
import type { FailingToolsEnv } from "../envs/failingtools/env.js";
import { generateScenarios } from "../envs/failingtools/scenarios/generate.js";
import { scoreRun } from "../envs/failingtools/scorer.js";
import { make } from "../src/core/registry.js";
import { Rng } from "../src/core/rng.js";
import { formatTable } from "../src/metrics/table.js";
import type { BenchRow } from "./core.js";

const now = (): number => performance.now();

function stepsPerSec(policy: string): { rate: number; steps: number } {
  const env = make("FailingTools-v0", { setting: "base" }) as unknown as FailingToolsEnv;
  const p = FT_POLICIES[policy].create(env as never, new Rng(1));
  const ids = generateScenarios().map((s) => s.id);
  let steps = 0;
  const t0 = now();
  for (let round = 0; now() - t0 < 1000 || round === 0; round++) {
    for (const id of ids) {
      let [obs, info] = env.reset({ seed: round, options: { scenarioId: id } });
      p.reset?.(obs, info);
      for (let k = 0; k < 40; k++) {
        const [o, , term, trunc, i] = env.step(p.act(obs, info));
        steps += 1;
        obs = o;
        info = i;
        if (term || trunc) break;
      }
    }
  }
  return { rate: (steps * 1000) / (now() - t0), steps };
}

function resetsPerSec(): number {
  const env = make("FailingTools-v0", { setting: "base" }) as unknown as FailingToolsEnv;
  let n = 0;
  const t0 = now();
  while (now() - t0 < 500) env.reset({ seed: n++ });
  return (n * 1000) / (now() - t0);
}

function scoresPerSec(): number {
  const env = make("FailingTools-v0", {
    setting: "base",
    scenarioId: "ft-payments.send-corrupted-state-perm-zelle",
  }) as unknown as FailingToolsEnv;
  env.reset({ seed: 0 });
  env.step({ type: "answer", content: "Sent $150 to the recipient." });
  const s = env.currentScenario();
  const run = env.run();
  if (!s) throw new Error("no scenario");
  let n = 0;
  const t0 = now();
  while (now() - t0 < 300) {
    scoreRun(s, "base", run);
    n += 1;
  }
  return (n * 1000) / (now() - t0);
}

export async function bench(): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const t0 = now();
  const count = generateScenarios().length;
  const genMs = now() - t0;
  const rows: BenchRow[] = [];
  for (const p of ["oracle", "careful", "naive", "random"]) {
    const { rate } = stepsPerSec(p);
    rows.push({ name: `env steps/s (${p}, base)`, opsPerSec: rate, nsPerOp: 1e9 / rate });
  }
  const r = resetsPerSec();
  rows.push({ name: "reset/s (seeded scenario draw)", opsPerSec: r, nsPerOp: 1e9 / r });
  const sc = scoresPerSec();
  rows.push({ name: "scoreRun/s", opsPerSec: sc, nsPerOp: 1e9 / sc });
  return { rows, notes: [`scenario generation: ${count} scenarios in ${genMs.toFixed(0)} ms (cached after the first call)`] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { rows, notes } = await bench();
  const base = rows[0].opsPerSec;
  process.stdout.write(
    `${formatTable(
      ["benchmark", "ops/s", "ns/op", "× first row"],
      rows.map((x) => [x.name, Math.round(x.opsPerSec), Math.round(x.nsPerOp), Math.round((x.opsPerSec / base) * 100) / 100]),
    )}\n`,
  );
  for (const n of notes) process.stdout.write(`${n}\n`);
}
