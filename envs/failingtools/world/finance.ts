import type { JsonObject } from "../../../src/core/json.js";
import { defineCategory, type ProviderRuntime } from "./category.js";
import { asNum, asStr, enm, fail, int, nextId, num, obj, ok, pick, resolveOne, round2, str, table } from "./kit.js";
import { lookAlike, money, people, type Person } from "./pools.js";

/* ------------------------------------------------------------------ payments: Zelle / Venmo / PayPal */

interface PaymentsWorld {
  contacts: Person[];
  ledger: number;
  pending: number;
}

const recipientView = (r: JsonObject): JsonObject => pick(r, ["recipient_id", "name", "email", "phone"]);

function balanceOf(rt: ProviderRuntime): { ledger: number; pending: number } {
  return { ledger: asNum(rt.st.ledger_balance), pending: asNum(rt.st.pending) };
}

export const payments = defineCategory<PaymentsWorld>({
  id: "payments",
  domain: "finance",
  title: "Peer-to-peer payments",
  providers: [
    { id: "zelle", label: "Zelle", idPrefix: "zl" },
    { id: "venmo", label: "Venmo", idPrefix: "vm" },
    { id: "paypal", label: "PayPal", idPrefix: "pp" },
  ],
  ops: [
    {
      op: "get_balance",
      description: "Return the account's ledger balance, pending holds and available balance in USD.",
      parameters: obj({}),
      mutates: false,
      run: (_a, rt) => {
        const b = balanceOf(rt);
        return ok({
          currency: "USD",
          ledger_balance: round2(b.ledger),
          pending: round2(b.pending),
          available_balance: round2(b.ledger - b.pending),
          as_of: rt.now,
        });
      },
    },
    {
      op: "search_recipients",
      description: "Search saved recipients by name, email or phone.",
      parameters: obj({ query: str("Name, email address or phone number") }, ["query"]),
      mutates: false,
      run: (a, rt) => {
        const q = asStr(a.query).toLowerCase();
        const rows = table(rt.st, "recipients").filter((r) =>
          ["name", "email", "phone"].some((f) => asStr(r[f]).toLowerCase().includes(q)),
        );
        return ok({ recipients: rows.map(recipientView), count: rows.length });
      },
    },
    {
      op: "send_money",
      description: "Send money to a saved recipient, identified by recipient_id, email, phone or exact name.",
      parameters: obj(
        {
          recipient: str("recipient_id, email, phone or full name of the recipient"),
          amount: num("Amount in USD", { exclusiveMinimum: 0 }),
          memo: str("Note shown to the recipient"),
        },
        ["recipient", "amount"],
      ),
      mutates: true,
      run: (a, rt) => {
        const who = resolveOne(table(rt.st, "recipients"), asStr(a.recipient), "recipient_id", ["name", "email", "phone"], "recipient", recipientView);
        if (!who.ok) return who.result;
        const amount = round2(asNum(a.amount));
        const b = balanceOf(rt);
        if (amount > b.ledger - b.pending) {
          return fail(422, "INSUFFICIENT_FUNDS", `Available balance ${money(b.ledger - b.pending)} is less than ${money(amount)}.`);
        }
        const rec: JsonObject = {
          transfer_id: nextId(rt.st, rt.prov.idPrefix, "txn"),
          direction: "sent",
          recipient_id: who.row.recipient_id,
          recipient_name: who.row.name,
          recipient_email: who.row.email,
          amount,
          memo: asStr(a.memo),
          status: "completed",
          created_at: rt.now,
        };
        table(rt.st, "transfers").push(rec);
        rt.st.ledger_balance = round2(b.ledger - amount);
        return ok({ ...pick(rec, ["transfer_id", "status", "amount", "recipient_name", "recipient_email", "created_at"]), message: "Payment sent" });
      },
    },
    {
      op: "get_transfer",
      description: "Read one transfer by id, as stored by the service.",
      parameters: obj({ transfer_id: str("Transfer id returned by send_money") }, ["transfer_id"]),
      mutates: false,
      verifies: ["send_money", "cancel_transfer"],
      run: (a, rt) => {
        const rec = table(rt.st, "transfers").find((r) => r.transfer_id === a.transfer_id);
        return rec ? ok({ ...rec }) : fail(404, "TRANSFER_NOT_FOUND", `No transfer ${asStr(a.transfer_id)}.`);
      },
    },
    {
      op: "list_transfers",
      description: "List recent transfers, newest first.",
      parameters: obj({ limit: int("Maximum number of transfers", { minimum: 1, maximum: 50 }) }),
      mutates: false,
      verifies: ["send_money", "cancel_transfer"],
      run: (a, rt) => {
        const rows = table(rt.st, "transfers").slice().reverse().slice(0, asNum(a.limit, 10));
        return ok({ transfers: rows.map((r) => ({ ...r })), count: rows.length });
      },
    },
    {
      op: "request_money",
      description: "Ask a saved recipient to pay you.",
      parameters: obj(
        { recipient: str("recipient_id, email, phone or full name"), amount: num("Amount in USD", { exclusiveMinimum: 0 }), memo: str("Reason") },
        ["recipient", "amount"],
      ),
      mutates: true,
      run: (a, rt) => {
        const who = resolveOne(table(rt.st, "recipients"), asStr(a.recipient), "recipient_id", ["name", "email", "phone"], "recipient", recipientView);
        if (!who.ok) return who.result;
        const rec: JsonObject = {
          request_id: nextId(rt.st, rt.prov.idPrefix, "req"),
          recipient_name: who.row.name,
          recipient_email: who.row.email,
          amount: round2(asNum(a.amount)),
          memo: asStr(a.memo),
          status: "pending",
          created_at: rt.now,
        };
        table(rt.st, "requests").push(rec);
        return ok({ ...rec });
      },
    },
    {
      op: "cancel_transfer",
      description: "Cancel a completed transfer and refund it (allowed within 30 minutes).",
      parameters: obj({ transfer_id: str("Transfer id") }, ["transfer_id"]),
      mutates: true,
      run: (a, rt) => {
        const rec = table(rt.st, "transfers").find((r) => r.transfer_id === a.transfer_id);
        if (!rec) return fail(404, "TRANSFER_NOT_FOUND", `No transfer ${asStr(a.transfer_id)}.`);
        if (rec.status !== "completed") return fail(409, "NOT_CANCELLABLE", `Transfer is ${asStr(rec.status)}.`);
        rec.status = "cancelled";
        rt.st.ledger_balance = round2(asNum(rt.st.ledger_balance) + asNum(rec.amount));
        return ok({ transfer_id: rec.transfer_id, status: "cancelled", refunded: rec.amount });
      },
    },
  ],
  world: (rng) => ({
    contacts: people(rng, 5),
    ledger: rng.range(1800, 5200) + rng.range(0, 99) / 100,
    pending: rng.range(20, 180) + rng.range(0, 99) / 100,
  }),
  tables: (w, prov) => ({
    recipients: w.contacts.map((p, i) => ({ recipient_id: `${prov.idPrefix}_rcp_${101 + i}`, ...p })),
    transfers: [],
    requests: [],
  }),
  extras: (w) => ({ ledger_balance: round2(w.ledger), pending: round2(w.pending) }),
  templates: [
    {
      name: "payments.balance",
      kind: "read",
      build: (_rng, w) => {
        const avail = round2(w.ledger - w.pending);
        const wrong = round2(avail * 10);
        return {
          template: "payments.balance",
          kind: "read",
          request: "How much money is available to spend in my {provider} account right now?",
          main: { op: "get_balance", args: {} },
          stated: {},
          keyPath: ["available_balance"],
          keyValue: avail,
          wrongValue: wrong,
          corruption: "available balance inconsistent with ledger minus pending",
          answer: [{ kind: "number", id: "available_balance", value: avail, tolerance: 0.01 }],
          wrongConcept: { kind: "number", id: "corrupted_balance", value: wrong, tolerance: 0.01 },
          stale: {
            tsPath: ["as_of"],
            staleValue: round2(avail + 412.35),
            staleConcept: { kind: "number", id: "stale_balance", value: round2(avail + 412.35), tolerance: 0.01 },
          },
        };
      },
    },
    {
      name: "payments.send",
      kind: "write",
      build: (rng, w) => {
        const to = rng.pick(w.contacts);
        const amount = rng.pick([150, 75, 240, 60, 120, 35]);
        const memo = rng.pick(["dinner", "concert tickets", "rent share", "birthday gift", "groceries"]);
        const decoy = lookAlike(rng, to);
        return {
          template: "payments.send",
          kind: "write",
          request: `Send $${amount} to ${to.name} (${to.email}) on {provider} for ${memo}.`,
          main: { op: "send_money", args: { recipient: to.name, amount, memo } },
          stated: { amount, recipient_email: to.email },
          keyPath: ["amount"],
          keyValue: amount,
          wrongValue: amount / 10,
          corruption: "stored amount off by a factor of ten",
          answer: [
            { kind: "number", id: "amount", value: amount, tolerance: 0.01 },
            { kind: "text", id: "recipient", synonyms: [to.name, to.email] },
          ],
          wrongConcept: { kind: "number", id: "wrong_amount", value: amount / 10, tolerance: 0.001 },
          write: {
            idField: "transfer_id",
            table: "transfers",
            recordIdField: "transfer_id",
            recordKeyField: "amount",
            match: { recipient_email: to.email, amount, status: "completed" },
            verify: { op: "get_transfer", idArg: "transfer_id" },
            cancel: { op: "cancel_transfer", idArg: "transfer_id" },
          },
          ambiguity: {
            arg: "recipient",
            table: "recipients",
            idField: "recipient_id",
            decoy: { ...decoy },
            truth: { email: to.email },
            shownPath: ["recipient_email"],
            decoyShown: decoy.email,
          },
        };
      },
    },
  ],
});

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
        const q = resolveOne(table(rt.st, "quotes"), asStr(a.symbol), "symbol", symbolFields, "security", (r) => pick(r, ["symbol", "name"]));
        return q.ok ? ok(quoteView(q.row, rt.now)) : q.result;
      },
    },
    {
      op: "get_account",
      description: "Cash available and buying power.",
      parameters: obj({}),
      mutates: false,
      run: (_a, rt) => ok({ cash_available: round2(asNum(rt.st.cash)), buying_power: round2(asNum(rt.st.cash)), currency: "USD", as_of: rt.now }),
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
        const q = resolveOne(table(rt.st, "quotes"), asStr(a.symbol), "symbol", symbolFields, "security", (r) => pick(r, ["symbol", "name"]));
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
      return { symbol: c.symbol, name: c.name, price, prev: round2(price * (1 + (rng.range(-300, 300) / 10000))) };
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
          stale: { tsPath: ["as_of"], staleValue: stale, staleConcept: { kind: "number", id: "stale_price", value: stale, tolerance: 0.01 } },
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
          write: {
            idField: "order_id",
            table: "orders",
            recordIdField: "order_id",
            recordKeyField: "quantity",
            match: { symbol: q.symbol, side: "buy", quantity: qty, status: "accepted" },
            verify: { op: "get_order", idArg: "order_id" },
            cancel: { op: "cancel_order", idArg: "order_id" },
          },
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
