import { describe, expect, it } from "vitest";
import { FAILURE_SOURCES, scenarioSchema } from "../../envs/failingtools/scenarios/schema.js";
import { createHash } from "node:crypto";
import { buildScenarios, generateScenarios, scenarioById } from "../../envs/failingtools/scenarios/generate.js";
import { WORKED_EXAMPLES } from "../../envs/failingtools/scenarios/worked.js";
import { CATEGORIES, DOMAINS, PROVIDERS, providerTools } from "../../envs/failingtools/world/index.js";
import { stableStringify } from "../../src/core/json.js";

describe("Failing Tools world", () => {
  it("has 30 providers in 12 categories and 5 domains, 3-8 tools each, most with a counterpart", () => {
    expect(PROVIDERS.length).toBe(30);
    expect(CATEGORIES.length).toBe(12);
    expect(new Set(CATEGORIES.map((c) => c.domain))).toEqual(new Set(DOMAINS));
    for (const { provider, category } of PROVIDERS) {
      const tools = providerTools(provider.id);
      expect(tools.length, provider.id).toBeGreaterThanOrEqual(3);
      expect(tools.length, provider.id).toBeLessThanOrEqual(8);
      expect(category.providers.length).toBeGreaterThanOrEqual(2);
      for (const t of tools) expect((t.parameters as { type: string }).type).toBe("object");
    }
  });
});

/** sha256 of stableStringify(generateScenarios()): the canonical scenario JSON. */
const SCENARIO_SET_SHA256 = "0a057f9e60eb7b11467ef04b83fca65b769a57e23bdda32d806a481160cbc18f";

describe("Failing Tools scenarios", () => {
  const all = generateScenarios();
  it("has at least 218 scenarios with unique ids, all valid against the zod schema", () => {
    expect(all.length).toBeGreaterThanOrEqual(218);
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
    for (const s of all) expect(scenarioSchema.safeParse(s).success, s.id).toBe(true);
  });
  it("covers all 7 sources × both persistence regimes, every domain and every provider as primary", () => {
    for (const src of FAILURE_SOURCES) {
      for (const p of ["permanent", "temporary"])
        expect(
          all.some((s) => s.source === src && s.persistence.type === p),
          `${src}/${p}`,
        ).toBe(true);
    }
    expect(new Set(all.map((s) => s.domain))).toEqual(new Set(DOMAINS));
    expect(new Set(all.map((s) => s.primary)).size).toBe(30);
  });
  it("includes the paper's worked examples", () => {
    const worked = all.filter((s) => s.worked !== null);
    expect(worked.length).toBe(WORKED_EXAMPLES.length);
    const payment = worked.find((s) => s.template === "payments.send") as (typeof all)[number];
    expect(payment.intent.args.amount).toBe(150);
    expect(payment.truth.wrongValue).toBe(15);
    const reviews = worked.find((s) => s.template === "reviews.rating") as (typeof all)[number];
    expect([reviews.primary, reviews.fallback]).toEqual(["googlereviews", "yelp"]);
  });
  it("is generated deterministically: a fresh generation gives the same bytes, pinned by sha256", () => {
    const cached = stableStringify(all as never);
    const fresh = buildScenarios();
    expect(fresh).not.toBe(all);
    expect(fresh[0]).not.toBe(all[0]);
    expect(stableStringify(fresh as never)).toBe(cached);
    expect(stableStringify(buildScenarios() as never)).toBe(cached);
    // Pinned so drift across processes, platforms or refactors is caught. Update deliberately when the scenario
    // data is meant to change (and say so in the commit message).
    expect(createHash("sha256").update(cached).digest("hex")).toBe(SCENARIO_SET_SHA256);
  });
  it("is addressable by id and by public id", () => {
    const s = all[17];
    expect(scenarioById(s.id)).toBe(s);
    expect(scenarioById(s.publicId)).toBe(s);
  });
  it("hides the counterpart behind staged disclosure whenever a fallback path exists", () => {
    for (const s of all.filter((x) => ["availability_denial", "silent_noop", "corrupted_state", "compound_cascade"].includes(x.source))) {
      expect(
        s.visible.every((t) => t.startsWith(`${s.primary}_`)),
        s.id,
      ).toBe(true);
      expect(s.staged.length, s.id).toBe(1);
      expect(s.staged[0].tools.every((t) => t.startsWith(`${s.fallback}_`))).toBe(true);
    }
  });
});
