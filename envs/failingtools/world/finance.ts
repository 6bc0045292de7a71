import type { JsonObject, JsonValue } from "../../../src/family.js";
import { defineCategory, type ProviderRuntime, recordWrite, searchOp, type WriteTaskCore } from "./category.js";
import { asNum, asStr, fail, int, nextId, num, obj, ok, pick, resolveOne, round2, str, table } from "./kit.js";
import { lookAlike, money, people, type Person } from "./pools.js";

/* ------------------------------------------------------------------ payments: Zelle / Venmo / PayPal */

interface PaymentsWorld {
  contacts: Person[];
  ledger: number;
  pending: number;
}

const recipientView = (r: JsonObject): JsonObject => pick(r, ["recipient_id", "name", "email", "phone"]);
/** The one saved recipient a name, e-mail or phone number names (both money-moving tools take one). */
const resolveRecipient = (rt: ProviderRuntime, query: JsonValue | undefined) =>
  resolveOne(table(rt.st, "recipients"), asStr(query), "recipient_id", ["name", "email", "phone"], "recipient", recipientView);

function balanceOf(rt: ProviderRuntime): { ledger: number; pending: number } {
  return { ledger: asNum(rt.st.ledger_balance), pending: asNum(rt.st.pending) };
}

/** A transfer as payments.send and payments.pay ask for it; corruption stores a tenth of the amount. */
function transferCore(to: Person, amount: number, memo: string): WriteTaskCore {
  return {
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
    write: recordWrite(
      "transfers",
      "transfer_id",
      "amount",
      { recipient_email: to.email, amount, status: "completed" },
      { verify: "get_transfer", cancel: "cancel_transfer" },
    ),
  };
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
    searchOp("search_recipients", "Search saved recipients by name, email or phone.", "Name, email address or phone number", {
      tbl: "recipients",
      outKey: "recipients",
      fields: ["name", "email", "phone"],
      view: recipientView,
      withCount: true,
    }),
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
        const who = resolveRecipient(rt, a.recipient);
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
        return ok({
          ...pick(rec, ["transfer_id", "status", "amount", "recipient_name", "recipient_email", "created_at"]),
          message: "Payment sent",
        });
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
        {
          recipient: str("recipient_id, email, phone or full name"),
          amount: num("Amount in USD", { exclusiveMinimum: 0 }),
          memo: str("Reason"),
        },
        ["recipient", "amount"],
      ),
      mutates: true,
      run: (a, rt) => {
        const who = resolveRecipient(rt, a.recipient);
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
          ...transferCore(to, amount, memo),
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
    {
      name: "payments.pay",
      kind: "write",
      build: (rng, w) => {
        const to = rng.pick(w.contacts);
        const amount = rng.pick([150, 85, 220, 45, 130, 310]);
        const memo = rng.pick(["the cabin deposit", "utilities", "the team lunch", "tickets", "the carpool"]);
        return {
          template: "payments.pay",
          kind: "write",
          request:
            `Find ${to.name} (${to.email}) in my {provider} recipients, send them $${amount} for ` +
            `${memo}, then look the transfer up to make sure it went through.`,
          ...transferCore(to, amount, memo),
          chain: {
            before: [{ op: "search_recipients", args: { query: to.email }, purpose: `look up ${to.name} among the saved recipients` }],
            mainBind: [{ arg: "recipient", from: 0, field: "recipient_id", where: { email: to.email } }],
            after: [
              {
                op: "get_transfer",
                args: {},
                bind: [{ arg: "transfer_id", from: 1, field: "transfer_id" }],
                purpose: "look the transfer up",
              },
            ],
          },
        };
      },
    },
  ],
});
