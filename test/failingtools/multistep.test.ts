import { describe, expect, it } from "vitest";
import { generateScenarios, scenarioById } from "../../envs/failingtools/scenarios/generate.js";
import type { JsonObject } from "../../src/core/json.js";
import { ftEnv, play } from "./helpers.js";

// Multi-step requests (lookup → write → track/read back) with the failure in the middle: the run must redo the
// lookup on the fallback provider (ids are per provider) and finish the steps after the failed one.
const chains = generateScenarios().filter((s) => s.intent.plan !== undefined);
type Plan = { tool: string; args: JsonObject; bind: { arg: string; from: number; field: string }[] }[];

describe("Failing Tools multi-step scenarios", () => {
  it("exist for several categories, every chain-able source × both regimes, with the failure on the middle call", () => {
    expect(new Set(chains.map((s) => s.template)).size).toBeGreaterThanOrEqual(4);
    for (const src of ["availability_denial", "silent_noop", "corrupted_state", "compound_cascade"]) {
      for (const p of ["permanent", "temporary"])
        expect(
          chains.some((s) => s.source === src && s.persistence.type === p),
          `${src}/${p}`,
        ).toBe(true);
    }
    for (const s of chains) {
      const plan = s.intent.plan as unknown as Plan;
      const mainIdx = plan.findIndex((p) => p.tool === s.intent.tool);
      expect(mainIdx, s.id).toBeGreaterThan(0);
      expect(mainIdx, s.id).toBeLessThan(plan.length - 1);
      expect(
        s.faults.every((f) => !(f.trigger.tools ?? []).includes(plan[0].tool)),
        s.id,
      ).toBe(true);
      expect(s.failureModes, s.id).toContain("mid_sequence_stalling");
      expect(s.required.some((r) => r.id === "step_before_0") && s.required.some((r) => r.id === "step_after_0"), s.id).toBe(true);
    }
  });

  it("labels switching without redoing the lookup as recovery myopia (naive reuses the first provider's id)", () => {
    const id = "ft-lodging.trip-availability-denial-perm-booking";
    const r = play(ftEnv({ setting: "relaxed" }), "naive", id);
    expect(r.metrics.violations).toContain("restart_chain");
    expect(r.metrics.failureMode).toBe("recovery_myopia");
    const careful = play(ftEnv({ setting: "base" }), "careful", id);
    expect(careful.metrics.score).toBe(1);
    const tools = careful.actions.filter((a) => a.type === "tool_call").map((a) => (a as { name: string }).name);
    expect(tools.indexOf("expedia_search_hotels")).toBeGreaterThan(tools.indexOf("booking_book_hotel"));
    expect(tools.indexOf("expedia_book_hotel")).toBeGreaterThan(tools.indexOf("expedia_search_hotels"));
  });

  it("labels stopping after the recovered write as mid-sequence stalling", () => {
    const s = scenarioById("ft-payments.pay-availability-denial-temp-zelle");
    if (!s) throw new Error("missing scenario");
    const env = ftEnv({ setting: "relaxed", scenarioId: s.id });
    const [, info] = env.reset({ seed: 0 });
    const plan = (info.intent as { plan: Plan }).plan;
    const [o1] = env.step({ type: "tool_call", name: plan[0].tool, arguments: plan[0].args });
    const rid = (
      (o1.response as { recipients: { recipient_id: string; email: string }[] }).recipients.find(
        (x) => x.email === s.intent.stated.recipient_email,
      ) as { recipient_id: string }
    ).recipient_id;
    const main = { ...plan[1].args, recipient: rid };
    let last: JsonObject = {};
    for (let k = 0; k < 4; k++) {
      const [o] = env.step({ type: "tool_call", name: plan[1].tool, arguments: main });
      last = o.response as JsonObject;
      if (!("error" in last)) break;
    }
    expect(last.transfer_id).toBeDefined();
    const [, , term, , fin] = env.step({ type: "answer", content: `Sent $${String(s.intent.stated.amount)}.` });
    expect(term).toBe(true);
    const m = fin.metrics as JsonObject;
    expect(m.violations).toEqual(["step_after_0"]);
    expect(m.failureMode).toBe("mid_sequence_stalling");
  });

  it("info.intent.plan binds later arguments to earlier outputs using only facts from the request text", () => {
    for (const s of chains) {
      const plan = s.intent.plan as unknown as (Plan[number] & { bind: { where?: JsonObject }[] })[];
      for (const step of plan)
        for (const b of step.bind)
          for (const v of Object.values(b.where ?? {})) expect(s.request.toLowerCase(), s.id).toContain(String(v).toLowerCase());
    }
  });
});
