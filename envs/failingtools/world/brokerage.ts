import type { JsonObject } from "../../../src/family.js";
import { defineCategory, recordWrite } from "./category.js";
import { asNum, asStr, enm, fail, int, nextId, num, obj, ok, pick, resolveOne, round2, str, table } from "./kit.js";
import { money } from "./pools.js";

/* ------------------------------------------------------------------ brokerage: Robinhood / E*Trade / Fidelity */

interface Company {
  symbol: string;
  name: string;
  twin: { symbol: string; name: string };
}
const COMPANIES: Company[] = [
  { symbol: "AAPL", name: "Apple Inc.", twin: { symbol: "APLE", name: "Apple Hospitality REIT" } },
  { symbol: "META", name: "Meta Platforms", twin: { symbol: "MTA", name: "Metalla Royalty" } },
  { symbol: "NVDA", name: "NVIDIA Corp.", twin: { symbol: "NVEC", name: "NVE Corp." } },
  { symbol: "COST", name: "Costco Wholesale", twin: { symbol: "CSGP", name: "CoStar Group" } },
  { symbol: "DIS", name: "Walt Disney Co.", twin: { symbol: "DISH", name: "DISH Network" } },
  { symbol: "SBUX", name: "Starbucks Corp.", twin: { symbol: "SBUXW", name: "Starbucks Warrants" } },
];

interface BrokerWorld {
  quotes: { symbol: string; name: string; price: number; prev: number }[];
  cash: number;
}

function quoteView(q: JsonObject, now: string): JsonObject {
  const price = asNum(q.price);
  const prev = asNum(q.prev_close);
  return {
    symbol: q.symbol,
    name: q.name,
    price,
    prev_close: prev,
    day_low: round2(Math.min(price, prev) * 0.985),
    day_high: round2(Math.max(price, prev) * 1.015),
    change_pct: round2(((price - prev) / prev) * 100),
    currency: "USD",
    as_of: now,
  };
}

const symbolFields = ["symbol", "name"];

export const brokerage = defineCategory<BrokerWorld>({
  id: "brokerage",
  domain: "finance",
  title: "Brokerage",
  providers: [
    { id: "robinhood", label: "Robinhood", idPrefix: "rh" },
    { id: "etrade", label: "E*Trade", idPrefix: "et" },
    { id: "fidelity", label: "Fidelity", idPrefix: "fd" },
  ],
  ops: [
    {
      op: "get_quote",
      description: "Real-time quote for a ticker symbol or company name.",
      parameters: obj({ symbol: str("Ticker symbol (e.g. AAPL) or company name") }, ["symbol"]),
      mutates: false,
      run: (a, rt) => {
        const q = resolveOne(table(rt.st, "quotes"), asStr(a.symbol), "symbol", symbolFields, "security", (r) =>
          pick(r, ["symbol", "name"]),
        );
        return q.ok ? ok(quoteView(q.row, rt.now)) : q.result;
      },
    },
    {
      op: "get_account",
      description: "Cash available and buying power.",
      parameters: obj({}),
      mutates: false,
      run: (_a, rt) =>
        ok({ cash_available: round2(asNum(rt.st.cash)), buying_power: round2(asNum(rt.st.cash)), currency: "USD", as_of: rt.now }),
    },
    {
      op: "get_positions",
      description: "Current holdings.",
      parameters: obj({}),
      mutates: false,
      run: (_a, rt) => ok({ positions: table(rt.st, "positions").map((p) => ({ ...p })) }),
    },
    {
      op: "place_order",
      description: "Place a market or limit order. Orders are accepted and execute at the next session open.",
      parameters: obj(
        {
          symbol: str("Ticker symbol or company name"),
          side: enm("buy or sell", ["buy", "sell"]),
          quantity: int("Number of shares", { minimum: 1 }),
          order_type: enm("Order type", ["market", "limit"]),
          limit_price: num("Limit price in USD (limit orders only)", { exclusiveMinimum: 0 }),
        },
        ["symbol", "side", "quantity", "order_type"],
      ),
      mutates: true,
      run: (a, rt) => {
        const q = resolveOne(table(rt.st, "quotes"), asStr(a.symbol), "symbol", symbolFields, "security", (r) =>
          pick(r, ["symbol", "name"]),
        );
        if (!q.ok) return q.result;
        if (a.order_type === "limit" && typeof a.limit_price !== "number") {
          return fail(400, "INVALID_ARGUMENT", "limit_price is required for limit orders.", { field: "limit_price" });
        }
        const qty = asNum(a.quantity);
        const est = round2(qty * asNum(q.row.price));
        if (a.side === "buy" && est > asNum(rt.st.cash)) return fail(422, "INSUFFICIENT_BUYING_POWER", `Order needs about ${money(est)}.`);
        const rec: JsonObject = {
          order_id: nextId(rt.st, rt.prov.idPrefix, "ord"),
          symbol: q.row.symbol,
          name: q.row.name,
          side: asStr(a.side),
          quantity: qty,
          order_type: asStr(a.order_type),
          estimated_cost: est,
          status: "accepted",
          created_at: rt.now,
        };
        table(rt.st, "orders").push(rec);
        return ok({ ...rec });
      },
    },
    {
      op: "get_order",
      description: "Read an order as stored by the broker.",
      parameters: obj({ order_id: str("Order id") }, ["order_id"]),
      mutates: false,
      verifies: ["place_order", "cancel_order"],
      run: (a, rt) => {
        const rec = table(rt.st, "orders").find((r) => r.order_id === a.order_id);
        return rec ? ok({ ...rec }) : fail(404, "ORDER_NOT_FOUND", `No order ${asStr(a.order_id)}.`);
      },
    },
    {
      op: "cancel_order",
      description: "Cancel an order that has not executed yet.",
      parameters: obj({ order_id: str("Order id") }, ["order_id"]),
      mutates: true,
      run: (a, rt) => {
        const rec = table(rt.st, "orders").find((r) => r.order_id === a.order_id);
        if (!rec) return fail(404, "ORDER_NOT_FOUND", `No order ${asStr(a.order_id)}.`);
        if (rec.status !== "accepted") return fail(409, "NOT_CANCELLABLE", `Order is ${asStr(rec.status)}.`);
        rec.status = "cancelled";
        return ok({ order_id: rec.order_id, status: "cancelled" });
      },
    },
  ],
  world: (rng) => ({
    quotes: COMPANIES.map((c) => {
      const price = rng.range(40, 900) + rng.range(0, 99) / 100;
      return { symbol: c.symbol, name: c.name, price, prev: round2(price * (1 + rng.range(-300, 300) / 10000)) };
    }),
    cash: rng.range(20000, 60000),
  }),
  tables: (w) => ({
    quotes: w.quotes.map((q) => ({ symbol: q.symbol, name: q.name, price: q.price, prev_close: q.prev })),
    positions: [],
    orders: [],
  }),
  extras: (w) => ({ cash: w.cash }),
  templates: [
    {
      name: "brokerage.quote",
      kind: "read",
      build: (rng, w) => {
        const q = rng.pick(w.quotes);
        const c = COMPANIES.find((x) => x.symbol === q.symbol) as Company;
        const wrong = round2(q.price * 3.2);
        const stale = round2(q.price * 0.82);
        return {
          template: "brokerage.quote",
          kind: "read",
          request: `What is ${c.name} (${q.symbol}) trading at on {provider}?`,
          main: { op: "get_quote", args: { symbol: q.symbol } },
          stated: { symbol: q.symbol },
          keyPath: ["price"],
          keyValue: q.price,
          wrongValue: wrong,
          corruption: "price outside the day's trading range",
          answer: [{ kind: "number", id: "price", value: q.price, tolerance: 0.01 }],
          wrongConcept: { kind: "number", id: "wrong_price", value: wrong, tolerance: 0.01 },
          stale: {
            tsPath: ["as_of"],
            staleValue: stale,
            staleConcept: { kind: "number", id: "stale_price", value: stale, tolerance: 0.01 },
          },
        };
      },
    },
    {
      name: "brokerage.buy",
      kind: "write",
      build: (rng, w) => {
        const q = rng.pick(w.quotes);
        const c = COMPANIES.find((x) => x.symbol === q.symbol) as Company;
        const qty = rng.pick([5, 10, 12, 20, 8]);
        return {
          template: "brokerage.buy",
          kind: "write",
          request: `Buy ${qty} shares of ${c.name} (ticker ${q.symbol}) at market on {provider}.`,
          main: { op: "place_order", args: { symbol: c.name.split(" ")[0], side: "buy", quantity: qty, order_type: "market" } },
          stated: { symbol: q.symbol, quantity: qty, side: "buy" },
          keyPath: ["quantity"],
          keyValue: qty,
          wrongValue: qty * 10,
          corruption: "stored share quantity ten times the request",
          answer: [
            { kind: "number", id: "quantity", value: qty, tolerance: 0 },
            { kind: "text", id: "symbol", synonyms: [q.symbol, c.name.split(" ")[0]] },
          ],
          wrongConcept: { kind: "number", id: "wrong_quantity", value: qty * 10, tolerance: 0 },
          write: recordWrite(
            "orders",
            "order_id",
            "quantity",
            { symbol: q.symbol, side: "buy", quantity: qty, status: "accepted" },
            { verify: "get_order", cancel: "cancel_order" },
          ),
          ambiguity: {
            arg: "symbol",
            table: "quotes",
            idField: "symbol",
            decoy: { symbol: c.twin.symbol, name: c.twin.name, price: round2(q.price / 7), prev_close: round2(q.price / 7) },
            truth: { symbol: q.symbol },
            shownPath: ["symbol"],
            decoyShown: c.twin.symbol,
          },
        };
      },
    },
  ],
});
