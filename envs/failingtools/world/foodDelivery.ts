import type { JsonObject } from "../../../src/family.js";
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
import { addMinutes, arr, asNum, asStr, fail, nextId, obj, ok, pick, resolveOne, round2, str, table } from "./kit.js";
import { itemSchema, priceItems } from "./orderItems.js";
import { CITIES, STREETS, type City } from "./pools.js";

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
