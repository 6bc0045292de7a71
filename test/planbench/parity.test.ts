/**
 * Issue 20: the last differences to the official runtime (JiayuJeff/PlanBench-XL @ a0dacc2). Every expected value
 * below comes from the official code path named next to it, evaluated with CPython 3.11 (the Python expression is
 * quoted); the official-data cases skip cleanly without ../shared/planbench-xl.
 */
import { describe, expect, it } from "vitest";
import { parsePyJson, type PyFloat, pyJsonDumps, pystr } from "../../envs/planbench/compat/index.js";
import { loadPreset, mergeSettings } from "../../envs/planbench/settings.js";
import { createWorld, extractAction, messages, PlanBenchEpisode } from "../../envs/planbench/world/index.js";
import { sampleSequence } from "../../envs/planbench/sampling.js";
import { scoreEpisode, aggregateMetrics } from "../../envs/planbench/scorer.js";
import { make as makeAny } from "../../src/index.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { miniRelease } from "./mini.js";
import { officialRelease } from "./helpers.js";

const make = (id: string, opts: Record<string, unknown>): PlanBenchEnv => makeAny(id, opts) as unknown as PlanBenchEnv;
const rel = miniRelease();
const q = rel.queries[0]!;
const fresh = (over?: Parameters<typeof mergeSettings>[1]): PlanBenchEpisode =>
  new PlanBenchEpisode(createWorld(rel, mergeSettings(loadPreset("default"), over)), q);
const call = (json: string): { kind: "text"; text: string } => ({ kind: "text", text: `<tool_call>${json}</tool_call>` });
const RETRIEVE = { kind: "retrieve" as const, request: { meta_tool: "by_inputs", input_information: ["ticket_id"] } };

describe("wrong-arguments message: the provided keys as Python's str(list(arguments))", () => {
  // runner.py#_handle_tool_call renders `provided_arguments=list(arguments)` with str(); expected = `str([k])`.
  const cases: Array<[string, string]> = [
    ["it's", `["it's"]`],
    ["é\n", `['é\\n']`],
    ['say "hi"', `['say "hi"']`],
    [`both ' and "`, `['both \\' and "']`],
    ["tab\t", `['tab\\t']`],
    ["nul\x00", `['nul\\x00']`],
    ["zw\u200b", `['zw\\u200b']`],
    ["bom\ufeff", `['bom\\ufeff']`],
    ["del\x7f", `['del\\x7f']`],
    ["nbsp\xa0", `['nbsp\\xa0']`],
    ["emoji😀", `['emoji😀']`],
    ["\\back", `['\\\\back']`],
    ["line\u2028", `['line\\u2028']`],
    ["priv\ue000", `['priv\\ue000']`],
    ["ctl\x85", `['ctl\\x85']`],
    ["\u{e0001}tag", `['\\U000e0001tag']`],
  ];
  it.each(cases)("%j -> %s", (key, expected) => {
    expect(messages.pyListRepr([key])).toBe(expected);
  });
  it('keeps the agent\'s key order (Python: str(list(json.loads(\'{"b": 1, "a": 2, "it\\\'s": 3}\'))))', () => {
    const ep = fresh();
    ep.step(RETRIEVE);
    const o = ep.step(call(`{"name": "get_order_from_ticket", "arguments": {"b": 1, "a": 2, "it's": 3}}`));
    expect(o.entry.error_kind).toBe("wrong_arguments");
    expect(o.feedback).toContain(`['b', 'a', "it's"]`);
  });
});

describe("exotic model output parsed as Python parses it", () => {
  it("tags spelled with Turkish İ / ı or the long s are actions (re.IGNORECASE, sre_compile._equivalences)", () => {
    // [c for c in map(chr, range(0x110000)) if re.fullmatch('i', c, re.I)] == ['I', 'i', 'İ', 'ı']; 's' adds 'ſ'.
    expect(extractAction("<fİnal_answer>42</fınal_answer>")).toEqual({ tag: "final_answer", content: "42" });
    expect(extractAction("<retrieve_tooLſ>{}</RETRİEVE_TOOLS>")).toEqual({ tag: "retrieve_tools", content: "{}" });
    expect(extractAction("<tool_call>{}</TOOL_CALL>")).toEqual({ tag: "tool_call", content: "{}" });
    // Neither Python nor we fold other look-alikes (Cyrillic і U+0456 is its own letter).
    expect(extractAction("<f\u0456nal_answer>42</final_answer>")).toBeNull();
    // Two tags, one of them in Turkish spelling: the count is 2, a label error in Python too.
    expect(extractAction("<final_answer>1</final_answer><fİnal_answer>2</final_answer>")).toBeNull();
  });

  it("accepts NaN / Infinity / -Infinity as json.loads does, so such a call executes (ITCR unchanged)", () => {
    // json.loads('{"a": NaN, "b": Infinity, "c": -Infinity}') == {'a': nan, 'b': inf, 'c': -inf}
    const v = parsePyJson('{"a": NaN, "b": Infinity, "c": -Infinity, "d": [-Infinity]}') as Record<string, PyFloat | PyFloat[]>;
    expect([(v["a"] as PyFloat).value, (v["b"] as PyFloat).value, (v["c"] as PyFloat).value]).toEqual([NaN, Infinity, -Infinity]);
    expect(pystr(v["a"])).toBe("nan");
    expect(() => parsePyJson("-NaN")).toThrow();
    expect(() => parsePyJson("nan")).toThrow();
    const ep = fresh();
    ep.step(RETRIEVE);
    const o = ep.step(call('{"name": "get_order_from_ticket", "arguments": {"ticket_ref": NaN}}'));
    // The lookup runs and finds nothing: "Error: no result exists ... ticket_ref=NaN" (json.dumps(float('nan')) == 'NaN').
    expect(o.entry.parse_ok).toBe(true);
    expect(o.entry.tool_result?.output_provenance).toBe("none");
    expect(o.feedback).toContain("ticket_ref=NaN.");
    expect(ep.callExecs).toBe(1);
    ep.step({ kind: "answer", content: "x" });
    const m = scoreEpisode(ep.result!, q, rel.catalog.get(q.task_id)!, { toolByName: rel.toolByName });
    expect(m.invalidCalls).toBe(0);
  });

  it("echoes integers above 2^53 exactly (json.dumps(json.loads('123456789012345678901234567890')))", () => {
    const big = "123456789012345678901234567890";
    expect(pyJsonDumps(parsePyJson(big))).toBe(big);
    expect(pystr(parsePyJson("9007199254740993"))).toBe("9007199254740993");
    expect(parsePyJson("9007199254740991")).toBe(9007199254740991);
    const ep = fresh();
    ep.step(RETRIEVE);
    const o = ep.step(call(`{"name": "get_order_from_ticket", "arguments": {"ticket_ref": ${big}}}`));
    expect(o.feedback).toContain(`ticket_ref=${big}.`);
    expect(o.feedback).toContain(`"ticket_ref": ${big}`);
    expect(o.feedback).not.toContain("e+29");
  });

  it("survives getState / setState with a big int and a float in the trace", () => {
    const env = make("PlanBenchXL-v0", { world: "builtin" });
    env.reset({ seed: 3 });
    env.step({
      type: "text",
      text: '<tool_call>{"name": "x", "arguments": {"a": 123456789012345678901234567890, "b": 1.0}}</tool_call>',
    } as never);
    const st = env.getState();
    const twin = make("PlanBenchXL-v0", { world: "builtin" });
    twin.setState(JSON.parse(JSON.stringify(st)));
    const a = env.step({ type: "text", text: "<final_answer>x</final_answer>" } as never);
    const b = twin.step({ type: "text", text: "<final_answer>x</final_answer>" } as never);
    expect(JSON.stringify(b[4])).toBe(JSON.stringify(a[4]));
    env.close();
    twin.close();
  });
});

describe.skipIf(!officialRelease())("a byte-order mark in a retrieval phrase is kept (Python str.strip keeps U+FEFF)", () => {
  it("maps '\\ufefforder' to order_draft_id and 'order' to order_id, as SemanticRetriever._match_top1_datatype", () => {
    // Official retriever on the shipped datatypes.json: '\ufefforder'.strip() == '\ufefforder' -> order_draft_id;
    // 'order' -> order_id; '\ufeffshipment' -> shipment_id; 'payment\ufeff' -> payment_id.
    const world = createWorld(officialRelease()!, loadPreset("default"));
    const m = (p: string): string | null =>
      world.retriever.retrieve({ domain: "retail", meta_tool: "by_output_info", output_information: p }).matchedOutput;
    expect(m("\ufefforder")).toBe("order_draft_id");
    expect(m("order")).toBe("order_id");
    expect(m("\ufeffshipment")).toBe("shipment_id");
    expect(m("payment\ufeff")).toBe("payment_id");
  });
});

describe("tool-ID mode (capabilities.tool_id_calling)", () => {
  it("numbers tools per query in shown order, keeps ids across retrievals, and lets tool_id override name", () => {
    const ep = fresh({ capabilities: { tool_id_calling: true } });
    const r1 = ep.step(RETRIEVE);
    const shown = r1.listed!.map((t) => t.name);
    // runner.py#_attach_tool_ids: new names get T<n> in final-list order; the trace payload starts with tool_id.
    expect(r1.entry.retrieval_result!.tools.map((t) => t.tool_id)).toEqual(shown.map((_, i) => `T${i + 1}`));
    expect(Object.keys(r1.entry.retrieval_result!.tools[0]!)[0]).toBe("tool_id");
    expect(r1.feedback).toContain(`"tool_id": "T1"`);
    const r2 = ep.step({ kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["ticket_id"] } });
    expect(r2.entry.retrieval_result!.tools.map((t) => t.tool_id)).toEqual(r1.entry.retrieval_result!.tools.map((t) => t.tool_id));
    const baselineId = `T${shown.indexOf("get_order_from_ticket") + 1}`;
    // A known tool_id overrides name; the echoed request keeps the payload's key order with name and tool_id resolved.
    const o = ep.step({ kind: "call", payload: { name: "bogus", tool_id: baselineId, arguments: { ticket_ref: "tk_1" } } });
    expect(o.execution!.outputValue).toBe("ord_1");
    expect(Object.entries(o.entry.request as object)).toEqual([
      ["name", "get_order_from_ticket"],
      ["tool_id", baselineId],
      ["arguments", { ticket_ref: "tk_1" }],
    ]);
    // A name alone still works, and the echo gains the tool's id.
    const byName = ep.step({ kind: "call", payload: { name: "get_order_from_ticket", arguments: { ticket_ref: "tk_1" } } });
    expect((byName.entry.request as Record<string, unknown>)["tool_id"]).toBe(baselineId);
    const unknown = ep.step({ kind: "call", payload: { tool_id: "T99", arguments: {} } });
    expect(unknown.entry.error_kind).toBe("not_retrieved");
  });
  it("without the capability a tool_id is not resolved and nothing is numbered", () => {
    const ep = fresh();
    const r1 = ep.step(RETRIEVE);
    expect(r1.entry.retrieval_result!.tools.every((t) => t.tool_id === undefined)).toBe(true);
    expect(ep.step({ kind: "call", payload: { tool_id: "T1", arguments: { ticket_ref: "tk_1" } } }).entry.error_kind).toBe("not_retrieved");
  });
  it("keeps the ids through getState / setState", () => {
    const opts = { world: "builtin", settings: { capabilities: { tool_id_calling: true } } };
    const env = make("PlanBenchXL-v0", opts);
    env.reset({ seed: 1 });
    env.step({ type: "retrieve", meta_tool: "by_output_info", output_information: "order" } as never);
    const twin = make("PlanBenchXL-v0", opts);
    twin.setState(env.getState());
    const a = env.step({ type: "retrieve", meta_tool: "by_output_info", output_information: "payment" } as never);
    const b = twin.step({ type: "retrieve", meta_tool: "by_output_info", output_information: "payment" } as never);
    expect(JSON.stringify(b[0])).toBe(JSON.stringify(a[0]));
    expect((a[0] as unknown as { response: { feedback: string } }).response.feedback).toContain('"tool_id": "T');
    env.close();
    twin.close();
  });
});

describe("query_sample: the official seeded CPython sample, file order kept", () => {
  it("matches core/sampling.py#sample_sequence", () => {
    // sample_sequence(list(range(10)), 3, 42) == [0, 1, 4]; sample_sequence(list(range(100)), 7, 1) == [8, 15, 17, 32, 63, 72, 97]
    expect(sampleSequence([...Array(10).keys()], 3, 42)).toEqual([0, 1, 4]);
    expect(sampleSequence([...Array(100).keys()], 7, 1)).toEqual([8, 15, 17, 32, 63, 72, 97]);
    expect(sampleSequence([1, 2], null, 42)).toEqual([1, 2]);
    expect(() => sampleSequence([1, 2], 3, 42)).toThrow(/query_sample\.size 3 exceeds/);
  });
  it.skipIf(!officialRelease())("restricts the episode pool to the sampled queries of the release", () => {
    // sample_sequence(json.load(open('queries.json')), 5, 42) on the shipped 227-query subset.
    const env = make("PlanBenchXL-v0", { cycle: true, settings: { query_sample: { size: 5, seed: 42 } } });
    const ids = [0, 1, 2, 3, 4].map((seed) => (env.reset({ seed })[1] as { taskId?: string }).taskId);
    expect(ids).toEqual(["retail_query_0010", "retail_query_0036", "retail_query_0097", "retail_query_0244", "retail_query_0277"]);
    env.close();
    expect(() => make("PlanBenchXL-v0", { settings: { query_sample: { size: 100000 } } })).toThrow(/query_sample\.size/);
  });
});

describe.skipIf(!officialRelease())("ambiguous lookup: in-episode error by default, the official crash under compat 'official'", () => {
  const off = officialRelease()!;
  const setup = (compat: "fixed" | "official"): { ep: PlanBenchEpisode; call: () => ReturnType<PlanBenchEpisode["step"]> } => {
    const world = createWorld(off, loadPreset("default"));
    const tool = off.baselineTools.find((t) => t.input_datatypes.join() === "shipment_id" && t.output_datatype === "order_id")!;
    const qq = off.queries.find((x) => x.input_datatypes.includes("delivery_attempt_id"))!;
    const ep = new PlanBenchEpisode(world, qq, compat);
    ep.currentDatatypes.add("shipment_id");
    ep.step({ kind: "retrieve", request: { meta_tool: "by_io_info", output_information: "order_id", input_information: ["shipment_id"] } });
    const arg = Object.keys(tool.surface_argument_to_datatype)[0]!;
    return { ep, call: () => ep.step({ kind: "call", payload: { name: tool.name, arguments: { [arg]: null } } }) };
  };
  it("fixed: the episode goes on; the call counts as invalid", () => {
    const { ep, call: c } = setup("fixed");
    const o = c();
    expect(o.done).toBe(false);
    expect(ep.callErrors).toBe(1);
  });
  it("official: the episode ends unevaluated, and the report leaves it out as evaluate.py does", () => {
    // executor.py raises RuntimeError; the thread dies, the query keeps no final_result, and evaluate.py's
    // load_results never sees it: evaluated_count excludes it (unevaluated_count = query_count - evaluated_count).
    const { ep, call: c } = setup("official");
    const o = c();
    expect(o.done).toBe(true);
    expect(o.feedback).toBeNull();
    expect(ep.result!.stop_reason).toBe("runtime_error");
    const ctx = { toolByName: off.toolByName };
    const crashed = scoreEpisode(ep.result!, ep.query, off.catalog.get(ep.query.task_id) ?? [], ctx);
    expect(crashed["evaluated"]).toBe(0);
    const ok = { ...crashed, evaluated: null, success: 1, turns: 4 };
    delete (ok as Record<string, unknown>)["evaluated"];
    const rep = aggregateMetrics([crashed, ok]);
    expect(rep.episodes).toBe(1);
    expect(rep.accuracy).toBe(1);
    expect(rep.totalTurns).toBe(4);
    expect(rep["unevaluated"]).toBe(1);
  });
  it("through the env: terminated as unevaluated_runtime_error under 'official', an error response under 'fixed'", () => {
    const qq = off.queries.find((x) => x.input_datatypes.length === 1 && x.input_datatypes[0] === "shipment_id")!;
    const tool = off.baselineTools.find((t) => t.input_datatypes.join() === "shipment_id" && t.output_datatype === "order_id")!;
    const arg = Object.keys(tool.surface_argument_to_datatype)[0]!;
    const play = (compat: "fixed" | "official"): { terminated: boolean; reason: unknown; metrics: unknown } => {
      const env = make("PlanBenchXL-v0", { compat, queryIds: [qq.query_id] });
      env.reset({ seed: 0 });
      env.step({ type: "retrieve", meta_tool: "by_io_info", output_information: "order_id", input_information: ["shipment_id"] } as never);
      const [, , terminated, , info] = env.step({ type: "tool_call", name: tool.name, arguments: { [arg]: "None" } } as never);
      env.close();
      return {
        terminated,
        reason: (info as Record<string, unknown>)["terminationReason"],
        metrics: (info as Record<string, unknown>)["metrics"],
      };
    };
    const official = play("official");
    expect(official.terminated).toBe(true);
    expect(official.reason).toBe("unevaluated_runtime_error");
    expect((official.metrics as Record<string, unknown>)["evaluated"]).toBe(0);
    const fixed = play("fixed");
    expect(fixed.terminated).toBe(false);
    expect(() => make("PlanBenchXL-v0", { compat: "bogus" })).toThrow(/compat/);
  });
});
