import type { JsonObject, JsonValue } from "../../../src/family.js";
import {
  cancelOp,
  type Concept,
  defineCategory,
  getOp,
  type ProviderRuntime,
  recordWrite,
  searchOp,
  twinCityAmbiguity,
  type WriteTaskCore,
} from "./category.js";
import {
  addDays,
  addMinutes,
  arr,
  asNum,
  asStr,
  dateOf,
  enm,
  fail,
  int,
  nextId,
  obj,
  ok,
  pick,
  resolveOne,
  round2,
  str,
  table,
} from "./kit.js";
import { CITIES, STREETS, type City } from "./pools.js";

const itemSchema = obj({ name: str("Item name as listed"), quantity: int("Quantity", { minimum: 1, maximum: 20 }) }, ["name", "quantity"]);

/** Prices a list of `{name, quantity}` against a catalogue; unknown names are a 404 naming the item. */
function priceItems(
  items: JsonValue | undefined,
  catalogue: JsonObject[],
  nameField: string,
): { ok: true; lines: JsonObject[]; subtotal: number } | { ok: false; missing: string } {
  const lines: JsonObject[] = [];
  let subtotal = 0;
  for (const it of Array.isArray(items) ? items : []) {
    const o = it as JsonObject;
    const hit = catalogue.find((c) => asStr(c[nameField]).toLowerCase() === asStr(o.name).toLowerCase());
    if (!hit) return { ok: false, missing: asStr(o.name) };
    const q = asNum(o.quantity, 1);
    lines.push({ name: hit[nameField], quantity: q, unit_price: hit.price, line_total: round2(q * asNum(hit.price)) });
    subtotal += q * asNum(hit.price);
  }
  return { ok: true, lines, subtotal: round2(subtotal) };
}

/* ------------------------------------------------------------------ food delivery: UberEats / DoorDash / Grubhub */

const RESTAURANTS: { name: string; menu: [string, number][] }[] = [
  {
    name: "Joe's Pizza",
    menu: [
      ["Margherita Pizza", 16.5],
      ["Garlic Knots", 6.25],
      ["Caesar Salad", 9.75],
    ],
  },
  {
    name: "Golden Dragon",
    menu: [
      ["Kung Pao Chicken", 14.95],
      ["Veggie Dumplings", 8.5],
      ["Fried Rice", 10.25],
    ],
  },
  {
    name: "Taqueria El Sol",
    menu: [
      ["Carnitas Burrito", 12.75],
      ["Chips & Guac", 7.5],
      ["Horchata", 3.95],
    ],
  },
  {
    name: "Sakura Sushi",
    menu: [
      ["Salmon Roll", 9.5],
      ["Miso Soup", 4.25],
      ["Chirashi Bowl", 22.0],
    ],
  },
  {
    name: "Bella Napoli",
    menu: [
      ["Lasagna", 18.25],
      ["Tiramisu", 8.0],
      ["Bruschetta", 9.0],
    ],
  },
];

interface FoodWorld {
  city: City;
  address: string;
  rest: { name: string; menu: [string, number][] }[];
  fee: number;
}

/** A delivery order as food.order and food.dinner ask for it; `more` concepts follow restaurant and total. */
function foodOrderCore(
  restaurant: string,
  w: FoodWorld,
  item: string,
  quantity: number,
  total: number,
  more: Concept[] = [],
): WriteTaskCore {
  return {
    main: { op: "place_order", args: { restaurant, items: [{ name: item, quantity }], address: w.address } },
    stated: { address: w.address },
    keyPath: ["total"],
    keyValue: total,
    wrongValue: round2(total * 2),
    corruption: "order total doubled (does not equal subtotal + fees)",
    answer: [
      { kind: "text", id: "restaurant", synonyms: [restaurant] },
      { kind: "number", id: "total", value: total, tolerance: 0.01 },
      ...more,
    ],
    wrongConcept: { kind: "number", id: "double_total", value: round2(total * 2), tolerance: 0.01 },
    write: recordWrite(
      "orders",
      "order_id",
      "total",
      { restaurant, region: w.city.state, total, status: "placed" },
      { verify: "get_order", cancel: "cancel_order" },
    ),
  };
}

/** A restaurant by id or exact name, or the 404/409 that explains why not. */
const resolveRestaurant = (rt: ProviderRuntime, query: string) =>
  resolveOne(table(rt.st, "restaurants"), query, "restaurant_id", ["name"], "restaurant", (x) => ({ ...x }));

export const foodDelivery = defineCategory<FoodWorld>({
  id: "food_delivery",
  domain: "commerce",
  title: "Food delivery",
  providers: [
    { id: "ubereats", label: "Uber Eats", idPrefix: "ue" },
    { id: "doordash", label: "DoorDash", idPrefix: "dd" },
    { id: "grubhub", label: "Grubhub", idPrefix: "gh" },
  ],
  ops: [
    searchOp("search_restaurants", "Restaurants delivering to the user's area.", "Name or cuisine", {
      tbl: "restaurants",
      outKey: "restaurants",
      fields: ["name"],
    }),
    {
      op: "get_menu",
      description: "A restaurant's menu with prices in USD.",
      parameters: obj({ restaurant: str("restaurant_id or exact name") }, ["restaurant"]),
      mutates: false,
      run: (a, rt) => {
        const r = resolveRestaurant(rt, asStr(a.restaurant));
        if (!r.ok) return r.result;
        return ok({
          restaurant_id: r.row.restaurant_id,
          restaurant: r.row.name,
          region: r.row.region,
          items: table(rt.st, "menu")
            .filter((m) => m.restaurant_id === r.row.restaurant_id)
            .map((m) => pick(m, ["item_id", "name", "price"])),
          updated_at: rt.now,
        });
      },
    },
    {
      op: "place_order",
      description: "Place a delivery order. Returns a receipt; fees are added to the item subtotal.",
      parameters: obj(
        {
          restaurant: str("restaurant_id or exact name"),
          items: arr("Items to order", itemSchema, { minItems: 1 }),
          address: str("Delivery address"),
        },
        ["restaurant", "items", "address"],
      ),
      mutates: true,
      run: (a, rt) => placeFood(a, rt),
    },
    getOp("get_order", "orders", "order_id", "order", ["place_order", "cancel_order"]),
    cancelOp("cancel_order", "orders", "order_id", "order", "placed"),
  ],
  world: (rng) => {
    const city = rng.pick(CITIES);
    return {
      city,
      address: `${rng.range(10, 980)} ${rng.pick(STREETS)}, ${city.name}, ${city.state}`,
      rest: rng.sample(RESTAURANTS, 3),
      fee: rng.pick([2.99, 3.49, 4.99]),
    };
  },
  tables: (w, prov) => ({
    restaurants: w.rest.map((r, i) => ({
      restaurant_id: `${prov.idPrefix}_rst_${31 + i}`,
      name: r.name,
      city: w.city.name,
      region: w.city.state,
      eta_minutes: 25 + i * 5,
    })),
    menu: w.rest.flatMap((r, i) =>
      r.menu.map(([name, price], k) => ({
        item_id: `${prov.idPrefix}_itm_${31 + i}${k}`,
        restaurant_id: `${prov.idPrefix}_rst_${31 + i}`,
        name,
        price,
      })),
    ),
    orders: [],
  }),
  extras: (w) => ({ delivery_fee: w.fee }),
  templates: [
    {
      name: "food.price",
      kind: "read",
      build: (rng, w) => {
        const ri = rng.int(w.rest.length);
        const r = w.rest[ri];
        const k = rng.int(r.menu.length);
        const [item, price] = r.menu[k];
        return {
          template: "food.price",
          kind: "read",
          request: `How much is the ${item} at ${r.name} in ${w.city.name}, ${w.city.state} on {provider}?`,
          main: { op: "get_menu", args: { restaurant: r.name } },
          stated: { region: w.city.state },
          keyPath: ["items", k, "price"],
          keyValue: price,
          wrongValue: -price,
          corruption: "negative menu price",
          answer: [{ kind: "number", id: "price", value: price, tolerance: 0.01 }],
          wrongConcept: { kind: "number", id: "neg_price", value: -price, tolerance: 0.01 },
          stale: {
            tsPath: ["updated_at"],
            staleValue: round2(price - 2),
            staleConcept: { kind: "number", id: "stale_price", value: round2(price - 2), tolerance: 0.01 },
          },
          ambiguity: twinCityAmbiguity("restaurant", "restaurants", "restaurant_id", r.name, w.city, { eta_minutes: 70 }),
        };
      },
    },
    {
      name: "food.order",
      kind: "write",
      build: (rng, w) => {
        const r = rng.pick(w.rest);
        const [item, price] = rng.pick(r.menu);
        const q = rng.range(1, 3);
        const subtotal = round2(q * price);
        const total = round2(subtotal + w.fee);
        return {
          template: "food.order",
          kind: "write",
          request: `Order ${q} × ${item} from ${r.name} on {provider}, delivered to ${w.address}.`,
          ...foodOrderCore(r.name, w, item, q, total),
          ambiguity: twinCityAmbiguity("restaurant", "restaurants", "restaurant_id", r.name, w.city, { eta_minutes: 70 }),
        };
      },
    },
    {
      name: "food.dinner",
      kind: "write",
      build: (rng, w, now) => {
        const ri = rng.int(w.rest.length);
        const r = w.rest[ri];
        const [item, price] = rng.pick(r.menu);
        const q = rng.range(2, 4);
        const total = round2(round2(q * price) + w.fee);
        const eta = addMinutes(now, 25 + ri * 5).slice(11, 16);
        return {
          template: "food.dinner",
          kind: "write",
          request:
            `Check ${r.name}'s menu on {provider}, order ${q} × ${item} delivered to ${w.address}, ` +
            `then track the order and tell me the total and when it will arrive.`,
          ...foodOrderCore(r.name, w, item, q, total, [{ kind: "text", id: "eta", synonyms: [eta] }]),
          chain: {
            before: [{ op: "get_menu", args: { restaurant: r.name }, purpose: `check ${r.name}'s menu` }],
            mainBind: [{ arg: "restaurant", from: 0, field: "restaurant_id", where: { restaurant: r.name } }],
            after: [{ op: "get_order", args: {}, bind: [{ arg: "order_id", from: 1, field: "order_id" }], purpose: "track the order" }],
          },
        };
      },
    },
  ],
});

function placeFood(a: JsonObject, rt: ProviderRuntime) {
  const r = resolveRestaurant(rt, asStr(a.restaurant));
  if (!r.ok) return r.result;
  const menu = table(rt.st, "menu").filter((m) => m.restaurant_id === r.row.restaurant_id);
  const priced = priceItems(a.items, menu, "name");
  if (!priced.ok) return fail(404, "ITEM_NOT_FOUND", `${r.row.name} has no item "${priced.missing}".`, { field: "items" });
  const fee = asNum(rt.st.delivery_fee);
  const rec: JsonObject = {
    order_id: nextId(rt.st, rt.prov.idPrefix, "ord"),
    restaurant: r.row.name,
    region: r.row.region,
    items: priced.lines,
    subtotal: priced.subtotal,
    fees: fee,
    total: round2(priced.subtotal + fee),
    address: asStr(a.address),
    status: "placed",
    placed_at: rt.now,
    eta: addMinutes(rt.now, asNum(r.row.eta_minutes, 30)),
  };
  table(rt.st, "orders").push(rec);
  return ok({
    order_id: rec.order_id,
    status: "placed",
    restaurant: rec.restaurant,
    region: rec.region,
    subtotal: rec.subtotal,
    fees: fee,
    total: rec.total,
    eta: rec.eta,
  });
}

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
        const [name] = rng.pick(w.products);
        const q = rng.range(1, 3);
        const date = addDays(dateOf(now), rng.range(1, 3));
        const hour = rng.pick([13, 16, 18]);
        const slot = `${date}T${hour}:00:00Z`;
        const wrong = `${addDays(date, -365)}T${hour}:00:00Z`;
        return {
          template: "grocery.order",
          kind: "write",
          request: `Order ${q} × "${name}" on {provider} for delivery in the ${hour}:00 UTC window on ${date}.`,
          main: { op: "create_order", args: { items: [{ name, quantity: q }], fulfilment: "delivery", slot_start: slot } },
          stated: { slot_start: slot, fulfilment: "delivery" },
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
        const [name] = rng.pick(w.products);
        const q = rng.range(1, 4);
        const date = addDays(dateOf(now), rng.range(1, 3));
        const hour = rng.pick([13, 16, 18]);
        const slot = `${date}T${hour}:00:00Z`;
        const ready = addMinutes(now, w.prepMinutes);
        const late = addMinutes(slot, 150);
        return {
          template: "grocery.pickup",
          kind: "write",
          request: `Order ${q} × "${name}" on {provider} for store pickup in the ${hour}:00 UTC window on ${date}.`,
          main: { op: "create_order", args: { items: [{ name, quantity: q }], fulfilment: "pickup", slot_start: slot } },
          stated: { slot_start: slot, fulfilment: "pickup" },
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
