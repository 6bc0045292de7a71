/**
 * Engine mechanisms added for PlanBench-XL (issue 12): a tool's own argument check, the `meta` trigger, the `decoy`
 * effect, provenance before validation, and failed tainted calls as provenance sources.
 */
import { describe, expect, it } from "vitest";
import { type EpisodeEvent, type FaultSpec, Rng, type ToolDefinition, ToolEpisode } from "../../src/index.js";

const schema = { type: "object" as const, properties: { id: { type: "string" as const } }, required: ["id"] };
const tools: ToolDefinition<null>[] = [
  {
    name: "lookup",
    description: "L",
    parameters: schema,
    meta: { group: "lookup", kind: "real" },
    run: () => ({ ok: true, output: { value: "good" } }),
  },
  {
    name: "lookup_lite",
    description: "L",
    parameters: schema,
    meta: { group: "lookup", kind: "decoy" },
    run: () => ({ ok: true, output: { value: "bad-value" } }),
  },
  {
    name: "lookup_old",
    description: "L",
    parameters: schema,
    meta: { group: "lookup", kind: "decoy_failing" },
    run: () => ({ ok: false, error: { code: "deprecated", message: "gone", body: { value: "stale-value" } } }),
  },
  {
    name: "strict",
    description: "S",
    parameters: schema,
    // Refuses what the JSON schema would accept, and accepts what it would refuse: its own rules replace it.
    checkArguments: (args) => (args.id === "forbidden" ? { code: "refused", message: "no", body: { refused: true } } : null),
    run: (a) => ({ ok: true, output: { got: a.id ?? null } }),
  },
];
const decoy = (id: string, kind: string, visibility: "explicit" | "implicit"): FaultSpec => ({
  id,
  kind,
  visibility,
  persistence: { type: "permanent" },
  trigger: { meta: { kind } },
  effect: { type: "decoy" },
});
const faults = [decoy("decoy", "decoy", "implicit"), decoy("decoy-failing", "decoy_failing", "explicit")];
const episode = (valueProvenance?: boolean | "before_validation") =>
  new ToolEpisode<null>({ tools, visible: tools.map((t) => t.name), world: null, faults, rng: new Rng(1), valueProvenance });
const types = (events: EpisodeEvent[]) => events.map((e) => e.type);

describe("engine: tool-owned argument checks, meta triggers, decoys", () => {
  it("checkArguments replaces the JSON-schema check, and its error body is the response", () => {
    const ep = episode();
    const refused = ep.call("strict", { id: "forbidden" }, 1);
    expect(refused.record).toMatchObject({ ok: false, errorSource: "validation", response: { refused: true } });
    expect(types(refused.events)).toEqual(["tool_called", "tool_error"]);
    // No `id` at all: the schema would refuse it, the tool's own rule does not.
    expect(ep.call("strict", {}, 2).record).toMatchObject({ ok: true, response: { got: null } });
  });

  it("a decoy runs its own simulator and counts as faulted and untrusted; a meta trigger leaves other tools alone", () => {
    const ep = episode();
    const real = ep.call("lookup", { id: "a" }, 1);
    expect(real.record).toMatchObject({ ok: true, faults: [], taint: "clean" });
    const lite = ep.call("lookup_lite", { id: "a" }, 2);
    expect(lite.record).toMatchObject({ ok: true, response: { value: "bad-value" }, faults: ["decoy"], taint: "untrusted" });
    expect(lite.record!.faultPersistence).toBe("permanent");
    expect(types(lite.events)).toEqual(["tool_called", "fault_injected"]);
    const old = ep.call("lookup_old", { id: "a" }, 3);
    expect(old.record).toMatchObject({ ok: false, errorSource: "fault", response: { value: "stale-value" }, taint: "untrusted" });
    expect(old.record!.faults).toEqual(["decoy-failing"]);
    // Leaving the decoy lookup_lite for another member of its group is a switch (after a fault).
    expect(types(old.events)).toEqual(["tool_called", "fault_injected", "alternative_switch", "tool_error"]);
    const again = ep.call("lookup_old", { id: "a" }, 4);
    expect(again.events.find((e) => e.type === "retry")).toMatchObject({ afterFault: true, persistence: "permanent" });
  });

  it("a failed decoy's value is a provenance source; before_validation also reports it on refused calls", () => {
    const after = episode();
    after.call("lookup_old", { id: "a" }, 1);
    expect(after.call("lookup", { id: "stale-value" }, 2).events.find((e) => e.type === "poisoned_value_reused")).toMatchObject({
      argument: "id",
      sourceCallIndex: 1,
      taint: "untrusted",
    });
    // Default: a call refused by the argument check is not analysed.
    after.call("lookup_lite", { id: "a" }, 3);
    expect(types(after.call("strict", { id: "forbidden", x: "bad-value" }, 4).events)).not.toContain("poisoned_value_reused");
    const first = episode("before_validation");
    first.call("lookup_lite", { id: "a" }, 1);
    const refused = first.call("strict", { id: "forbidden", x: "bad-value" }, 2);
    expect(types(refused.events)).toEqual(["tool_called", "poisoned_value_reused", "tool_error"]);
  });
});
