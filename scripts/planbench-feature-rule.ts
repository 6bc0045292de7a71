/**
 * Can PlanBench-XL's discrete features express the task? A fixed rule that reads only the discrete observation (no
 * structured observation, no ground truth) plays the held-out queries (docs/DISCRETE.md reports the result):
 *
 *   1. answer, once every goal is done, with a value from no implausible response;
 *   2. else the shallowest tool call on a needed chain whose tool documents no caveat, whose output is not held,
 *      not made before, not after a non-transient failure of its tool, and with no implausible argument;
 *   3. else the frontier retrieval (a needed datatype no listed tool outputs), the asked-for datatype first,
 *      by output before by inputs, never one made before;
 *   4. else a forward retrieval from the newest held datatype of a datatype neither held nor listed;
 *   5. else slot 0 (abort).
 *
 *   npx tsx scripts/planbench-feature-rule.ts [--episodes 40] [--seed 100000] [--no-caveat] [--opt k=v ...]
 */
import { parseArgs } from "node:util";
import { CANDIDATE_FEATURES, type DiscreteToolEnv, GLOBAL_FEATURES, make } from "../src/index.js";

const { values } = parseArgs({
  options: {
    episodes: { type: "string", default: "40" },
    seed: { type: "string", default: "100000" },
    "no-caveat": { type: "boolean", default: false },
    opt: { type: "string", multiple: true, default: [] },
  },
});
const options: Record<string, unknown> = {};
for (const kv of values.opt ?? []) {
  const [k, v] = kv.split("=", 2) as [string, string];
  options[k] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v === "true" ? true : v === "false" ? false : v;
}
const G = GLOBAL_FEATURES.length;
const C = CANDIDATE_FEATURES.length;
const at = (name: (typeof CANDIDATE_FEATURES)[number]) => CANDIDATE_FEATURES.indexOf(name);
const FAMILY = at("family_0");
const ALL_DONE = GLOBAL_FEATURES.indexOf("all_goals_done");

/** The rule's score of slot k (higher is preferred; -Infinity: never). */
function score(f: Float32Array, k: number, useCaveat: boolean): number {
  const s = (name: (typeof CANDIDATE_FEATURES)[number]) => f[G + k * C + at(name)];
  const fam = (j: number) => f[G + k * C + FAMILY + j];
  if (s("kind_answer")) return f[ALL_DONE] && !s("argument_from_suspicious_response") ? 100 : -Infinity;
  if (s("kind_tool_call")) {
    const bad =
      s("output_already_held") ||
      s("same_call_succeeded_before") ||
      s("same_call_failed_before") ||
      s("argument_from_suspicious_response") ||
      s("tool_last_other_error") ||
      (useCaveat && s("documented_caveat"));
    if (bad || !s("on_needed_chain")) return -Infinity;
    return 80 - 10 * (s("chain_depth_1") + 2 * s("chain_depth_2_plus"));
  }
  if (s("kind_family") && fam(6) === 0) {
    if (fam(2)) return 40 + 5 * fam(0) + (fam(5) ? 0 : 1);
    if (fam(5) && !fam(3) && !fam(4)) return 10;
  }
  return -Infinity;
}

const env = make("PlanBenchXL-v0", { ...options, actionMode: "discrete" }) as unknown as DiscreteToolEnv;
const first = Number(values.seed);
const n = Number(values.episodes);
let solved = 0;
let steps = 0;
for (let seed = first; seed < first + n; seed++) {
  let [obs] = env.reset({ seed });
  for (;;) {
    let best = 0;
    let bestScore = -Infinity;
    for (let k = 0; k < obs.action_mask.length; k++) {
      if (!obs.action_mask[k]) continue;
      const sc = score(obs.observation, k, !values["no-caveat"]);
      if (sc > bestScore) [best, bestScore] = [k, sc];
    }
    const [next, , terminated, truncated, info] = env.step(best);
    steps++;
    obs = next;
    if (terminated || truncated) {
      if (info.success === true) solved++;
      break;
    }
  }
}
env.close();
console.log(`PlanBenchXL-v0 feature rule: solved ${solved} / ${n} held-out queries from seed ${first} (${steps} steps)`);
