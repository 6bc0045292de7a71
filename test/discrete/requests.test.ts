import { describe, expect, it } from "vitest";
import type { Task } from "../../envs/toolmaze/task/model.js";
import { type DiscreteToolEnv, type JsonObject, type JsonValue, make, type TaskParameter } from "../../src/index.js";
import { needsOf } from "../../src/engine/discrete/needs.js";
import type { ObservableEpisode, SeenCall, SeenTool } from "../../src/engine/discrete/source.js";
import { namedFeatures, observableEpisode } from "../helpers/observableEpisode.js";

/** A typed tool of a documented operation (two services' tools may share one). */
function tool(name: string, operation: string, ins: Record<string, string>, outs: Record<string, string>): SeenTool {
  const properties = Object.fromEntries(Object.keys(ins).map((k) => [k, { type: "string" as const }]));
  return {
    name,
    parameters: { type: "object", properties, required: Object.keys(ins) },
    semantics: { parameters: ins, outputs: outs, operation },
  };
}

/**
 * Two requests: (1) look up a contact's phone, then text it; (2) look up another contact's e-mail, then mail it.
 * Both lookups take a person; `texter` and `texter_b` are two services of one operation; `notes` is named by no
 * request.
 */
const TOOLS: SeenTool[] = [
  tool("phones", "directory_phone", { person: "person_name" }, { phone: "phone_number" }),
  tool("mails", "directory_email", { person: "person_name" }, { email: "email_address" }),
  tool("texter", "send_sms", { to: "phone_number", body: "message_text" }, { sms_id: "sms_id" }),
  tool("texter_b", "send_sms", { to: "phone_number", body: "message_text" }, { sms_id: "sms_id" }),
  tool("mailer", "send_email", { to: "email_address", body: "message_text" }, { mail_id: "mail_id" }),
  tool("notes", "add_note", { body: "message_text" }, { note_id: "note_id" }),
];
const PARAMS: TaskParameter[] = [
  { name: "person", type: "person_name", value: "Tom Becker" },
  { name: "person", type: "person_name", value: "Ana Diaz" },
  { name: "body", type: "message_text", value: "On my way." },
  { name: "body", type: "message_text", value: "See you." },
  {
    name: "request_1",
    target: "request",
    request: { steps: ["directory_phone", "send_sms"], goal: "send_sms", values: ["Tom Becker", "On my way."] },
  },
  {
    name: "request_2",
    target: "request",
    request: { steps: ["directory_email", "send_email"], goal: "send_email", values: ["Ana Diaz", "See you."] },
  },
  { name: "content", target: "answer", value: "All requested steps are complete." },
];
const LIMITS = { maxCandidates: 64, perTool: 8, perArgument: 8, answers: 4 };
const call = (t: string, args: JsonObject, ok: boolean, response: JsonValue): SeenCall => ({ tool: t, arguments: args, ok, response });

/** Each candidate's named features, keyed by `tool(arg values)`. */
const slots = (ep: ObservableEpisode) =>
  namedFeatures(
    ep,
    LIMITS,
    (cand) => `${cand.name}(${Object.values((cand.action as { arguments?: JsonObject }).arguments ?? {}).join(",")})`,
  );

describe("request features (requests.ts)", () => {
  it("marks the tools that complete a pending request and those no request names", () => {
    const { global, slot } = slots(observableEpisode(PARAMS, TOOLS));
    expect(global).toMatchObject({ requests_known: 1, requests_pending: 1 });
    expect(slot.get("phones(Tom Becker)")).toMatchObject({
      step_of_pending_request: 1,
      completes_pending_request: 0,
      step_of_no_request: 0,
    });
    expect(slot.get("notes(On my way.)")).toMatchObject({ step_of_no_request: 1, step_of_pending_request: 0 });
    // A lookup of request 2's person by request 1's tool: a literal the other request quotes.
    expect(slot.get("phones(Tom Becker)")).toMatchObject({ task_value_of_same_request: 1, task_value_of_other_request: 0 });
    expect(slot.get("phones(Ana Diaz)")).toMatchObject({ task_value_of_same_request: 0, task_value_of_other_request: 1 });
    expect(slot.get("abort()")?.completes_pending_request).toBe(0);
  });

  it("ties a response value to the request whose tool returned it; a done request's goal is no longer pending", () => {
    const phone = call("phones", { person: "Tom Becker" }, true, { phone: "+48 600 100 200" });
    const { slot } = slots(observableEpisode(PARAMS, TOOLS, [phone]));
    // Both services of send_sms complete request 1 and take the phone from request 1's lookup.
    for (const t of ["texter", "texter_b"]) {
      expect(slot.get(`${t}(+48 600 100 200,On my way.)`)).toMatchObject({
        completes_pending_request: 1,
        argument_from_same_request: 1,
        argument_from_other_request: 0,
      });
    }
    const mail = call("mails", { person: "Ana Diaz" }, true, { email: "ana@example.com" });
    const sent = call("texter", { to: "+48 600 100 200", body: "On my way." }, true, { sms_id: "s-1" });
    const later = slots(observableEpisode(PARAMS, TOOLS, [phone, mail, sent]));
    expect(later.global.requests_pending).toBe(0.5);
    expect(later.slot.get("texter_b(+48 600 100 200,On my way.)")).toMatchObject({
      completes_pending_request: 0,
      completes_done_request: 1,
      step_of_pending_request: 0,
    });
    expect(later.slot.get("mailer(ana@example.com,See you.)")).toMatchObject({
      completes_pending_request: 1,
      argument_from_same_request: 1,
      task_value_of_same_request: 1,
    });
    // A failed call completes nothing.
    const failed = call("mailer", { to: "ana@example.com", body: "See you." }, false, { error: { code: "unavailable" } });
    expect(slots(observableEpisode(PARAMS, TOOLS, [phone, mail, sent, failed])).global.requests_pending).toBe(0.5);
  });

  it("follows the request's order: the next step, a step that skips ahead, the value of the step named before", () => {
    const tools = [
      tool("search", "search_products", { query: "product_query" }, { list_price: "currency_amount", product_id: "product_id" }),
      tool("details", "product_details", { product_id: "product_id" }, { price: "currency_amount" }),
      tool("convert", "convert_price", { amount: "currency_amount", currency: "currency_code" }, { converted: "converted_amount" }),
    ];
    const params: TaskParameter[] = [
      { name: "query", type: "product_query", value: "robot vacuum" },
      { name: "currency", type: "currency_code", value: "EUR" },
      {
        name: "request_1",
        target: "request",
        request: { steps: ["search_products", "product_details", "convert_price"], goal: "convert_price", values: ["robot vacuum", "EUR"] },
      },
    ];
    const atReset = slots(observableEpisode(params, tools)).slot;
    expect(atReset.get("search(robot vacuum)")).toMatchObject({ next_step_of_request: 1, step_skips_ahead: 0 });
    const found = call("search", { query: "robot vacuum" }, true, { list_price: "175.48", product_id: "prd_1" });
    const afterSearch = slots(observableEpisode(params, tools, [found])).slot;
    expect(afterSearch.get("details(prd_1)")).toMatchObject({ next_step_of_request: 1, argument_from_previous_step: 1 });
    // Converting the search's list price skips the details step the request names in between.
    expect(afterSearch.get("convert(175.48,EUR)")).toMatchObject({
      next_step_of_request: 0,
      step_skips_ahead: 1,
      argument_from_previous_step: 0,
    });
    const detailed = call("details", { product_id: "prd_1" }, true, { price: "179.9" });
    const afterDetails = slots(observableEpisode(params, tools, [found, detailed])).slot;
    expect(afterDetails.get("convert(179.9,EUR)")).toMatchObject({
      next_step_of_request: 1,
      step_skips_ahead: 0,
      argument_from_previous_step: 1,
    });
    expect(afterDetails.get("convert(175.48,EUR)")).toMatchObject({ next_step_of_request: 1, argument_from_previous_step: 0 });
    expect(afterDetails.get("search(robot vacuum)")).toMatchObject({ next_step_of_request: 0, step_skips_ahead: 0 });
  });

  it("a final step that answered an implausible value leaves its request pending and says so", () => {
    const phone = call("phones", { person: "Tom Becker" }, true, { phone: "+48 600 100 200" });
    const leaked = call("texter", { to: "+48 600 100 200", body: "On my way." }, true, { sms_id: "Traceback (most recent call last)" });
    const ep = {
      ...observableEpisode(PARAMS, TOOLS, [phone, leaked]),
      suspicious: (_f: string, v: JsonValue) => String(v).startsWith("Traceback"),
    };
    const { global, slot } = slots(ep);
    expect(global).toMatchObject({ requests_pending: 1, request_goal_suspicious: 1 });
    expect(slot.get("texter_b(+48 600 100 200,On my way.)")).toMatchObject({ completes_pending_request: 1, completes_done_request: 0 });
    const clean = call("texter_b", { to: "+48 600 100 200", body: "On my way." }, true, { sms_id: "s-2" });
    expect(slots({ ...ep, calls: [phone, leaked, clean] }).global).toMatchObject({ requests_pending: 0.5, request_goal_suspicious: 0 });
  });

  it("a request is blocked when a step's tools are spent (two bad calls each) and nothing else returns its types", () => {
    const down = (t: string) => call(t, { person: "Tom Becker" }, false, { error: { status: 404 } });
    const one = slots(observableEpisode(PARAMS, TOOLS, [down("phones")])).global;
    expect(one.request_blocked).toBe(0);
    const two = slots(observableEpisode(PARAMS, TOOLS, [down("phones"), down("phones")])).global;
    expect(two.request_blocked).toBe(1);
    // Another visible tool that returns a phone number is a way around.
    const alt = tool("okta", "user_phone", { person: "person_name" }, { mobile: "phone_number" });
    expect(slots(observableEpisode(PARAMS, [...TOOLS, alt], [down("phones"), down("phones")])).global.request_blocked).toBe(0);
  });

  it("flags a task literal bound to an argument the task names it for otherwise (KRK is the destination)", () => {
    const tools = [
      tool("airport", "resolve_airport", { city: "city" }, { iata: "iata_code" }),
      tool("flights", "search_flights", { origin: "iata_code", destination: "iata_code" }, { offer: "flight_offer_id" }),
    ];
    const params: TaskParameter[] = [
      { name: "city", type: "city", value: "Dublin" },
      { name: "destination", type: "iata_code", value: "KRK" },
    ];
    const found = call("airport", { city: "Dublin" }, true, { iata: "DUB" });
    const { slot } = slots(observableEpisode(params, tools, [found]));
    expect(slot.get("flights(DUB,KRK)")?.task_value_named_for_other_argument).toBe(0);
    expect(slot.get("flights(KRK,DUB)")?.task_value_named_for_other_argument).toBe(1);
    // A literal bound to the argument it is named for is never flagged.
    expect(slot.get("airport(Dublin)")?.task_value_named_for_other_argument).toBe(0);
  });

  it("the needs features take the stated goals instead of every reachable sink", () => {
    const n = needsOf(observableEpisode(PARAMS, TOOLS));
    // `notes` is a reachable sink too, but no request asks for it.
    expect(n.goals).toEqual(new Set(["texter", "texter_b", "mailer"]));
    const withoutRequests = PARAMS.filter((p) => p.target !== "request");
    expect(needsOf(observableEpisode(withoutRequests, TOOLS)).goals.has("notes")).toBe(false);
    const phone = call("texter_b", { to: "+1", body: "On my way." }, true, { sms_id: "s-1" });
    expect(needsOf(observableEpisode(PARAMS, TOOLS, [phone])).pending).toEqual(new Set(["mailer"]));
  });

  it("tasks that state no requests give zeros", () => {
    const { global, slot } = slots(observableEpisode(PARAMS.slice(0, 4), TOOLS));
    expect(global).toMatchObject({ requests_known: 0, requests_pending: 0, request_goal_suspicious: 0, request_blocked: 0 });
    for (const s of slot.values()) expect(s.step_of_no_request + s.completes_pending_request + s.task_value_of_other_request).toBe(0);
  });

  it("ToolMaze states each request's steps, final step and quoted values as the prompt does", () => {
    const env = make("ToolMaze-v0", { suite: "sampled", actionMode: "discrete" }) as unknown as DiscreteToolEnv;
    let multi = 0;
    for (let seed = 100000; seed < 100040; seed++) {
      env.inner.reset({ seed });
      const ep = env.inner.observableEpisode() as ObservableEpisode;
      const requests = ep.parameters.flatMap((p) => (p.request ? [p.request] : []));
      // The task (hidden truth) is read here only to check the data, which the features see.
      const task = (env.inner as unknown as { task: Task }).task;
      expect(requests.length).toBe(task.slots.length);
      if (requests.length > 1) multi += 1;
      // The prompt the agent reads is the task's text.
      const prompt = task.text;
      for (const r of requests) {
        expect(r.steps).toContain(r.goal);
        for (const v of r.values) expect(prompt).toContain(String(v));
      }
      // The stated goals are exactly the tools of each request's final step: no reachable sink beside them.
      const truth = new Set(task.slots.flatMap((s) => task.positions.find((p) => p.index === s.goal)!.members));
      expect(needsOf(ep).goals).toEqual(truth);
    }
    expect(multi).toBeGreaterThan(0);
  });
});
