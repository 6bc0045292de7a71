import { describe, expect, it } from "vitest";
import {
  type DiscreteObservation,
  DiscreteToolEnv,
  type EnvSpec,
  type EpisodeSetup,
  type FaultSpec,
  type JsonSchema,
  make,
  type Rng,
  ToolEnv,
  type ToolEnvOptions,
  toolEnvOptionsSchema,
} from "../../src/index.js";

/**
 * A quote service whose `fetch_quote` may be silently corrupted by a `replace` fault that happens to answer exactly
 * what the clean service answers: the hidden truth differs (a fault fired, the response is tainted, a retry is
 * counted), the observable history does not. Also a second tool whose output is marked untrusted in one world.
 */
class QuoteEnv extends ToolEnv<null> {
  constructor(
    private readonly corrupt: boolean,
    spec: EnvSpec,
  ) {
    super({ family: "test", maxEpisodeSteps: 8 }, toolEnvOptionsSchema.parse({}) as ToolEnvOptions, spec);
  }
  protected createEpisode(_rng: Rng): EpisodeSetup<null> {
    const quote = { symbol: "ACME", price: 42.5 };
    const faults: FaultSpec[] = this.corrupt
      ? [
          {
            id: "silent",
            kind: "silent_copy",
            visibility: "implicit",
            persistence: { type: "permanent" },
            trigger: { tools: ["fetch_quote"] },
            effect: { type: "replace", output: quote },
          },
        ]
      : [];
    const symbol: JsonSchema = { type: "object", properties: { symbol: { type: "string" } }, required: ["symbol"] };
    const quoteTypes = { parameters: { symbol: "ticker" }, outputs: { symbol: "ticker", price: "price" } };
    const order: JsonSchema = {
      type: "object",
      properties: { symbol: { type: "string" }, price: { type: "number" } },
      required: ["symbol", "price"],
    };
    return {
      taskId: "quote",
      prompt: "Fetch the ACME quote and place an order at that price.",
      tools: [
        { name: "fetch_quote", description: "quote", parameters: symbol, semantics: quoteTypes, run: () => ({ ok: true, output: quote }) },
        {
          name: "mirror_quote",
          description: "quote mirror",
          parameters: symbol,
          semantics: quoteTypes,
          run: () => (this.corrupt ? { ok: true, output: quote, taint: "untrusted" } : { ok: true, output: quote }),
        },
        {
          name: "place_order",
          description: "order",
          parameters: order,
          semantics: { parameters: { symbol: "ticker", price: "price" } },
          run: () => ({ ok: true, output: { order_id: "o-1" } }),
        },
      ],
      visible: ["fetch_quote", "mirror_quote", "place_order"],
      world: null,
      faults,
      budgets: { toolCalls: 6, retries: 1 },
      parameters: [{ name: "symbol", type: "ticker", value: "ACME" }],
      hidden: { corrupted: this.corrupt },
    };
  }
}

const spec: EnvSpec = { id: "Quote-v0", entryOptions: {}, maxEpisodeSteps: 8, libraryVersion: "test" };
const text = (o: DiscreteObservation) => `${Array.from(o.observation).join(",")}|${Array.from(o.action_mask).join("")}`;

describe("discrete mode: no leakage of hidden truth", () => {
  it("a silently corrupted and a clean response with identical observable histories give identical observations and masks", () => {
    const clean = new DiscreteToolEnv(new QuoteEnv(false, spec) as unknown as ToolEnv<unknown>, 12, spec);
    const dirty = new DiscreteToolEnv(new QuoteEnv(true, spec) as unknown as ToolEnv<unknown>, 12, spec);
    const [a0, ia] = clean.reset({ seed: 1 });
    const [b0, ib] = dirty.reset({ seed: 1 });
    expect(ia.hidden).not.toEqual(ib.hidden);
    expect(text(b0)).toBe(text(a0));
    // fetch, fetch again (a "retry" only in the corrupted world), mirror (untrusted there), then order at the price.
    const plan = ["fetch_quote", "fetch_quote", "mirror_quote", "place_order"];
    let sawHiddenDifference = false;
    for (const tool of plan) {
      const slot = clean.candidateActions().findIndex((c) => c.type === "tool_call" && c.name === tool);
      expect(slot).toBeGreaterThanOrEqual(0);
      expect(dirty.candidateActions()).toEqual(clean.candidateActions());
      const [a, , ta, , sa] = clean.step(slot);
      const [b, , tb, , sb] = dirty.step(slot);
      if (JSON.stringify(sa.events) !== JSON.stringify(sb.events)) sawHiddenDifference = true;
      // The engine counts the second fetch as a retry only where the fault fired: the structured observation's
      // retry budget shows it, the discrete features (which count observable retries) must not.
      if (clean.structuredObservation()?.budget.retries !== dirty.structuredObservation()?.budget.retries) sawHiddenDifference = true;
      expect(text(b)).toBe(text(a));
      expect(tb).toBe(ta);
      if (ta) break;
    }
    // The two worlds did differ underneath (fault events, taint, retry counting).
    expect(sawHiddenDifference).toBe(true);
  });

  it("ToolMaze: an instance and its perturbed twin look the same until the fault shows", () => {
    // Canonical instances 5k..5k+4 are one base task under NP, P1..P4: same tools, same parameters.
    const a = make("ToolMaze-v0", { actionMode: "discrete", taskIndex: 40 }) as unknown as DiscreteToolEnv;
    const b = make("ToolMaze-v0", { actionMode: "discrete", taskIndex: 43 }) as unknown as DiscreteToolEnv;
    const [oa, ia] = a.reset({ seed: 0 });
    const [ob, ib] = b.reset({ seed: 0 });
    expect((ia.hidden as { perturbation: string }).perturbation).not.toBe((ib.hidden as { perturbation: string }).perturbation);
    expect(text(ob)).toBe(text(oa));
    expect(b.candidateActions()).toEqual(a.candidateActions());
  });
});
