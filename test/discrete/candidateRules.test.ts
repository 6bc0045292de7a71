import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue, ToolSemantics } from "../../src/index.js";
import { type Candidate, candidates } from "../../src/engine/discrete/candidates.js";
import type { SeenTool } from "../../src/engine/discrete/source.js";
import { observableEpisode } from "../helpers/observableEpisode.js";
import { DiscreteToolEnv } from "../../src/engine/discrete/mode.js";
import { make } from "../../src/index.js";

/**
 * The candidate rules of the reachability pass (docs/DISCRETE.md, "Candidates"), each on a hand-built observable
 * episode: clock-time template views, per-service record ids, free counts, answer-format names, per-env default K.
 */

const LIMITS = { maxCandidates: 64, perTool: 16, perArgument: 8, answers: 32 };

function tool(name: string, properties: JsonObject, required: string[], semantics: ToolSemantics | null = null): SeenTool {
  return { name, parameters: { type: "object", properties, required } as never, semantics };
}

const episode = observableEpisode;

const callsOf = (list: Candidate[], name: string): JsonValue[] =>
  list.filter((c) => c.kind === "tool_call" && c.name === name).map((c) => (c.action as { arguments: JsonValue }).arguments);

describe("discrete candidates: rules of the reachability pass", () => {
  it("a {field:time} hole states the clock time of an ISO date-time, and only of values that have one", () => {
    const slots = tool("list_slots", {}, []);
    const ep = episode(
      [{ name: "content", target: "answer", template: "Done. time: {start:time}." }],
      [slots],
      [{ tool: "list_slots", arguments: {}, ok: true, response: { slots: [{ start: "2026-06-19T10:00:00Z" }, { start: "soon" }] } }],
    );
    const said = candidates(ep, LIMITS)
      .filter((c) => c.kind === "answer")
      .map((c) => (c.action as { content: string }).content);
    expect(said).toEqual(["Done. time: 10:00."]);
  });

  it("a response of one labelled service does not fill another service's tool", () => {
    const a = tool("a_search", { q: { type: "string" } }, ["q"], { label: "A" });
    const aBook = tool("a_book", { hotel: { type: "string" } }, ["hotel"], { label: "A" });
    const bBook = tool("b_book", { hotel: { type: "string" } }, ["hotel"], { label: "B" });
    const ep = episode(
      [{ name: "q", value: "Springfield" }],
      [a, aBook, bBook],
      [{ tool: "a_search", arguments: { q: "Springfield" }, ok: true, response: { results: [{ hotel_id: "a_htl_1" }] } }],
    );
    const list = candidates(ep, LIMITS);
    expect(callsOf(list, "a_book")).toContainEqual({ hotel: "a_htl_1" });
    expect(callsOf(list, "b_book")).not.toContainEqual({ hotel: "a_htl_1" });
  });

  it("free counts 1-10 only where no untargeted task parameter states the count", () => {
    const buy = tool("buy", { symbol: { type: "string" }, quantity: { type: "integer" } }, ["symbol", "quantity"]);
    const stated = candidates(
      episode(
        [
          { name: "symbol", value: "NVDA" },
          { name: "quantity", value: 12 },
        ],
        [buy],
      ),
      LIMITS,
    );
    expect(callsOf(stated, "buy")).toEqual([{ symbol: "NVDA", quantity: 12 }]);
    // Stated for one tool only (one of its calls, "a top 1 search"): the count stays open.
    const targeted = candidates(
      episode(
        [
          { name: "symbol", value: "NVDA" },
          { name: "quantity", target: "buy", value: 12 },
        ],
        [buy],
      ),
      LIMITS,
    );
    expect(callsOf(targeted, "buy")).toContainEqual({ symbol: "NVDA", quantity: 3 });
  });

  it("answers of several declared formats carry the format in their name; a single format keeps `answer`", () => {
    const two = candidates(
      episode(
        [
          { name: "content", target: "answer", value: "Done." },
          { name: "content", target: "answer", value: "I could not do it." },
        ],
        [],
      ),
      LIMITS,
    );
    expect(two.filter((c) => c.kind === "answer").map((c) => c.name)).toEqual(["answer:0", "answer:1"]);
    const one = candidates(episode([{ name: "content", target: "answer", value: "Done." }], []), LIMITS);
    expect(one.filter((c) => c.kind === "answer").map((c) => c.name)).toEqual(["answer"]);
  });

  it("an env's own default K applies when maxCandidates is not given, and entryOptions carry the K in use", () => {
    const pb = make("PlanBenchXL-v0", { world: "builtin", actionMode: "discrete" });
    expect(pb).toBeInstanceOf(DiscreteToolEnv);
    expect((pb as DiscreteToolEnv).maxCandidates).toBe(256);
    expect(pb.spec?.entryOptions).toMatchObject({ actionMode: "discrete", maxCandidates: 256 });
    const small = make("PlanBenchXL-v0", { world: "builtin", actionMode: "discrete", maxCandidates: 64 }) as DiscreteToolEnv;
    expect(small.maxCandidates).toBe(64);
    const demo = make("Demo-v0", { actionMode: "discrete" }) as DiscreteToolEnv;
    expect(demo.maxCandidates).toBe(64);
    for (const e of [pb, small, demo]) e.close();
  });
});
