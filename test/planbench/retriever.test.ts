import { describe, expect, it } from "vitest";
import { createWorld, encode, features, noisySeed, PlanBenchEpisode, shuffleSeedMaterial } from "../../envs/planbench/world/index.js";
import { loadPreset } from "../../envs/planbench/settings.js";
import { blake2bInt } from "../../envs/planbench/compat/index.js";
import { normalizeAliases } from "../../envs/planbench/world/retriever.js";
import { officialRelease } from "./helpers.js";

const rel = officialRelease();

describe("hashing encoder", () => {
  it("encodes user_id into the reference buckets", () => {
    expect(features("user_id")).toHaveLength(12);
    const v = encode("user_id");
    expect([...v.idx].sort((a, b) => a - b)).toEqual([109, 207, 216, 278, 335, 341, 355, 425, 462, 473, 487, 503]);
    for (const w of v.val) expect(w).toBeCloseTo(1 / Math.sqrt(12), 15);
    // Python pads even an empty string, so "   " still has two trigram features.
    expect(features("   ")).toEqual(["char::   ", "char::   "]);
  });
});

describe.skipIf(!rel)("retriever on the official datatypes", () => {
  const world = rel ? createWorld(rel, loadPreset("default")) : null!;
  it("maps the reference phrases to the reference datatypes and scores", () => {
    const cases: Array<[string, string, number]> = [
      ["funding account reference", "account_number", 1.0],
      ["xyzzy", "user_name", 0.25],
      ["order", "order_id", 0.686],
      ["status", "snapshot_status", 0.727],
      ["name", "product_name", 0.661],
      ["price", "proposed_unit_price", 0.657],
      ["payment", "payment_intent_id", 0.791],
      ["the shipment for this delivery", "attempt_status", 0.636],
    ];
    for (const [p, dt, s] of cases) {
      const m = world.retriever.match(p);
      expect(m.dt).toBe(dt);
      expect(m.score).toBeCloseTo(s, 3);
    }
  });
  it("maps every alias string back to its own datatype", () => {
    let n = 0;
    for (const d of rel!.datatypes) {
      for (const a of normalizeAliases([d.name, d.name.replaceAll("_", " "), ...d.aliases])) {
        expect(world.retriever.match(a).dt, a).toBe(d.name);
        n++;
      }
    }
    expect(n).toBeGreaterThan(400);
  });
  it("reproduces query 0001's noisy seed and final retrieval orders (default)", () => {
    const labels = [
      "get_outbound_shipment_id_from_attempt_record_id_v2:baseline:1",
      "get_shipment_record_id_from_warehouse_job_id_prime:baseline:1",
    ];
    expect(noisySeed("retail", 10, labels)).toBe(286771044457843291932060607492552681038n);
    const q = rel!.queries.find((x) => x.query_id === "retail_query_0001")!;
    const ep = new PlanBenchEpisode(world, q);
    const io = ep.step({
      kind: "text",
      text: '<retrieve_tools>{"meta_tool":"by_io_info","output_information":"order","input_information":["shipment"]}</retrieve_tools>',
    });
    const base = "get_placed_order_id_from_shipment_reference_quick";
    expect(io.listed!.map((t) => t.name)).toEqual([
      `${base}_legacy`,
      `${base}_preview`,
      base,
      `${base}_cache`,
      `${base}_signal`,
      `${base}_gate`,
    ]);
    const seedIo = blake2bInt(shuffleSeedMaterial(42, q.task_id, q.query_id, io.entry.request as never, ep.lastPreShuffle), 16);
    expect(seedIo).toBe(124223153686185989293642865538394977046n);
    const out = ep.step({
      kind: "text",
      text: '<retrieve_tools>{"meta_tool":"by_output_info","output_information":"shipment"}</retrieve_tools>',
    });
    const a = "get_outbound_shipment_id_from_attempt_record_id_v2";
    const w = "get_shipment_record_id_from_warehouse_job_id_prime";
    expect(out.listed!.map((t) => t.name)).toEqual([
      `${a}_preview`,
      `${w}_cache`,
      `${w}_gate`,
      `${w}_signal`,
      `${a}_signal`,
      `${w}_preview`,
      `${a}_gate`,
      `${a}_legacy`,
      `${a}_cache`,
      `${w}_legacy`,
      w,
      a,
    ]);
  });
  it("reproduces query 0001's blocker-config list for by_inputs 'warehouse request'", () => {
    const bw = createWorld(rel!, loadPreset("blocker"));
    const q = rel!.queries.find((x) => x.query_id === "retail_query_0001")!;
    const ep = new PlanBenchEpisode(bw, q);
    const o = ep.step({ kind: "retrieve", request: { meta_tool: "by_inputs", input_information: ["warehouse request"] } });
    const names = o.listed!.map((t) => t.name);
    expect(names).toHaveLength(30);
    expect(o.listed!.filter((t) => t.tool_type === "noisy_misleading")).toHaveLength(19);
    expect(o.listed!.filter((t) => t.tool_type === "blocker_misleading")).toHaveLength(6);
    expect(names[0]).toMatch(/fulfillment_max_legacy$/);
    expect(names[1]).toBe("get_pricing_snapshot_tag_from_warehouse_job_id_enterpri");
    expect(names[2]).toBe("get_order_status_from_warehouse_request_reference_v2");
    expect(names[3]).toMatch(/quote_from_fulfillment_enterprise_gate$/);
  });
});
