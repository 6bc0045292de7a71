import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as cli } from "../helpers/cli.js";
import { BLOCKER_TYPES } from "../../envs/planbench/releaseFormat.js";
import type { JsonObject } from "../../src/core/json.js";
import { readTrajectories } from "../../src/trajectories/writer.js";

const FAILURES = ["none", "no_traction", "irrecoverable_drift", "weak_recovery", "format_error"];
const TERMS = ["success", "surrender", "wrong_tool_value", "search_exhaustion", "format_error"];
const FOLLOW = ["unused", "search_reused", "value_reused"];

describe("recovery-gym collect on PlanBenchXL-v0 (blocker setting)", () => {
  it("writes blocker-aware per-step annotations and the paper's per-episode analyses; resumes", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "pb-collect-")), "pb.jsonl");
    const base = [
      "collect",
      "--env",
      "PlanBenchXL-v0",
      "--opt",
      "world=builtin",
      "--opt",
      "setting=blocker",
      "--policy",
      "planner",
      "--out",
      file,
      "--quiet",
    ];
    const first = await cli([...base, "--episodes", "5"]);
    expect(first.status, first.stderr).toBe(0);
    const again = await cli([...base, "--episodes", "6"]);
    expect(again.stdout).toMatch(/6 episodes \(1 new\)/);
    const trajs = readTrajectories(file);
    expect(trajs.map((t) => t.seed)).toEqual([0, 1, 2, 3, 4, 5]);

    let blockerUses = 0;
    for (const t of trajs) {
      const a = t.analysis!;
      const m = t.metrics;
      expect(FAILURES).toContain(a["failureCategory"]);
      expect(TERMS).toContain(a["terminationStyle"]);
      expect(a["failureCategory"] === "none").toBe(t.success);
      if (!t.success) expect(m[`fail_${String(a["failureCategory"])}`]).toBe(1);
      const initial = t.initialHidden as JsonObject;
      // Per-step annotations: the blocked tools (with their blocker types) on every step, and what each call was.
      for (const s of t.steps.slice(0, -1)) {
        const h = s.hidden as JsonObject;
        expect(h["blocked"]).toEqual(initial["blocked"]);
        expect(typeof h["remainingCalls"]).toBe("number");
        const called = (s.events as Array<{ type: string }>).some((e) => e.type === "tool_called");
        expect(h["call"] !== undefined, `step ${s.t}`).toBe(called);
        const call = h["call"] as JsonObject | undefined;
        if (call?.["kind"] === "blocker") expect(BLOCKER_TYPES).toContain(call["blockerType"]);
        if (call) expect(call["progress"]).toBe((s.events as Array<{ type: string }>).some((e) => e.type === "planbench:progress"));
      }
      // Progress vs non-progress calls agree with the step events.
      const progressEvents = t.steps
        .flatMap((s) => s.events as Array<{ type: string }>)
        .filter((e) => e.type === "planbench:progress").length;
      expect(a["progressCalls"]).toBe(progressEvents);
      expect(Number(a["progressCalls"]) + Number(a["nonProgressCalls"])).toBe(m["callTurns"]);
      // Blocker follow-up: one entry per invoked blocker, and value reuse re-derived from the recorded actions.
      const uses = a["blockerUses"] as JsonObject[];
      expect(uses.length).toBe(m["blockerCalls"]);
      const follow = a["blockerFollowUp"] as Record<string, number>;
      expect(follow["unused"]! + follow["search_reused"]! + follow["value_reused"]!).toBe(uses.length);
      let valueReused = 0;
      t.steps.forEach((s, i) => {
        if (
          !(s.events as Array<{ type: string; source?: string }>).some(
            (e) => e.type === "planbench:untrusted_output" && e.source === "blocker",
          )
        )
          return;
        const out = String(
          ((s.observation as JsonObject)["response"] as JsonObject)["toolResult"] &&
            (((s.observation as JsonObject)["response"] as JsonObject)["toolResult"] as JsonObject)["output"],
        );
        const later = t.steps.slice(i + 1).some((x) => {
          const act = x.action as JsonObject;
          return act["type"] === "tool_call" && Object.values((act["arguments"] ?? {}) as JsonObject).some((v) => String(v) === out);
        });
        if (later) valueReused++;
      });
      expect(follow["value_reused"]).toBe(valueReused);
      for (const u of uses) {
        expect(FOLLOW).toContain(u["followUp"]);
        expect(BLOCKER_TYPES).toContain(u["blockerType"]);
        expect((initial["blocked"] as JsonObject[]).map((b) => b["tool"])).toContain(u["replaces"]);
      }
      blockerUses += uses.length;
    }
    // The planner does take blocker bait on these seeds, so the follow-up analysis is exercised.
    expect(blockerUses).toBeGreaterThan(3);
  });
});
