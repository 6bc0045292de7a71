import { describe, expect, it } from "vitest";
import { checkEnv, listEnvs, make } from "../src/index.js";

// Every registered env must honour the API contract (spaces, determinism, documented info keys, misuse errors).
describe("every registered env passes checkEnv", () => {
  const ids = listEnvs().map((e) => e.id);
  it("registers the demo env at least", () => {
    expect(ids).toContain("Demo-v0");
  });
  for (const id of ids) {
    it(id, () => {
      checkEnv(make(id), { episodes: 2, maxSteps: 60 });
    });
  }
});
