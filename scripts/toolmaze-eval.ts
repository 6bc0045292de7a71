/**
 * Evaluates ToolMaze baselines on a canonical suite (2,000 instances; seeds 0..1999 cover them once, stratified)
 * and prints the paper-style C × P tables (TSR, PRR, PRR_success, RC, Avg) plus the per-mode and per-level summary the
 * v1 acceptance reads. Same numbers as `recovery-gym eval --env ToolMaze-v1 --policy <name> --episodes 2000`.
 * With --check (heuristic and oracle only) it also prints each v1 acceptance criterion of issue 16 with PASS / FAIL and
 * exits 1 if one fails: heuristic PRR P1 > P2 and P3 > P4 by >= 5 points, implicit - explicit PRR gap >= 15 points
 * (transient and permanent), RC rising P1 < P2 < P3 < P4, TSR of C4 below C1 and C2 with C3 not the easiest,
 * overall TSR in [50%, 80%]; oracle TSR 100%. RC is v1's (against an observable policy's c*); RC_literal is printed beside it.
 * Run: npx tsx scripts/toolmaze-eval.ts [--env ToolMaze-v0] [--check] [policy ...]
 */
import { registryEntry } from "../src/core/registry.js";
import { formatTable } from "../src/metrics/table.js";
import { rollout } from "../src/rollout.js";
import "../envs/toolmaze/index.js";

const check = process.argv.includes("--check");
const args = process.argv.slice(2).filter((a) => a !== "--check");
const at = args.indexOf("--env");
const envId = at >= 0 ? args[at + 1]! : "ToolMaze-v1";
const named = at < 0 ? args : args.filter((_, i) => i !== at && i !== at + 1);
const policies = check ? ["heuristic", "oracle"] : named.length > 0 ? named : ["random", "happy-path", "heuristic", "oracle"];
const verdicts: [string, boolean][] = [];
const pct = (x: number | undefined): string => (x === undefined ? "-" : (x * 100).toFixed(1));
for (const policy of policies) {
  const results = rollout({ envId, policy, episodes: 2000, seed: 0 });
  const agg = registryEntry(envId).aggregate!(results);
  const m = agg.metrics;
  console.log(
    `\n### ${envId} ${policy}: TSR ${pct(m.TSR)}%  PRR ${pct(m.PRR)}%  PRR_success ${pct(m.PRR_success)}%  ` +
      `RC ${pct(m.RC)}%  Avg ${pct(m.Avg)}%`,
  );
  const modes = ["P1", "P2", "P3", "P4"];
  const byMode = (k: string): string => modes.map((p) => `${p} ${pct(m[`${k}_${p}`])}`).join(", ");
  const literal = m.RC_literal === undefined ? "" : ` (RC_literal, against the oracle's c*: ${byMode("RC_literal")})`;
  console.log(
    `PRR by mode ${byMode("PRR")}; RC by mode ${byMode("RC")}${literal}; ` +
      `TSR by level ${["C1", "C2", "C3", "C4"].map((c) => `${c} ${pct(m[`TSR_${c}`])}`).join(", ")}`,
  );
  for (const t of agg.breakdown) {
    console.log(`\n${t.title}`);
    console.log(formatTable(t.columns, t.rows));
  }
  const v = (k: string): number => (m[k] ?? Number.NaN) * 100;
  if (check && policy === "heuristic") {
    verdicts.push(
      [`PRR P1 - P2 = ${(v("PRR_P1") - v("PRR_P2")).toFixed(1)} >= 5`, v("PRR_P1") - v("PRR_P2") >= 5],
      [`PRR P3 - P4 = ${(v("PRR_P3") - v("PRR_P4")).toFixed(1)} >= 5`, v("PRR_P3") - v("PRR_P4") >= 5],
      [`implicit - explicit PRR, transient (P1 - P3) = ${(v("PRR_P1") - v("PRR_P3")).toFixed(1)} >= 15`, v("PRR_P1") - v("PRR_P3") >= 15],
      [`implicit - explicit PRR, permanent (P2 - P4) = ${(v("PRR_P2") - v("PRR_P4")).toFixed(1)} >= 15`, v("PRR_P2") - v("PRR_P4") >= 15],
      [
        `RC rises P1 < P2 < P3 < P4: ${modes.map((p) => v(`RC_${p}`).toFixed(2)).join(" / ")}`,
        modes.every((p, i) => i === 0 || v(`RC_${p}`) > v(`RC_${modes[i - 1]}`)),
      ],
      [
        `TSR C4 ${v("TSR_C4").toFixed(1)} below C1 ${v("TSR_C1").toFixed(1)} and C2 ${v("TSR_C2").toFixed(1)}`,
        v("TSR_C4") < Math.min(v("TSR_C1"), v("TSR_C2")),
      ],
      [`C3 not the easiest (TSR C3 ${v("TSR_C3").toFixed(1)})`, v("TSR_C3") < Math.max(v("TSR_C1"), v("TSR_C2"))],
      [`heuristic TSR ${v("TSR").toFixed(1)} in [50, 80]`, v("TSR") >= 50 && v("TSR") <= 80],
    );
  }
  if (check && policy === "oracle") verdicts.push([`oracle TSR ${v("TSR").toFixed(1)} = 100`, m.TSR === 1]);
}
if (check) {
  console.log(`\n### ${envId} acceptance (issue 16)`);
  for (const [what, ok] of verdicts) console.log(`${ok ? "PASS" : "FAIL"} ${what}`);
  if (verdicts.some(([, ok]) => !ok)) process.exitCode = 1;
}
