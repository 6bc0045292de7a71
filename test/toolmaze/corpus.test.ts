import { describe, expect, it } from "vitest";
import { DOMAINS } from "../../envs/toolmaze/world/catalog.js";
import { corpus } from "../../envs/toolmaze/world/corpus.js";
import { simulate } from "../../envs/toolmaze/world/simulate.js";
import { emptyWorldState } from "../../envs/toolmaze/world/state.js";
import { FIELD_TYPES, fieldType } from "../../envs/toolmaze/world/types.js";

describe("ToolMaze corpus", () => {
  const c = corpus();

  it("has 270 tools in 126 alternative groups, balanced over six domains", () => {
    expect(c.tools.length).toBe(270);
    expect(c.alternativeGroups().length).toBe(126);
    for (const d of DOMAINS) expect(c.toolsIn(d).length).toBe(45);
    expect(new Set(c.tools.map((t) => t.name)).size).toBe(270);
  });

  it("gives every tool a category, domain, typed JSON-schema parameters and outputs", () => {
    for (const t of c.tools) {
      expect(["source", "processor", "action"]).toContain(t.category);
      expect(t.description.length).toBeGreaterThan(20);
      expect(t.parameters.type).toBe("object");
      expect(t.parameters.required).toEqual(Object.keys(t.paramTypes));
      for (const ty of [...Object.values(t.paramTypes), ...Object.values(t.outputTypes)]) expect(FIELD_TYPES.has(ty)).toBe(true);
      expect(Object.keys(t.outputTypes).length).toBeGreaterThan(0);
    }
    const cats = new Set(c.tools.map((t) => t.category));
    expect(cats).toEqual(new Set(["source", "processor", "action"]));
  });

  it("keeps alternative groups schema-compatible", () => {
    for (const members of c.groups.values()) {
      for (const m of members) {
        expect(m.paramTypes).toEqual(members[0]!.paramTypes);
        expect(m.outputTypes).toEqual(members[0]!.outputTypes);
      }
    }
  });

  it("returns the same bytes for the same call, and differs across inputs", () => {
    const t = c.tool("get_weather");
    const a = simulate(t, { city: "Oslo" }, emptyWorldState());
    const b = simulate(t, { city: "Oslo" }, emptyWorldState());
    const d = simulate(t, { city: "Lima" }, emptyWorldState());
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(d));
    // Group members agree on the data (functionally equivalent providers).
    expect(JSON.stringify(simulate(c.tool("openweather_current"), { city: "Oslo" }, emptyWorldState()))).toBe(JSON.stringify(a));
    if (a.ok) expect(fieldType("temperature_c").plausible(a.output.temperature_c!)).toBe(true);
  });

  it("produces plausible clean values for every tool", () => {
    for (const t of c.tools) {
      if (t.state) continue;
      const args: Record<string, unknown> = {};
      for (const [p, ty] of Object.entries(t.paramTypes)) {
        const ft = fieldType(ty);
        args[p] = ft.literals ? ft.literals[0] : ft.gen(7);
      }
      const r = simulate(t, args, emptyWorldState());
      expect(r.ok, t.name).toBe(true);
      if (r.ok)
        for (const [f, ty] of Object.entries(t.outputTypes)) expect(fieldType(ty).plausible(r.output[f]!), `${t.name}.${f}`).toBe(true);
    }
  });

  it("rejects bad arguments in the tool's own error format", () => {
    const r = simulate(c.tool("get_weather"), { city: 3 }, emptyWorldState());
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.status).toBe(400);
      expect(r.error.details).toBeTypeOf("object");
    }
    const styles = new Set(c.tools.map((t) => t.errorStyle));
    expect(styles.size).toBe(4);
  });

  it("keeps calendar, cart and thermostat state in plain data", () => {
    const s = emptyWorldState();
    const avail = c.tool("query_availability");
    const first = simulate(avail, { date: "2026-12-15", duration: 30 }, s);
    expect(first.ok).toBe(true);
    const slot = first.ok ? (first.output.slot_start as string) : "";
    const book = { start: slot, attendee: "ana.costa@example.com", topic: "hiring plan" };
    expect(simulate(c.tool("schedule_meeting"), book, s).ok).toBe(true);
    const second = simulate(c.tool("outlook_find_meeting_times"), { date: "2026-12-15", duration: 30 }, s);
    expect(second.ok && second.output.slot_start).not.toBe(slot);
    // An identical retry is idempotent; a different booking of the same slot conflicts.
    expect(simulate(c.tool("schedule_meeting"), book, s).ok).toBe(true);
    const clash = simulate(c.tool("outlook_create_event"), { ...book, topic: "team offsite" }, s);
    expect(!clash.ok && clash.error.status).toBe(409);

    const add = simulate(c.tool("add_to_cart"), { product_id: "prd_ABCDEFGH", quantity: 2 }, s);
    expect(add.ok).toBe(true);
    const cartId = add.ok ? (add.output.cart_id as string) : "";
    const order = simulate(c.tool("checkout_cart"), { cart_id: cartId }, s);
    expect(order.ok).toBe(true);
    expect(JSON.stringify(simulate(c.tool("checkout_cart"), { cart_id: cartId }, s))).toBe(JSON.stringify(order));
    expect(simulate(c.tool("checkout_cart"), { cart_id: "cart_NOPE0000" }, s).ok).toBe(false);

    expect(simulate(c.tool("set_thermostat"), { device_id: "thermo-living-01", target_c: 20.5 }, s).ok).toBe(true);
    const read = simulate(c.tool("read_thermostat"), { device_id: "thermo-living-01" }, s);
    expect(read.ok && read.output.temperature_c).toBe(20.5);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});
