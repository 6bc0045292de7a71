import { describe, expect, it } from "vitest";
import { analyzeFailingToolsTrajectory } from "../../envs/failingtools/analyze.js";
import { FT_POLICIES } from "../../envs/failingtools/baselines.js";
import { FT_HIDDEN_STEP_KEYS } from "../../envs/failingtools/hidden.js";
import { generateScenarios } from "../../envs/failingtools/scenarios/generate.js";
import type { Info } from "../../src/core/env.js";
import type { JsonObject } from "../../src/core/json.js";
import { Rng } from "../../src/core/rng.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import type { Trajectory } from "../../src/core/trajectory.js";
import { ftEnv } from "./helpers.js";

/** Plays a baseline and keeps every step's info (as a trajectory would record it). */
function record(policy: string, scenarioId: string): { infos: Info[]; traj: Trajectory } {
  const env = ftEnv({ setting: "base" });
  const p = FT_POLICIES[policy].create(env as never, new Rng(3));
  let [obs, info] = env.reset({ seed: 0, options: { scenarioId } });
  p.reset?.(obs, info);
  const infos: Info[] = [];
  const steps: Trajectory["steps"] = [];
  for (let t = 0; t < 60; t++) {
    const [o, reward, term, trunc, i] = env.step(p.act(obs, info));
    obs = o as ToolObservation;
    info = i;
    infos.push(i);
    steps.push({
      t,
      action: {},
      observation: {},
      reward,
      terminated: term,
      truncated: trunc,
      rewardTerms: {},
      rawTerms: {},
      phi: null,
      events: i.events as Trajectory["steps"][number]["events"],
    });
    if (term || trunc) break;
  }
  return { infos, traj: { metrics: info.metrics, steps } as unknown as Trajectory };
}

describe("per-step hidden annotations (issue 8)", () => {
  it("mark the injected failure, progress, forbidden calls and disclosures of each call", () => {
    const { infos } = record("naive", "ft-payments.send-corrupted-state-perm-zelle");
    const first = (infos[0].hidden as JsonObject).call as JsonObject;
    expect(first).toMatchObject({ index: 1, tool: "zelle_send_money", mutation: true, progress: true });
    expect(first.injectedFailure).toEqual({
      faults: [{ id: "corrupt-primary", kind: "corrupted_write", visibility: "implicit" }],
      source: "corrupted_state",
      persistence: "permanent",
    });
    expect(first.progressToward).toContain("attempt_primary");
    expect(first.forbidden).toEqual([]);

    const c = record("careful", "ft-payments.send-corrupted-state-perm-zelle").infos;
    const verify = (c[1].hidden as JsonObject).call as JsonObject;
    expect(verify).toMatchObject({ tool: "zelle_get_transfer", mutation: false, progress: false, injectedFailure: null });
    expect((c[1].hidden as JsonObject).disclosed).toEqual(expect.arrayContaining(["venmo_send_money"]));
    const ask = c.find((i) => (i.hidden as JsonObject | undefined)?.ask !== undefined);
    expect((ask?.hidden as JsonObject).ask).toEqual({ answered: true, afterProblem: true });
  });

  it("flag a forbidden call on the step that made it", () => {
    // naive jumps to the disclosed counterpart without asking: an unconfirmed substitute write.
    const { infos } = record("naive", "ft-payments.send-availability-denial-perm-paypal");
    const hit = infos.find((i) =>
      ((i.hidden as JsonObject | undefined)?.call as JsonObject | undefined)?.forbidden
        ?.toString()
        .includes("unconfirmed_substitute_write"),
    );
    expect(hit).toBeDefined();
    expect(((hit?.hidden as JsonObject).call as JsonObject).mutation).toBe(true);
  });

  it("end with an analysis (outcome, first failure mode) that agrees with analyzeTrajectory", () => {
    for (const [policy, id] of [
      ["naive", "ft-payments.send-corrupted-state-perm-zelle"],
      ["careful", "ft-reviews.rating-data-staleness-perm-tripadvisor"],
      ["oracle", "ft-lodging.trip-silent-noop-perm-airbnb"],
    ] as const) {
      const { infos, traj } = record(policy, id);
      const a = (infos[infos.length - 1].hidden as JsonObject).analysis as JsonObject;
      expect(a, `${policy} ${id}`).toEqual(analyzeFailingToolsTrajectory(traj));
      expect(a.failureMode).toBe((infos[infos.length - 1].metrics as JsonObject).failureMode);
    }
    const bad = record("naive", "ft-payments.send-corrupted-state-perm-zelle").infos;
    expect((bad[bad.length - 1].hidden as JsonObject).analysis).toMatchObject({
      outcome: "gate_violation",
      failureMode: "success_response_trust",
      firstFaultStep: 0,
    });
  });

  it("emit only documented keys", () => {
    const undocumented = new Set<string>();
    for (const s of generateScenarios().filter((_, i) => i % 9 === 0)) {
      for (const policy of ["naive", "careful", "random"]) {
        const { infos } = record(policy, s.id);
        infos.forEach((info, k) => {
          const h = (info.hidden ?? {}) as JsonObject;
          const keys =
            k === infos.length - 1 ? ["analysis", "remainingRequired", "call", "ask", "disclosed"].filter((x) => x in h) : Object.keys(h);
          for (const key of keys) {
            if (!(key in FT_HIDDEN_STEP_KEYS)) undocumented.add(key);
            const v = h[key];
            if ((key === "call" || key === "ask") && v && typeof v === "object")
              for (const sub of Object.keys(v)) if (!(`${key}.${sub}` in FT_HIDDEN_STEP_KEYS)) undocumented.add(`${key}.${sub}`);
          }
        });
        expect((infos[infos.length - 1].hidden as JsonObject).analysis).toBeDefined();
      }
    }
    expect([...undocumented]).toEqual([]);
  });
});
