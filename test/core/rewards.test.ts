import { describe, expect, it } from "vitest";
import {
  ConfigError,
  type Env,
  RewardComputer,
  type ToolEnv,
  type ToolObservation,
  ci95,
  discountedReturn,
  episodeResults,
  listEnvs,
  make,
  parseRewardSpec,
  recomputeRewards,
  recordEpisodes,
  registryEntry,
  resolveRewardSpec,
  returnsUnder,
  rollout,
  std,
  studentTQuantile,
  withGamma,
} from "../../src/index.js";
import { CORE_TERMS } from "../../src/engine/terms.js";
import { CORE_TERM_KINDS, rewardTermCatalog } from "../../src/rewards/catalog.js";
import type { Action, RawTerms } from "../../src/index.js";

describe("RewardSpec", () => {
  it("rejects bad specs naming the term", () => {
    expect(() => parseRewardSpec({ name: "x", terms: { retry_after_fault: { weight: 1, kind: "event" } } }, null)).toThrow(/cap/);
    expect(() => parseRewardSpec({ name: "x", terms: { success: { weight: "1", kind: "terminal" } } }, null)).toThrow(
      /terms.success.weight/,
    );
    expect(() => parseRewardSpec({ name: "x", terms: { foo: { weight: 1, kind: "terminal" } } }, { success: "terminal" })).toThrow(
      ConfigError,
    );
  });

  it("the env's term catalog fixes each term's kind: a spec can re-weight a term, never relabel it", () => {
    const env = make("Demo-v0") as unknown as ToolEnv<unknown>;
    const resolve = (terms: object) => resolveRewardSpec({ name: "x", terms }, "demo", env.knownTerms());
    // An event term relabelled as an uncapped cost would pay per retry without bound.
    expect(() => resolve({ retry_after_fault: { weight: 5, kind: "cost" } })).toThrow(/terms\.retry_after_fault\.kind.*event term/);
    expect(() => resolve({ success: { weight: 1, kind: "potential" } })).toThrow(/terms\.success\.kind.*terminal term/);
    expect(() => resolve({ sent_correct_email: { weight: 1, kind: "terminal" } })).toThrow(/terms\.sent_correct_email\.kind/);
    // Without a kind the catalog's applies, with its rule: an event term must be capped.
    expect(() => resolve({ retry_after_fault: { weight: 5 } })).toThrow(/terms\.retry_after_fault.*cap/);
    expect(resolve({ retry_after_fault: { weight: 5, cap: 0.5 } }).terms.retry_after_fault).toEqual({ weight: 5, cap: 0.5, kind: "event" });
    // A positive weight on a cost term pays per call: it needs a cap too; a potential term may not be capped.
    expect(() => resolve({ tool_call: { weight: 0.1 } })).toThrow(/terms\.tool_call.*positive weight/);
    expect(resolve({ tool_call: { weight: 0.1, cap: 0.2 } }).terms.tool_call.kind).toBe("cost");
    expect(() => resolve({ potential: { weight: 1, cap: 1 } })).toThrow(/terms\.potential.*cannot be capped/);
    try {
      resolve({ retry_after_fault: { weight: 5, kind: "cost" } });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).field).toBe("terms.retry_after_fault.kind");
    }
  });

  it("every term every registered env reports has a kind in its catalog", () => {
    for (const { id } of listEnvs()) {
      const env = make(id) as unknown as ToolEnv<unknown>;
      const catalog = rewardTermCatalog(registryEntry(id).family, env.knownTerms());
      expect(
        Object.entries(catalog)
          .filter(([, k]) => k === null)
          .map(([n]) => n),
        id,
      ).toEqual([]);
      env.close();
    }
    expect(Object.keys(CORE_TERM_KINDS).sort()).toEqual(Object.keys(CORE_TERMS).sort());
  });

  it("caps event terms per episode so they cannot be farmed", () => {
    const rc = new RewardComputer(parseRewardSpec({ name: "x", terms: { verification: { weight: 0.1, kind: "event", cap: 0.25 } } }, null));
    rc.reset(null);
    const rewards = [1, 1, 1, 1].map(() => rc.step({ verification: 1 }, null).reward);
    expect(rewards.map((r) => Math.round(r * 100) / 100)).toEqual([0.1, 0.1, 0.05, 0]);
  });

  it("potential shaping telescopes: shaped − base = γ^T Φ(s_T) − Φ(s_0)", () => {
    const env = make("Demo-v0", {
      fault: "permanent",
      reward: { name: "p", terms: { potential: { weight: 1, kind: "potential" } } },
    }) as unknown as Env<ToolObservation, Action>;
    for (const seed of [1, 2, 3]) {
      const results = rollout({
        envId: "Demo-v0",
        options: { fault: "permanent", reward: { name: "p", terms: { potential: { weight: 1, kind: "potential" } } } },
        policy: "careful",
        episodes: 1,
        seed,
      });
      const [, info0] = env.reset({ seed });
      expect(info0.phi).toBe(-3);
      expect(results[0].return).toBeCloseTo(0 - -3, 9);
    }
  });

  it("rewards recomputed offline from rawTerms equal a live run under that spec", () => {
    const spec = {
      name: "alt",
      terms: {
        success: { weight: 2, kind: "terminal" },
        tool_call: { weight: -0.1, kind: "cost" },
        potential: { weight: 0.5, kind: "potential" },
      },
    };
    const live = make("Demo-v0", { fault: "transient", reward: spec }) as unknown as Env<ToolObservation, Action>;
    const base = make("Demo-v0", { fault: "transient" }) as unknown as Env<ToolObservation, Action>;
    const actions: Action[] = [
      { type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } },
      { type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } },
      { type: "abort" },
    ];
    const [, i0] = base.reset({ seed: 9 });
    live.reset({ seed: 9 });
    const steps: { rawTerms: RawTerms; phi: number | null }[] = [];
    const liveRewards: number[] = [];
    for (const a of actions) {
      const [, , , , info] = base.step(a);
      steps.push({ rawTerms: info.rawTerms as RawTerms, phi: info.phi as number });
      liveRewards.push(live.step(a)[1]);
    }
    const re = recomputeRewards(parseRewardSpec(spec, null), i0.phi as number, steps);
    expect(re).toEqual(liveRewards);
    expect(discountedReturn([1, 1, 1], 0.5)).toBeCloseTo(1.75);
  });
});

describe("ablation returns", () => {
  it("a seed's recorded episode is the same whether it runs alone or after other seeds (stochastic policy)", () => {
    const after = recordEpisodes("Demo-v0", {}, "random", [0, 1, 2, 3, 7], 10);
    const alone = recordEpisodes("Demo-v0", {}, "random", [7], 10);
    expect(alone[0]).toEqual(after[4]);
    expect(recordEpisodes("Demo-v0", {}, "random", [3], 10)[0]).toEqual(after[3]);
  });

  it("recorded episodes feed a family's aggregate their real task id and return", () => {
    const eps = recordEpisodes("ToolMaze-v0", { perturbation: "P2" }, "heuristic", [5, 6], 30);
    const live = rollout({ envId: "ToolMaze-v0", options: { perturbation: "P2" }, policy: "heuristic", episodes: 2, seed: 5 });
    expect(episodeResults(eps).map((r) => [r.taskId, r.return, r.length])).toEqual(live.map((r) => [r.taskId, r.return, r.length]));
    expect(live[0].taskId).toMatch(/^toolmaze-/);
  });

  it("returns are discounted with the spec's γ, so the potential part is γ^T·Φ(s_T) − Φ(s_0)", () => {
    const eps = [
      ...recordEpisodes("Demo-v0", { fault: "permanent" }, "careful", [1, 2, 3], 10),
      ...recordEpisodes("Demo-v0", {}, "random", [4, 5, 6], 10),
    ];
    const pot = parseRewardSpec({ name: "p", gamma: 1, terms: { potential: { weight: 1, kind: "potential" } } }, null);
    const gamma = 0.9;
    const rets = returnsUnder(withGamma(pot, gamma), eps);
    eps.forEach((e, i) => {
      const T = e.steps.length;
      expect(T).toBeGreaterThan(1);
      expect(rets[i]).toBeCloseTo(gamma ** T * (e.steps[T - 1].phi as number) - (e.phi0 as number), 12);
    });
    expect(() => withGamma(pot, 1.5)).toThrow(/--gamma/);
  });

  it('potentialTerminal "zero" shapes towards Φ = 0 at the end: the shaping sums to −Φ(s_0) for every policy, live and offline', () => {
    const spec = { name: "pz", gamma: 1, potentialTerminal: "zero", terms: { potential: { weight: 1, kind: "potential" } } };
    const keep = { ...spec, potentialTerminal: "keep" };
    for (const policy of ["careful", "random", "adversary:immediate-abort"]) {
      const live = rollout({
        envId: "Demo-v0",
        options: { fault: "permanent", reward: spec },
        policy,
        episodes: 3,
        seed: 11,
        maxStepsPerEpisode: 10,
      });
      const eps = recordEpisodes("Demo-v0", { fault: "permanent" }, policy, [11, 12, 13], 10);
      eps.forEach((e, i) => {
        expect(live[i].return).toBeCloseTo(-(e.phi0 as number), 12);
        expect(returnsUnder(parseRewardSpec(spec, null), [e])[0]).toBeCloseTo(live[i].return, 12);
      });
      // Under "keep" an aborted or unfinished episode keeps Φ(s_T) < 0, so the sums differ there.
      if (policy === "adversary:immediate-abort") expect(returnsUnder(parseRewardSpec(keep, null), eps)[0]).toBeCloseTo(0, 12);
    }
  });

  it("95% CIs use Student's t with N − 1 degrees of freedom", () => {
    // scipy.stats.t.ppf(p, df) (SciPy 1.17).
    const known: [number, number, number][] = [
      [0.975, 1, 12.706204736174694],
      [0.975, 2, 4.302652729749462],
      [0.975, 4, 2.7764451051977934],
      [0.975, 9, 2.262157162798205],
      [0.975, 29, 2.045229642132703],
      [0.975, 99, 1.9842169515864174],
      [0.95, 10, 1.8124611228116756],
      [0.995, 3, 5.840909309733355],
      [0.025, 4, -2.7764451051977943],
      [0.975, 1e6, 1.959966356814107],
    ];
    for (const [p, df, t] of known) expect(studentTQuantile(p, df), `t(${p}, ${df})`).toBeCloseTo(t, 12);
    expect(() => studentTQuantile(1, 4)).toThrow(RangeError);
    expect(() => studentTQuantile(0.975, 0)).toThrow(RangeError);
    const xs = [1, 2, 3, 4, 5];
    // t.ppf(0.975, 4) * np.std(xs, ddof=1) / sqrt(5)
    expect(ci95(xs)).toBeCloseTo(1.9632431614775572, 12);
    expect(ci95(xs)).toBeCloseTo((studentTQuantile(0.975, 4) * std(xs)) / Math.sqrt(5), 14);
    expect(ci95([3])).toBe(0);
  });
});
