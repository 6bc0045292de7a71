import type { JsonObject, Rng } from "../../../src/family.js";
import { cancelOp, defineCategory, getOp, recordWrite, searchOp, type TaskSpec } from "./category.js";
import { addDays, addMinutes, arr, asNum, asStr, dateOf, enm, fail, nextId, obj, ok, round2, str, table } from "./kit.js";
import { itemSchema, priceItems } from "./orderItems.js";

/* ------------------------------------------------------------------ grocery: Walmart / Instacart */

const GROCERIES: [string, number][] = [
  ["Whole milk 1 gal", 3.98],
  ["Large eggs 12ct", 4.12],
  ["Bananas 2 lb", 1.18],
  ["Sourdough loaf", 4.5],
  ["Cheddar 8 oz", 3.24],
  ["Coffee beans 12 oz", 9.97],
  ["Spinach 5 oz", 2.98],
];

interface GroceryWorld {
  products: [string, number][];
  slotDays: number[];
  prepMinutes: number;
}

/**
 * The order both grocery write templates make: a product, 1 to `maxQty` of it, and a window 1-3 days ahead at 13,
 * 16 or 18 UTC (drawn in that order), as the request states it and the create_order call it asks for.
 */
function windowOrder(rng: Rng, w: GroceryWorld, now: string, maxQty: number, fulfilment: "delivery" | "pickup") {
  const [name] = rng.pick(w.products);
  const q = rng.range(1, maxQty);
  const date = addDays(dateOf(now), rng.range(1, 3));
  const hour = rng.pick([13, 16, 18]);
  const slot = `${date}T${hour}:00:00Z`;
  const how = fulfilment === "pickup" ? "store pickup" : "delivery";
  const call: Pick<TaskSpec, "request" | "main" | "stated"> = {
    request: `Order ${q} × "${name}" on {provider} for ${how} in the ${hour}:00 UTC window on ${date}.`,
    main: { op: "create_order", args: { items: [{ name, quantity: q }], fulfilment, slot_start: slot } },
    stated: { slot_start: slot, fulfilment },
  };
  return { name, date, hour, slot, call };
}

export const grocery = defineCategory<GroceryWorld>({
  id: "grocery",
  domain: "commerce",
  title: "Grocery pickup & delivery",
  providers: [
    { id: "walmart", label: "Walmart", idPrefix: "wm" },
    { id: "instacart", label: "Instacart", idPrefix: "ic" },
  ],
  ops: [
    searchOp("search_products", "Search the store catalogue.", "Product keywords", {
      tbl: "products",
      outKey: "products",
      fields: ["name"],
    }),
    {
      op: "list_slots",
      description: "Open pickup or delivery windows on a date (UTC).",
      parameters: obj({ type: enm("Fulfilment type", ["pickup", "delivery"]), date: str("YYYY-MM-DD", { format: "date" }) }, [
        "type",
        "date",
      ]),
      mutates: false,
      run: (a, rt) => {
        const rows = table(rt.st, "slots").filter((s) => s.type === a.type && asStr(s.start).startsWith(asStr(a.date)));
        return ok({ type: a.type as string, date: a.date as string, slots: rows.map((s) => ({ ...s })), generated_at: rt.now });
      },
    },
    {
      op: "create_order",
      description: "Create an order and reserve a pickup or delivery window starting at slot_start.",
      parameters: obj(
        {
          items: arr("Items", itemSchema, { minItems: 1 }),
          fulfilment: enm("pickup or delivery", ["pickup", "delivery"]),
          slot_start: str("Window start (ISO date-time, UTC)", { format: "date-time" }),
        },
        ["items", "fulfilment", "slot_start"],
      ),
      mutates: true,
      run: (a, rt) => {
        const slot = table(rt.st, "slots").find((s) => s.type === a.fulfilment && s.start === a.slot_start);
        if (!slot)
          return fail(404, "SLOT_NOT_FOUND", `No open ${asStr(a.fulfilment)} window starts at ${asStr(a.slot_start)}.`, {
            field: "slot_start",
          });
        const priced = priceItems(a.items, table(rt.st, "products"), "name");
        if (!priced.ok) return fail(404, "PRODUCT_NOT_FOUND", `No product named "${priced.missing}".`, { field: "items" });
        const fee = a.fulfilment === "delivery" ? 7.95 : 0;
        const rec: JsonObject = {
          order_id: nextId(rt.st, rt.prov.idPrefix, "ord"),
          items: priced.lines,
          subtotal: priced.subtotal,
          fees: fee,
          total: round2(priced.subtotal + fee),
          fulfilment: asStr(a.fulfilment),
          slot_start: asStr(a.slot_start),
          ready_at: addMinutes(rt.now, asNum(rt.st.prep_minutes, 120)),
          status: "scheduled",
          created_at: rt.now,
        };
        table(rt.st, "orders").push(rec);
        return ok({ ...rec });
      },
    },
    getOp("get_order", "orders", "order_id", "order", ["create_order", "cancel_order"]),
    cancelOp("cancel_order", "orders", "order_id", "order", "scheduled"),
  ],
  world: (rng) => ({ products: rng.sample(GROCERIES, 5), slotDays: [1, 2, 3], prepMinutes: rng.pick([90, 120, 180]) }),
  tables: (w, prov, now) => ({
    products: w.products.map(([name, price], i) => ({ product_id: `${prov.idPrefix}_sku_${5001 + i}`, name, price, in_stock: true })),
    slots: w.slotDays.flatMap((d) =>
      [10, 13, 16, 18].flatMap((h, k) =>
        (["pickup", "delivery"] as const).map((type) => {
          const start = `${addDays(dateOf(now), d)}T${h}:00:00Z`;
          return { slot_id: `${prov.idPrefix}_slot_${d}${k}${type[0]}`, type, start, end: addMinutes(start, 60), available: true };
        }),
      ),
    ),
    orders: [],
  }),
  extras: (w) => ({ prep_minutes: w.prepMinutes }),
  templates: [
    {
      name: "grocery.slots",
      kind: "read",
      build: (rng, _w, now) => {
        const d = rng.range(1, 3);
        const date = addDays(dateOf(now), d);
        return {
          template: "grocery.slots",
          kind: "read",
          request: `When is the earliest {provider} delivery window on ${date}?`,
          main: { op: "list_slots", args: { type: "delivery", date } },
          stated: {},
          keyPath: ["slots", 0, "start"],
          keyValue: `${date}T10:00:00Z`,
          wrongValue: `${addDays(date, -365)}T10:00:00Z`,
          corruption: "delivery window a year in the past",
          answer: [{ kind: "text", id: "time", synonyms: ["10:00", "10 am", "10am"] }],
          wrongConcept: { kind: "date", id: "past_date", iso: addDays(date, -365) },
          stale: {
            tsPath: ["generated_at"],
            staleValue: `${date}T08:00:00Z`,
            staleConcept: { kind: "text", id: "stale_slot", synonyms: ["08:00", "8:00", "8 am", "8am"] },
          },
        };
      },
    },
    {
      name: "grocery.order",
      kind: "write",
      build: (rng, w, now) => {
        const { name, date, hour, slot, call } = windowOrder(rng, w, now, 3, "delivery");
        const wrong = `${addDays(date, -365)}T${hour}:00:00Z`;
        return {
          template: "grocery.order",
          kind: "write",
          ...call,
          keyPath: ["slot_start"],
          keyValue: slot,
          wrongValue: wrong,
          corruption: "delivery slot stored a year in the past",
          answer: [
            { kind: "date", id: "date", iso: date },
            { kind: "text", id: "product", synonyms: [name] },
          ],
          wrongConcept: { kind: "date", id: "past_date", iso: addDays(date, -365) },
          write: recordWrite(
            "orders",
            "order_id",
            "slot_start",
            { fulfilment: "delivery", slot_start: slot, status: "scheduled" },
            { verify: "get_order", cancel: "cancel_order" },
          ),
        };
      },
    },
    {
      name: "grocery.pickup",
      kind: "write",
      build: (rng, w, now) => {
        const { date, slot, call } = windowOrder(rng, w, now, 4, "pickup");
        const ready = addMinutes(now, w.prepMinutes);
        const late = addMinutes(slot, 150);
        return {
          template: "grocery.pickup",
          kind: "write",
          ...call,
          keyPath: ["ready_at"],
          keyValue: ready,
          wrongValue: late,
          corruption: "pickup window starts before the order is ready",
          answer: [
            { kind: "date", id: "date", iso: date },
            { kind: "text", id: "pickup", synonyms: ["pickup", "pick up", "pick-up"] },
          ],
          wrongConcept: { kind: "text", id: "late_ready", synonyms: [late.slice(11, 16)] },
          write: recordWrite(
            "orders",
            "order_id",
            "ready_at",
            { fulfilment: "pickup", slot_start: slot, ready_at: ready, status: "scheduled" },
            { verify: "get_order", cancel: "cancel_order" },
          ),
        };
      },
    },
  ],
});
