import { describe, expect, it } from "vitest";
import { recordWrite, searchOp, twinCityAmbiguity } from "../../envs/failingtools/world/category.js";
import type { ProviderState } from "../../envs/failingtools/world/kit.js";
import { TWIN_STATE } from "../../envs/failingtools/world/pools.js";

const prov = { id: "p", label: "P", idPrefix: "pp" };
const st: ProviderState = {
  tables: {
    people: [
      { id: "a", name: "Alice Chen", email: "alice@x.io" },
      { id: "b", name: "Bob Kim", email: "bob@y.io" },
    ],
  },
  seq: 0,
};
const rt = { prov, st, now: "2026-06-15T09:00:00Z", world: { now: "2026-06-15T09:00:00Z", services: { p: st } } };

describe("world op and task helpers", () => {
  it("searchOp matches any listed field case-insensitively and counts on request", () => {
    const op = searchOp("search_people", "Find people.", "Name or email", {
      tbl: "people",
      outKey: "people",
      fields: ["name", "email"],
      view: (r) => ({ id: r.id }),
      withCount: true,
    });
    expect(op.parameters).toEqual({
      type: "object",
      properties: { query: { type: "string", description: "Name or email" } },
      required: ["query"],
      additionalProperties: false,
    });
    expect(op.mutates).toBe(false);
    expect(op.run({ query: "ALICE" }, rt)).toEqual({ ok: true, output: { people: [{ id: "a" }], count: 1 } });
    expect(op.run({ query: "y.io" }, rt)).toEqual({ ok: true, output: { people: [{ id: "b" }], count: 1 } });
    const plain = searchOp("search_people", "Find people.", "Name", { tbl: "people", outKey: "hits", fields: ["name"] });
    expect(plain.run({ query: "y.io" }, rt)).toEqual({ ok: true, output: { hits: [] } });
    expect(plain.run({ query: "kim" }, rt)).toEqual({ ok: true, output: { hits: [{ id: "b", name: "Bob Kim", email: "bob@y.io" }] } });
  });

  it("recordWrite addresses the record by its id unless fixed read-back arguments are given", () => {
    expect(recordWrite("orders", "order_id", "total", { total: 3 }, { verify: "get_order", cancel: "cancel_order" })).toEqual({
      idField: "order_id",
      table: "orders",
      recordIdField: "order_id",
      recordKeyField: "total",
      match: { total: 3 },
      verify: { op: "get_order", idArg: "order_id" },
      cancel: { op: "cancel_order", idArg: "order_id" },
    });
    expect(recordWrite("saved", "saved_id", "label", {}, { verify: "list_saved", cancel: "remove", verifyArgs: {} }).verify).toEqual({
      op: "list_saved",
      args: {},
    });
  });

  it("twinCityAmbiguity plants the namesake in the twin state, shown by region", () => {
    const city = { name: "Portland", state: "OR" };
    const a = twinCityAmbiguity("hotel", "hotels", "hotel_id", "Cedar Lodge", city, { stars: 2 });
    expect(TWIN_STATE.Portland).not.toBe("OR");
    expect(a).toEqual({
      arg: "hotel",
      table: "hotels",
      idField: "hotel_id",
      decoy: { name: "Cedar Lodge", city: "Portland", region: TWIN_STATE.Portland, stars: 2 },
      truth: { name: "Cedar Lodge", region: "OR" },
      shownPath: ["region"],
      decoyShown: TWIN_STATE.Portland,
    });
    expect(Object.keys(a.decoy)).toEqual(["name", "city", "region", "stars"]);
  });
});
