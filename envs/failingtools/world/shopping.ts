import type { JsonObject } from "../../../src/family.js";
import { cancelOp, type Concept, defineCategory, getOp, recordWrite, searchOp, type TaskSpec, type WriteTaskCore } from "./category.js";
import { addDays, asNum, asStr, dateOf, enm, fail, int, nextId, obj, ok, pick, resolveOne, round2, str, table } from "./kit.js";

/* ------------------------------------------------------------------ shopping: Amazon / Target */

const PRODUCTS: [string, number][] = [
  ["Anker USB-C Charger 65W", 45.99],
  ["Kindle Paperwhite", 149.99],
  ["LEGO Classic Brick Box", 34.99],
  ["Hydro Flask 32 oz", 44.95],
  ["Logitech MX Master 3S", 99.99],
  ["Instant Pot Duo 6qt", 89.0],
  ["Sony WH-1000XM5", 398.0],
];

interface ShopWorld {
  products: { title: string; list: number; discount: number }[];
}
const productView = (r: JsonObject): JsonObject =>
  pick(r, ["product_id", "title", "condition", "seller", "list_price", "discount", "price", "rating", "in_stock"]);

/** A marketplace listing with the same title (a renewed unit from a third-party seller): the look-alike record. */
function renewedTwin(p: { title: string; list: number }): JsonObject {
  const price = round2(p.list * 0.7);
  return {
    title: p.title,
    condition: "renewed",
    seller: "third-party marketplace seller",
    list_price: p.list,
    discount: round2(p.list - price),
    price,
    rating: 3.4,
    in_stock: true,
  };
}

/** The shopping look-alike: the renewed twin of the new product asked for, told apart by its `condition`. */
function renewedAmbiguity(p: { title: string; list: number }): NonNullable<TaskSpec["ambiguity"]> {
  return {
    arg: "product",
    table: "products",
    idField: "product_id",
    decoy: renewedTwin(p),
    truth: { title: p.title, condition: "new" },
    shownPath: ["condition"],
    decoyShown: "renewed",
  };
}

/**
 * A standard-shipping order as shopping.buy and shopping.track ask for it (`isNew`: the request says "new", so the
 * renewed twin is the wrong record); corruption stores a different quantity. `more` concepts follow product and qty.
 */
function purchaseCore(title: string, qty: number, isNew: boolean, more: Concept[] = []): WriteTaskCore {
  const condition: JsonObject = isNew ? { condition: "new" } : {};
  return {
    main: { op: "place_order", args: { product: title, quantity: qty, shipping: "standard" } },
    stated: { quantity: qty, title, ...condition },
    keyPath: ["quantity"],
    keyValue: qty,
    wrongValue: qty + 9,
    corruption: "stored quantity differs from the request",
    answer: [
      { kind: "text", id: "product", synonyms: [title, title.split(" ").slice(0, 2).join(" ")] },
      { kind: "number", id: "qty", value: qty, tolerance: 0 },
      ...more,
    ],
    wrongConcept: { kind: "number", id: "wrong_qty", value: qty + 9, tolerance: 0 },
    write: recordWrite(
      "orders",
      "order_id",
      "quantity",
      { title, ...condition, quantity: qty, status: "ordered" },
      { verify: "get_order", cancel: "cancel_order" },
    ),
  };
}

export const shopping = defineCategory<ShopWorld>({
  id: "shopping",
  domain: "commerce",
  title: "Online retail",
  providers: [
    { id: "amazon", label: "Amazon", idPrefix: "az" },
    { id: "target", label: "Target", idPrefix: "tg" },
  ],
  ops: [
    searchOp("search_products", "Search the catalogue.", "Keywords", {
      tbl: "products",
      outKey: "results",
      fields: ["title"],
      view: productView,
    }),
    {
      op: "get_product",
      description: "Product details: list price, current discount and price you pay (price = list_price - discount).",
      parameters: obj({ product: str("product_id or exact title") }, ["product"]),
      mutates: false,
      run: (a, rt) => {
        const p = resolveOne(table(rt.st, "products"), asStr(a.product), "product_id", ["title"], "product", productView);
        return p.ok ? ok({ ...productView(p.row), currency: "USD", price_checked_at: rt.now }) : p.result;
      },
    },
    {
      op: "place_order",
      description: "Buy a product with the default card and address.",
      parameters: obj(
        {
          product: str("product_id or exact title"),
          quantity: int("Quantity", { minimum: 1, maximum: 10 }),
          shipping: enm("Shipping speed", ["standard", "two_day", "next_day"]),
        },
        ["product", "quantity", "shipping"],
      ),
      mutates: true,
      run: (a, rt) => {
        const p = resolveOne(table(rt.st, "products"), asStr(a.product), "product_id", ["title"], "product", productView);
        if (!p.ok) return p.result;
        if (p.row.in_stock !== true) return fail(409, "OUT_OF_STOCK", `${asStr(p.row.title)} is out of stock.`);
        const qty = asNum(a.quantity);
        const ship = a.shipping === "next_day" ? 9.99 : a.shipping === "two_day" ? 4.99 : 0;
        const days = a.shipping === "next_day" ? 1 : a.shipping === "two_day" ? 2 : 5;
        const rec: JsonObject = {
          order_id: nextId(rt.st, rt.prov.idPrefix, "ord"),
          title: p.row.title,
          condition: p.row.condition,
          quantity: qty,
          unit_price: p.row.price,
          shipping_fee: ship,
          total: round2(qty * asNum(p.row.price) + ship),
          shipping: asStr(a.shipping),
          delivery_date: addDays(dateOf(rt.now), days),
          status: "ordered",
          ordered_at: rt.now,
        };
        table(rt.st, "orders").push(rec);
        return ok({ ...rec });
      },
    },
    getOp("get_order", "orders", "order_id", "order", ["place_order", "cancel_order"]),
    cancelOp("cancel_order", "orders", "order_id", "order", "ordered"),
    {
      op: "track_package",
      description: "Carrier status for an order.",
      parameters: obj({ order_id: str("Order id") }, ["order_id"]),
      mutates: false,
      run: (a, rt) => {
        const o = table(rt.st, "orders").find((r) => r.order_id === a.order_id);
        return o
          ? ok({
              order_id: o.order_id,
              carrier_status: o.status === "ordered" ? "label_created" : "cancelled",
              estimated_delivery: o.delivery_date,
            })
          : fail(404, "ORDER_NOT_FOUND", `No order ${asStr(a.order_id)}.`);
      },
    },
  ],
  world: (rng) => ({
    products: rng.sample(PRODUCTS, 5).map(([title, list]) => ({ title, list, discount: rng.pick([0, 5, 10, 15]) })),
  }),
  tables: (w, prov) => ({
    products: w.products.map((p, i) => ({
      product_id: `${prov.idPrefix}_prd_${9001 + i}`,
      title: p.title,
      condition: "new",
      seller: prov.label,
      list_price: p.list,
      discount: p.discount,
      price: round2(p.list - p.discount),
      rating: 4.5,
      in_stock: true,
    })),
    orders: [],
  }),
  templates: [
    {
      name: "shopping.price",
      kind: "read",
      build: (rng, w) => {
        const k = rng.int(w.products.length);
        const p = w.products[k];
        const price = round2(p.list - p.discount);
        const wrong = round2(p.list * 10);
        return {
          template: "shopping.price",
          kind: "read",
          request: `What does a new ${p.title} cost right now on {provider}?`,
          main: { op: "get_product", args: { product: p.title } },
          stated: { condition: "new" },
          key: { arg: "product", table: "products", idField: "product_id", truth: { title: p.title } },
          keyPath: ["price"],
          keyValue: price,
          wrongValue: wrong,
          corruption: "price above list price and inconsistent with the discount",
          answer: [{ kind: "number", id: "price", value: price, tolerance: 0.01 }],
          wrongConcept: { kind: "number", id: "wrong_price", value: wrong, tolerance: 0.01 },
          stale: {
            tsPath: ["price_checked_at"],
            staleValue: round2(price + 20),
            staleConcept: { kind: "number", id: "stale_price", value: round2(price + 20), tolerance: 0.01 },
          },
          ambiguity: renewedAmbiguity(p),
        };
      },
    },
    {
      name: "shopping.buy",
      kind: "write",
      build: (rng, w) => {
        const p = rng.pick(w.products);
        const qty = rng.range(1, 3);
        return {
          template: "shopping.buy",
          kind: "write",
          request: `Order ${qty} of the ${p.title} (new) on {provider} with standard shipping.`,
          ...purchaseCore(p.title, qty, true),
          key: { arg: "product", table: "products", idField: "product_id", truth: { title: p.title } },
          ambiguity: renewedAmbiguity(p),
        };
      },
    },
    {
      name: "shopping.track",
      kind: "write",
      build: (rng, w, now) => {
        const p = rng.pick(w.products);
        const qty = rng.range(1, 4);
        const eta = addDays(dateOf(now), 5);
        return {
          template: "shopping.track",
          kind: "write",
          request:
            `Find the ${p.title} on {provider}, order ${qty} with standard shipping, then track the ` +
            `package and tell me the estimated delivery date.`,
          ...purchaseCore(p.title, qty, false, [{ kind: "date", id: "delivery", iso: eta }]),
          chain: {
            before: [{ op: "search_products", args: { query: p.title }, purpose: `find the ${p.title}` }],
            mainBind: [{ arg: "product", from: 0, field: "product_id", where: { title: p.title } }],
            after: [
              { op: "track_package", args: {}, bind: [{ arg: "order_id", from: 1, field: "order_id" }], purpose: "track the package" },
            ],
          },
        };
      },
    },
  ],
});
