import { describe, expect, it } from "vitest";
import { type DiscreteObservation, DiscreteToolEnv, make, type ToolEnv } from "../../src/index.js";
import { QUOTE_SPEC as spec, QuoteEnv } from "../helpers/quoteEnv.js";

const text = (o: DiscreteObservation) => `${Array.from(o.observation).join(",")}|${Array.from(o.action_mask).join("")}`;

describe("discrete mode: no leakage of hidden truth", () => {
  it("a silently corrupted and a clean response with identical observable histories give identical observations and masks", () => {
    const clean = new DiscreteToolEnv(new QuoteEnv("clean", spec) as unknown as ToolEnv<unknown>, 12, spec);
    const dirty = new DiscreteToolEnv(new QuoteEnv("silent", spec) as unknown as ToolEnv<unknown>, 12, spec);
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
      // The second fetch is a `retry` event only where the fault fired (hidden; it costs no retry budget there).
      if (JSON.stringify(sa.events) !== JSON.stringify(sb.events)) sawHiddenDifference = true;
      expect(dirty.structuredObservation()).toEqual(clean.structuredObservation());
      expect(text(b)).toBe(text(a));
      expect(tb).toBe(ta);
      if (ta) break;
    }
    // The two worlds did differ underneath (fault events, taint, retry events).
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
