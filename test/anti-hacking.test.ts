import { describe, expect, it } from "vitest";
import {
  ADVERSARIES,
  type ToolEnv,
  listEnvs,
  listRewardPresets,
  make,
  mean,
  recordEpisodes,
  registryEntry,
  resolveRewardSpec,
  returnsUnder,
} from "../src/index.js";
import { pacer } from "./helpers/pace.js";

// Every family's careful baseline must out-earn every scripted reward hacker on the same seeds, under every preset
// the family ships, in its default options and in the settings where faults change the most (blockers, permanent
// perturbations, relaxed scoring, another split): otherwise the shaping teaches hacking instead of recovery.
const SEEDS = Array.from({ length: 16 }, (_, i) => 1000 + i);

/** The four benchmark families: each must stay covered (a family that lost its carefulPolicy would drop out). */
const FAMILIES = ["ToolMaze-v0", "PlanBenchXL-v0", "FailingTools-v0", "ToolMisuseBench-v0"];

const CONFIGS: { id: string; options: Record<string, unknown> }[] = [
  { id: "Demo-v0", options: {} },
  { id: "ToolMaze-v0", options: {} },
  { id: "ToolMaze-v0", options: { perturbation: "P2" } },
  { id: "ToolMaze-v0", options: { perturbation: "P4" } },
  // Sampled: the canonical v1 suite takes seconds to generate, which this suite-wide test need not pay.
  { id: "ToolMaze-v1", options: { suite: "sampled", perturbation: "P2" } },
  { id: "PlanBenchXL-v0", options: {} },
  { id: "PlanBenchXL-v0", options: { setting: "blocker" } },
  { id: "FailingTools-v0", options: {} },
  { id: "FailingTools-v0", options: { setting: "relaxed" } },
  { id: "ToolMisuseBench-v0", options: {} },
  { id: "ToolMisuseBench-v0", options: { split: "dev" } },
];

describe("recovery rewards cannot be gamed by scripted adversaries", () => {
  it("covers the four families and every registered env, each with a careful baseline", () => {
    for (const id of FAMILIES) expect(registryEntry(id).carefulPolicy, `${id} must name its carefulPolicy`).toBeTruthy();
    const covered = new Set(CONFIGS.map((c) => c.id));
    expect(
      listEnvs()
        .map((e) => e.id)
        .filter((id) => !covered.has(id)),
      "registered envs missing from CONFIGS",
    ).toEqual([]);
    for (const id of FAMILIES)
      expect(
        CONFIGS.filter((c) => c.id === id && Object.keys(c.options).length > 0).length,
        `${id} needs a non-default setting`,
      ).toBeGreaterThan(0);
  });

  for (const { id, options } of CONFIGS) {
    const label = Object.keys(options).length ? `${id} ${JSON.stringify(options)}` : `${id} (defaults)`;
    it(`${label}: the careful baseline beats every adversary under every preset`, async () => {
      const entry = registryEntry(id);
      const careful = entry.carefulPolicy;
      expect(careful, `${id} has no carefulPolicy`).toBeTruthy();
      const env = make(id, options) as unknown as ToolEnv<unknown>;
      const terms = env.knownTerms();
      env.close();
      // One policy's episodes at a time, with a turn for the event loop in between (seconds in all on PlanBench-XL).
      const pace = pacer();
      const baseline = recordEpisodes(id, options, careful as string, SEEDS, 200);
      const adversaries: (readonly [string, ReturnType<typeof recordEpisodes>])[] = [];
      for (const name of Object.keys(ADVERSARIES)) {
        await pace();
        adversaries.push([name, recordEpisodes(id, options, `adversary:${name}`, SEEDS, 200)]);
      }
      const failures: string[] = [];
      for (const preset of listRewardPresets(entry.family)) {
        const spec = resolveRewardSpec(preset, entry.family, terms);
        const bar = mean(returnsUnder(spec, baseline));
        for (const [name, eps] of adversaries) {
          const got = mean(returnsUnder(spec, eps));
          if (!(got < bar)) failures.push(`${preset}: ${name} ${got.toFixed(3)} >= ${careful} ${bar.toFixed(3)}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }
});

describe("the anti-hacking check can fail", () => {
  it("a spec that pays for ending episodes lets an immediate abort out-earn the careful policy", () => {
    const hackable = {
      name: "hackable",
      gamma: 1,
      terms: { success: { weight: 1, kind: "terminal" as const }, failure: { weight: 1.5, kind: "terminal" as const } },
    };
    const careful = recordEpisodes("Demo-v0", {}, "careful", SEEDS, 50);
    const abort = recordEpisodes("Demo-v0", {}, "adversary:immediate-abort", SEEDS, 50);
    expect(mean(returnsUnder(hackable, abort))).toBeGreaterThan(mean(returnsUnder(hackable, careful)));
  });
});
