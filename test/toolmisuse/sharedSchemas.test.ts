import { describe, expect, it } from "vitest";
import { make } from "../../src/index.js";
import type { ToolObservation } from "../../src/engine/observation.js";

// A bridge session recognises an already-sent schema by identity: rebuilt definitions would cost it a deep
// comparison per schema and step, so this fails if a definition is built per episode again.
describe("ToolMisuseBench-v0 tool definitions are shared between episodes", () => {
  it("episodes with the same toolset, domain and mode hand out the same frozen schema objects", () => {
    const env = make("ToolMisuseBench-v0", { split: "dev" });
    const byDomain = new Map<string, ToolObservation["newTools"]>();
    let shared = 0;
    for (let seed = 0; seed < 12; seed++) {
      const [o, info] = env.reset({ seed });
      const tools = (o as unknown as ToolObservation).newTools;
      const domain = String((info.hidden as { domain: string }).domain);
      const seen = byDomain.get(domain);
      if (seen === undefined) byDomain.set(domain, tools);
      else {
        expect(tools.length).toBe(seen.length);
        tools.forEach((t, i) => expect(t).toBe(seen[i]));
        shared++;
      }
      for (const t of tools) expect(Object.isFrozen(t) && Object.isFrozen(t.parameters)).toBe(true);
    }
    expect(shared).toBeGreaterThan(0);
  });
});
