import { describe, expect, it } from "vitest";
import { type DiscreteToolEnv, type JsonObject, type JsonValue, make, type TaskParameter } from "../../src/index.js";
import { candidates } from "../../src/engine/discrete/candidates.js";
import { CANDIDATE_FEATURES, encodeFeatures, GLOBAL_FEATURES } from "../../src/engine/discrete/features.js";
import type { ObservableEpisode, SeenCall, SeenTool } from "../../src/engine/discrete/source.js";
import { verificationOf } from "../../src/engine/discrete/verify.js";
import { candidateIndexOf } from "../../src/engine/discrete/replay.js";
import { namedFeatures, observableEpisode } from "../helpers/observableEpisode.js";

/** A payment service: a write, its read-back by id, a list read-back, a cancellation, and an unrelated read. */
function tool(name: string, required: string[], semantics: SeenTool["semantics"]): SeenTool {
  const properties = Object.fromEntries(required.map((k) => [k, { type: ["string", "number"] }]));
  return { name, parameters: { type: "object", properties, required }, semantics } as SeenTool;
}
const PAY = { label: "Pay" };
const TOOLS: SeenTool[] = [
  tool("pay_send", ["recipient", "amount"], { ...PAY, operation: "send", writes: true }),
  tool("pay_get", ["transfer_id"], { ...PAY, operation: "get", confirms: ["send", "cancel"] }),
  tool("pay_list", [], { ...PAY, operation: "list", confirms: ["send", "cancel"] }),
  tool("pay_cancel", ["transfer_id"], { ...PAY, operation: "cancel", writes: true }),
  tool("pay_balance", [], { ...PAY, operation: "balance" }),
  tool("pay_legacy_balance", [], { ...PAY, operation: "balance", caveat: true }),
];
const TASK: TaskParameter[] = [
  { name: "recipient", value: "Ann" },
  { name: "amount", value: 20 },
  { name: "content", target: "answer", value: "Sent." },
];
const call = (t: string, args: JsonObject, ok: boolean, response: JsonValue): SeenCall => ({ tool: t, arguments: args, ok, response });
const SEND = call("pay_send", { recipient: "Ann", amount: 20 }, true, { transfer_id: "tx_1", status: "completed", amount: 20 });

function episode(calls: SeenCall[], inconsistent: (r: JsonValue) => boolean = () => false): ObservableEpisode {
  return { ...observableEpisode(TASK, TOOLS, calls), inconsistent };
}

const LIMITS = { maxCandidates: 24, perTool: 4, perArgument: 8, answers: 8 };
/** Named globals, and each slot's named features keyed by `tool(arguments)` or the answer's kind. */
const features = (ep: ObservableEpisode) =>
  namedFeatures(ep, LIMITS, (cand) =>
    cand.kind === "tool_call" ? `${cand.name}(${JSON.stringify((cand.action as { arguments?: JsonObject }).arguments)})` : cand.kind,
  );

describe("still-to-verify features (verify.ts)", () => {
  it("a write is unverified until a read-back finds its receipt; answers meanwhile are flagged", () => {
    const f = features(episode([SEND]));
    expect(f.global["writes_done"]).toBe(0.5);
    expect(f.global["write_unverified"]).toBe(1);
    expect(f.global["write_confirmed"]).toBe(0);
    expect(f.slot.get("answer")!["answer_while_write_unsettled"]).toBe(1);
    expect(f.slot.get('pay_get({"transfer_id":"tx_1"})')!["would_read_back_write"]).toBe(1);
    expect(f.slot.get("pay_list({})")!["would_read_back_write"]).toBe(1);
    // A read that documents no confirmation, and a read-back naming another value, are no read-backs.
    expect(f.slot.get("pay_balance({})")!["would_read_back_write"]).toBe(0);
    expect(f.slot.get("pay_balance({})")!["documented_caveat"]).toBe(0);
    expect(f.slot.get("pay_legacy_balance({})")!["documented_caveat"]).toBe(1);
    expect(f.slot.get('pay_get({"transfer_id":"Ann"})')?.["would_read_back_write"] ?? 0).toBe(0);
    expect(f.slot.get('pay_cancel({"transfer_id":"tx_1"})')!["undoes_write"]).toBe(1);
    expect(f.slot.get('pay_cancel({"transfer_id":"tx_1"})')!["is_write"]).toBe(1);
    expect(f.slot.get('pay_send({"recipient":"Ann","amount":20})')!["repeats_write"]).toBe(1);

    const read = call("pay_get", { transfer_id: "tx_1" }, true, { transfer_id: "tx_1", recipient: "Ann", amount: 20 });
    const g = features(episode([SEND, read]));
    expect(g.global["write_unverified"]).toBe(0);
    expect(g.global["write_confirmed"]).toBe(1);
    expect(g.slot.get("answer")!["answer_while_write_unsettled"]).toBe(0);
    expect(g.slot.get("pay_list({})")!["would_read_back_write"]).toBe(0);
  });

  it("before any write nothing is unverified, and a failed write is no write", () => {
    expect(features(episode([])).global["write_unverified"]).toBe(0);
    const failed = call("pay_send", { recipient: "Ann", amount: 20 }, false, { error: { status: 503, code: "UNAVAILABLE" } });
    const f = features(episode([failed]));
    expect(f.global["writes_done"]).toBe(0);
    expect(f.slot.get("answer")!["answer_while_write_unsettled"]).toBe(0);
    expect(f.slot.get('pay_send({"recipient":"Ann","amount":20})')!["repeats_write"]).toBe(0);
  });

  it("a definitive not-found of the receipt, or a list without it, says the write did not persist", () => {
    const notFound = call("pay_get", { transfer_id: "tx_1" }, false, { error: { status: 404, code: "NOT_FOUND" } });
    expect(features(episode([SEND, notFound])).global["write_not_persisted"]).toBe(1);
    // A transient-looking failure says nothing yet.
    const outage = call("pay_get", { transfer_id: "tx_1" }, false, { error: { status: 503, code: "UNAVAILABLE" } });
    const o = features(episode([SEND, outage]));
    expect(o.global["write_not_persisted"]).toBe(0);
    expect(o.global["write_unverified"]).toBe(1);
    const list = call("pay_list", {}, true, { transfers: [{ transfer_id: "tx_0", amount: 5 }] });
    const l = features(episode([SEND, list]));
    expect(l.global["write_not_persisted"]).toBe(1);
    expect(l.slot.get("answer")!["answer_while_write_unsettled"]).toBe(1);
    const found = call("pay_list", {}, true, {
      transfers: [
        { transfer_id: "tx_0", amount: 5 },
        { transfer_id: "tx_1", amount: 20 },
      ],
    });
    expect(features(episode([SEND, found])).global["write_confirmed"]).toBe(1);
  });

  it("a read-back record that contradicts the task, then its cancellation", () => {
    const wrong = call("pay_get", { transfer_id: "tx_1" }, true, { transfer_id: "tx_1", recipient: "Anne Other", amount: 20 });
    const f = features(episode([SEND, wrong]));
    expect(f.global["write_contradicts_task"]).toBe(1);
    expect(f.global["write_confirmed"]).toBe(0);
    expect(f.slot.get("answer")!["answer_while_write_unsettled"]).toBe(1);
    const cancel = call("pay_cancel", { transfer_id: "tx_1" }, true, { transfer_id: "tx_1", status: "cancelled" });
    const g = features(episode([SEND, wrong, cancel]));
    expect(g.global["write_undone"]).toBe(1);
    expect(g.global["write_contradicts_task"]).toBe(0);
    expect(verificationOf(episode([SEND, wrong, cancel])).writes).toHaveLength(1);
    // The same value with other case and spacing is no contradiction.
    const same = call("pay_get", { transfer_id: "tx_1" }, true, { transfer_id: "tx_1", recipient: " ann ", amount: 20 });
    expect(features(episode([SEND, same])).global["write_contradicts_task"]).toBe(0);
  });

  it("flags responses the family's consistency check rejects, and values taken from them", () => {
    const balance = call("pay_balance", {}, true, { transfer_id: "tx_9", total: -3 });
    const check = (r: JsonValue) => typeof r === "object" && r !== null && !Array.isArray(r) && r["total"] === -3;
    const f = features(episode([balance], check));
    expect(f.global["last_response_inconsistent"]).toBe(1);
    expect(f.global["inconsistent_responses_seen"]).toBeCloseTo(1 / 3);
    expect(f.slot.get('pay_get({"transfer_id":"tx_9"})')!["argument_from_inconsistent_response"]).toBe(1);
    expect(f.slot.get('pay_get({"transfer_id":"Ann"})')?.["argument_from_inconsistent_response"] ?? 0).toBe(0);
    const g = features(episode([balance, SEND], check));
    expect(g.global["last_response_inconsistent"]).toBe(0);
    expect(g.global["inconsistent_responses_seen"]).toBeCloseTo(1 / 3);
  });
});

describe("binding and switching features (verify.ts)", () => {
  it("an id argument bound to a value no response returned; a write on another service than the latest write's", () => {
    const stated = { ...observableEpisode([...TASK, { name: "transfer_id", value: "tx_77" }], TOOLS, [SEND]), inconsistent: () => false };
    const s = features(stated);
    expect(s.slot.get('pay_get({"transfer_id":"tx_77"})')!["id_argument_unseen"]).toBe(1);
    expect(s.slot.get('pay_get({"transfer_id":"tx_1"})')!["id_argument_unseen"]).toBe(0);
    const f = features(episode([SEND]));
    expect(f.slot.get("pay_balance({})")!["id_argument_unseen"]).toBe(0);
    expect(f.slot.get('pay_send({"recipient":"Ann","amount":20})')!["write_on_other_service"]).toBe(0);
    const other: SeenTool[] = [...TOOLS, tool("cash_send", ["recipient", "amount"], { label: "Cash", operation: "send", writes: true })];
    const ep = { ...observableEpisode(TASK, other, [SEND]), inconsistent: () => false };
    const list = candidates(ep, LIMITS);
    const out = encodeFeatures(ep, list, LIMITS.maxCandidates);
    const i = list.findIndex((c) => c.name === "cash_send");
    expect(out[GLOBAL_FEATURES.length + i * CANDIDATE_FEATURES.length + CANDIDATE_FEATURES.indexOf("write_on_other_service")]).toBe(1);
  });

  it("a family action (a question) after the latest write", () => {
    const ask = { action: { type: "ask_user", question: "Shall I use Cash instead?" } as never, response: { user: "yes" }, afterCalls: 1 };
    const before = { ...ask, afterCalls: 0 };
    expect(features({ ...episode([SEND]), actions: [ask] }).global["family_action_since_write"]).toBe(1);
    expect(features({ ...episode([SEND]), actions: [before] }).global["family_action_since_write"]).toBe(0);
    expect(features({ ...episode([]), actions: [ask] }).global["family_action_since_write"]).toBe(0);
  });
});

describe("Failing Tools documents its writes and read-backs", () => {
  it("the oracle's read-back after a write is the candidate flagged would_read_back_write", () => {
    // Seed 2: a PayPal transfer; the oracle searches the recipient, sends, reads the transfer back, answers.
    const env = make("FailingTools-v0", { actionMode: "discrete" }) as unknown as DiscreteToolEnv;
    env.reset({ seed: 2 });
    const c = CANDIDATE_FEATURES.length;
    const at = (name: string) => GLOBAL_FEATURES.length + CANDIDATE_FEATURES.indexOf(name as never);
    const step = (a: JsonObject) => {
      const i = candidateIndexOf(env, a as never);
      expect(i).toBeGreaterThanOrEqual(0);
      return env.step(i)[0].observation;
    };
    step({ type: "tool_call", name: "paypal_search_recipients", arguments: { query: "Hannah Silva" } });
    const obs = step({
      type: "tool_call",
      name: "paypal_send_money",
      arguments: { recipient: "pp_rcp_103", amount: 240, memo: "concert tickets" },
    });
    expect(obs[GLOBAL_FEATURES.indexOf("write_unverified")]).toBe(1);
    const read = candidateIndexOf(env, { type: "tool_call", name: "paypal_get_transfer", arguments: { transfer_id: "pp_txn_1001" } });
    expect(obs[at("would_read_back_write") + read * c]).toBe(1);
    const after = step({ type: "tool_call", name: "paypal_get_transfer", arguments: { transfer_id: "pp_txn_1001" } });
    expect(after[GLOBAL_FEATURES.indexOf("write_confirmed")]).toBe(1);
    expect(after[GLOBAL_FEATURES.indexOf("write_unverified")]).toBe(0);
    env.close();
  });
});
