import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import type { Info } from "../../src/core/env.js";
import { listRewardPresets, make, mean, type RecordedEpisode, resolveRewardSpec, returnsUnder } from "../../src/index.js";
import type { Action } from "../../src/engine/actions.js";
import type { RawTerms } from "../../src/rewards/compute.js";

const ID = "PlanBenchXL-v0";
const OPTS = { world: "builtin" };
const SEEDS = Array.from({ length: 10 }, (_, i) => 700 + i);

/**
 * The reference oracle (walk the one available path), optionally farming the recovery terms: before each clean
 * call it takes the bait of one listed noisy sibling of that tool (then "switches" to the clean one), and with
 * `repeat` it calls each bait twice. A farmer must never out-earn the same walk without the bait.
 */
function walk(env: PlanBenchEnv, seed: number, bait: boolean, repeat: boolean): { rec: RecordedEpisode; events: string[] } {
  let [, info]: [unknown, Info] = env.reset({ seed });
  const rec: RecordedEpisode = { seed, phi0: info["phi"] as number, steps: [], success: false, terminationReason: "", metrics: {} };
  const events: string[] = [];
  const hidden = info["hidden"] as { onePath: string[]; inputValues: Record<string, string> };
  const values = new Map<string, unknown>(Object.entries(hidden.inputValues));
  let last: unknown = "";
  const act = (a: unknown): Info => {
    const [obs, , term, trunc, i] = env.step(a as Action);
    rec.steps.push({ rawTerms: i["rawTerms"] as RawTerms, phi: i["phi"] as number });
    for (const e of i["events"] as Array<{ type: string }>) events.push(e.type);
    const tr = (obs.response as { toolResult?: { name: string; output: unknown } } | null)?.toolResult;
    if (tr && env.release.toolByName.get(tr.name)!.tool_type === "baseline" && tr.output !== null) {
      values.set(env.release.toolByName.get(tr.name)!.output_datatype, tr.output);
      last = tr.output;
    }
    if (term || trunc) {
      rec.success = i["success"] === true;
      rec.terminationReason = String(i["terminationReason"]);
    }
    return i;
  };
  const argsFor = (name: string): Record<string, unknown> => {
    const t = env.release.toolByName.get(name)!;
    const args: Record<string, unknown> = {};
    for (const [s, dt] of Object.entries(t.surface_argument_to_datatype)) args[s] = values.get(dt) ?? "?";
    return args;
  };
  for (const name of hidden.onePath) {
    const tool = env.release.toolByName.get(name)!;
    const req =
      tool.input_datatypes.length > 2
        ? { type: "retrieve", meta_tool: "by_output_info", output_information: tool.output_datatype }
        : { type: "retrieve", meta_tool: "by_io_info", output_information: tool.output_datatype, input_information: tool.input_datatypes };
    info = act(req);
    // Never bait the target's producer: an answer equal to an untrusted target value is rejected (official rule),
    // which would make the farmer fail for a reason unrelated to the reward terms.
    if (bait && tool.output_datatype !== env.session!.query.target_datatype) {
      // One bait per tool: the cheapest way to buy a switch.
      const sib = env.session!.episode.available.find((n) => {
        const t = env.release.toolByName.get(n)!;
        return t.tool_type !== "baseline" && t.baseline_tool_name === name;
      });
      if (sib)
        for (let k = 0; k < (repeat ? 2 : 1) && !env.isDone(); k++) info = act({ type: "tool_call", name: sib, arguments: argsFor(sib) });
    }
    if (env.isDone()) break;
    info = act({ type: "tool_call", name, arguments: argsFor(name) });
  }
  if (!env.isDone()) act({ type: "answer", content: String(last) });
  return { rec, events };
}

describe("PlanBench-XL recovery terms cannot be farmed", () => {
  it("bait-then-switch and repeated bait earn strictly less than the clean walk under every shaped preset", () => {
    const env = make(ID, OPTS) as unknown as PlanBenchEnv;
    const clean = SEEDS.map((s) => walk(env, s, false, false));
    const farm = SEEDS.map((s) => walk(env, s, true, false));
    const spam = SEEDS.map((s) => walk(env, s, true, true));
    expect(clean.every((c) => c.rec.success)).toBe(true);
    expect(farm.every((c) => c.rec.success)).toBe(true);
    // The farmer really triggers the recovery events it is trying to farm.
    expect(farm.flatMap((f) => f.events)).toContain("alternative_switch");
    expect(spam.flatMap((f) => f.events)).toContain("retry");
    const terms = env.knownTerms();
    const failures: string[] = [];
    for (const preset of listRewardPresets("planbench")) {
      const spec = resolveRewardSpec(preset, "planbench", terms);
      const bar = mean(
        returnsUnder(
          spec,
          clean.map((c) => c.rec),
        ),
      );
      for (const [name, eps] of [
        ["bait-then-switch", farm],
        ["repeated-bait", spam],
      ] as const) {
        const got = mean(
          returnsUnder(
            spec,
            eps.map((c) => c.rec),
          ),
        );
        // Sparse and potential-only pay only the outcome and Φ's end points, which the farmer shares.
        const ok = preset === "sparse" || preset === "potential-only" ? Math.abs(got - bar) < 1e-12 : got < bar;
        if (!ok) failures.push(`${preset}: ${name} ${got.toFixed(4)} vs clean ${bar.toFixed(4)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("repeating a call that gave an untrusted value is a futile retry; a clean producer after it is a switch", () => {
    const env = make(ID, OPTS) as unknown as PlanBenchEnv;
    const { rec } = walk(env, SEEDS[0]!, true, true);
    const raw = rec.steps.map((s) => s.rawTerms);
    expect(raw.some((r) => (r["futile_retry"] ?? 0) > 0)).toBe(true);
    expect(raw.some((r) => (r["alternative_switch"] ?? 0) > 0)).toBe(true);
    expect(raw.some((r) => (r["untrusted_output"] ?? 0) > 0)).toBe(true);
  });
});
