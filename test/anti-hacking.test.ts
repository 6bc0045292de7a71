import { describe, expect, it } from "vitest";
import { ADVERSARIES, type ToolEnv, listEnvs, listRewardPresets, make, mean, recordEpisodes, registryEntry, resolveRewardSpec, returnsUnder } from "../src/index.js";

// Every family's careful baseline must out-earn every scripted reward hacker on the same seeds, under every preset
// the family ships: otherwise the shaping teaches hacking instead of recovery.
const SEEDS = Array.from({ length: 16 }, (_, i) => 1000 + i);

describe("recovery rewards cannot be gamed by scripted adversaries", () => {
  for (const { id } of listEnvs()) {
    const entry = registryEntry(id);
    if (!entry.carefulPolicy) continue;
    it(`${id}: ${entry.carefulPolicy} beats every adversary under every preset`, () => {
      const env = make(id) as unknown as ToolEnv<unknown>;
      const terms = env.knownTerms();
      const careful = recordEpisodes(id, {}, entry.carefulPolicy as string, SEEDS, 200);
      const adversaries = Object.keys(ADVERSARIES).map((name) => [name, recordEpisodes(id, {}, `adversary:${name}`, SEEDS, 200)] as const);
      const failures: string[] = [];
      for (const preset of listRewardPresets(entry.family)) {
        const spec = resolveRewardSpec(preset, entry.family, terms);
        const bar = mean(returnsUnder(spec, careful));
        for (const [name, eps] of adversaries) {
          const got = mean(returnsUnder(spec, eps));
          if (!(got < bar)) failures.push(`${preset}: ${name} ${got.toFixed(3)} >= careful ${bar.toFixed(3)}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }
});

describe("the anti-hacking check can fail", () => {
  it("a spec that pays for ending episodes lets an immediate abort out-earn the careful policy", () => {
    const hackable = { name: "hackable", gamma: 1, terms: { success: { weight: 1, kind: "terminal" as const }, failure: { weight: 1.5, kind: "terminal" as const } } };
    const careful = recordEpisodes("Demo-v0", {}, "careful", SEEDS, 50);
    const abort = recordEpisodes("Demo-v0", {}, "adversary:immediate-abort", SEEDS, 50);
    expect(mean(returnsUnder(hackable, abort))).toBeGreaterThan(mean(returnsUnder(hackable, careful)));
  });
});
