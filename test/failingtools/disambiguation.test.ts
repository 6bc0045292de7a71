import { describe, expect, it } from "vitest";
import { bestByRequest, valueForParam } from "../../envs/failingtools/policies/common.js";
import { generateScenarios } from "../../envs/failingtools/scenarios/generate.js";
import { FT_POLICIES } from "../../envs/failingtools/baselines.js";
import type { JsonValue } from "../../src/core/json.js";
import { Rng } from "../../src/core/rng.js";
import { ftEnv, play } from "./helpers.js";

// The careful baseline repairs wrong-entity resolution with observable information only: the 409 candidates
// payload, or the provider's own search tool, scored against the request text; never info.hidden.
const amb = generateScenarios().filter((s) => s.source === "disambiguation_failure");

describe("generic disambiguation", () => {
  it("exists in at least 13 templates across several categories", () => {
    expect(new Set(amb.map((s) => s.template)).size).toBeGreaterThanOrEqual(13);
    expect(new Set(amb.map((s) => s.category)).size).toBeGreaterThanOrEqual(7);
  });
  it("picks the look-alike the request text describes, and refuses to guess on a tie", () => {
    const real = { hotel_id: "bk_htl_71", name: "Maple Court Hotel", city: "Portland", region: "ME" };
    const twin = { hotel_id: "bk_alt_901", name: "Maple Court Hotel", city: "Portland", region: "OR" };
    expect(bestByRequest([twin, real], "Maple Court Hotel", "Book Maple Court Hotel in Portland, ME from ...")).toBe(real);
    expect(bestByRequest([twin, real], "Maple Court Hotel", "Book Maple Court Hotel in Portland from ...")).toBeNull();
    expect(valueForParam(real, "hotel_id or exact hotel name", "Maple Court Hotel")).toBe("bk_htl_71");
    expect(
      valueForParam({ contact_id: "c1", name: "Ann Lee", email: "al@x.com" }, "Recipient email address or contact name", "Ann Lee"),
    ).toBe("al@x.com");
  });
  it("careful solves every disambiguation scenario on Base with hidden info switched off", () => {
    const env = ftEnv({ setting: "base", hiddenInfo: false });
    const failed = amb.filter((s) => play(env, "careful", s.id).metrics.score !== 1).map((s) => s.id);
    expect(failed).toEqual([]);
  });
  it("uses the 409 candidates payload when the service reports the ambiguity", () => {
    // Drive careful with a 409 AMBIGUOUS_MATCH answer to its first call: its next call must name the candidate the
    // request describes (by the id the message asks for), whichever order the candidates come in.
    const s = amb.find((x) => x.template === "lodging.quote") as (typeof amb)[number];
    for (const flip of [false, true]) {
      const env = ftEnv({ setting: "base", hiddenInfo: false, scenarioId: s.id });
      const p = FT_POLICIES.careful.create(env as never, new Rng(1));
      const [obs, info] = env.reset({ seed: 0 });
      p.reset?.(obs, info);
      const first = p.act(obs, info) as { type: string; name: string; arguments: Record<string, JsonValue> };
      const name = String(first.arguments.hotel);
      const region = String(s.intent.stated.region);
      const real = { hotel_id: "x_htl_1", name, city: "Somewhere", region };
      const twin = { hotel_id: "x_alt_2", name, city: "Somewhere", region: "ZZ" };
      const error = {
        code: "AMBIGUOUS_MATCH",
        status: 409,
        message: `"${name}" matches 2 hotels; pass the hotel_id of the one you mean.`,
        details: { candidates: flip ? [real, twin] : [twin, real] },
      };
      const next = p.act({ ...obs, newTools: [], response: { error } }, info) as { type: string; arguments: Record<string, JsonValue> };
      expect(next.type).toBe("tool_call");
      expect(next.arguments.hotel).toBe("x_htl_1");
    }
  });
  it("naive, which trusts the resolver, fails them", () => {
    const env = ftEnv({ setting: "base" });
    const ok = amb.filter((s) => play(env, "naive", s.id).metrics.score === 1).length;
    expect(ok / amb.length).toBeLessThan(0.2);
  });
});
