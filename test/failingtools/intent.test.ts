import { describe, expect, it } from "vitest";
import { fold } from "../../envs/failingtools/policies/common.js";
import { generateScenarios } from "../../envs/failingtools/scenarios/generate.js";
import { FAILURE_SOURCES } from "../../envs/failingtools/scenarios/schema.js";
import { ftEnv } from "./helpers.js";

// info.intent must carry only what the agent can read in the request: no hidden constraints, no failure info.
// Argument values that are API choices rather than facts (folder, page size, shipping speed...) are exempt.
const CHOICES = new Set(["folder", "limit", "days", "shipping", "order_type", "side", "fulfilment", "type", "unread_only", "ride_type"]);

function inText(request: string, v: unknown): boolean {
  if (typeof v === "number") return request.includes(String(v));
  if (typeof v === "boolean") return true;
  if (typeof v !== "string") return true;
  const iso = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):00Z$/.exec(v);
  if (iso) return request.includes(iso[1]) && request.includes(iso[2]);
  return ` ${fold(request)} `.includes(` ${fold(v)} `);
}

function leaks(request: string, v: unknown, path: string, out: string[]): void {
  if (Array.isArray(v)) v.forEach((x, i) => leaks(request, x, `${path}[${i}]`, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) leaks(request, x, `${path}.${k}`, out);
  else if (!CHOICES.has(path.split(".").pop() as string) && !inText(request, v)) out.push(`${path}=${String(v)}`);
}

describe("info.intent leaks nothing beyond the request text", () => {
  const all = generateScenarios();
  it("every stated fact, argument and plan binding of every scenario is in its request text", () => {
    const bad: string[] = [];
    for (const s of all) {
      const out: string[] = [];
      leaks(s.request, s.intent.stated, "stated", out);
      leaks(s.request, s.intent.args, "args", out);
      for (const [i, p] of (s.intent.plan ?? []).entries()) {
        leaks(s.request, p.args, `plan${i}.args`, out);
        for (const b of p.bind as { where?: Record<string, unknown> }[]) leaks(s.request, b.where ?? {}, `plan${i}.where`, out);
      }
      if (out.length > 0) bad.push(`${s.id}: ${out.join(", ")}`);
    }
    expect(bad).toEqual([]);
  });
  it("the reset info outside info.hidden names neither the failure source nor its persistence", () => {
    const env = ftEnv({ setting: "base", hiddenInfo: false });
    const words = [...FAILURE_SOURCES.map((x) => x.replace(/_/g, "-")), ...FAILURE_SOURCES, "perm", "temp", "permanent", "temporary"];
    for (const s of all.filter((_, i) => i % 7 === 0)) {
      const [obs, info] = env.reset({ seed: 0, options: { scenarioId: s.id } });
      expect(info.hidden).toBeUndefined();
      const visible = JSON.stringify({ taskId: info.taskId, scenario: info.scenario, intent: info.intent, task: obs.task });
      for (const w of words) expect(visible.includes(w), `${s.id}: "${w}" in ${visible}`).toBe(false);
    }
  });
  it("the public id addresses the same scenario as the full id", () => {
    const s = all[40];
    const env = ftEnv({ scenarioId: s.publicId });
    expect(env.reset({ seed: 0 })[1].taskId).toBe(s.publicId);
  });
});
