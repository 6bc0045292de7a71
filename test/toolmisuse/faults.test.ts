import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/rng.js";
import { parseTaskRecord, type TaskRecord } from "../../envs/toolmisuse/dataset.js";
import { ToolMisuseEpisode } from "../../envs/toolmisuse/world/episode.js";
import { PyMersenne } from "../../envs/toolmisuse/pyrandom.js";
import { runEpisode } from "../../envs/toolmisuse/runner.js";
import { ReplayAgent } from "../../envs/toolmisuse/goldAgents.js";
import type { JsonObj, OfficialAction } from "../../envs/toolmisuse/world/types.js";

const core = (s: number) => new Rng(s);
const py = (s: number) => new PyMersenne(s);

function task(over: Partial<Record<string, unknown>> = {}): TaskRecord {
  return parseTaskRecord({
    task_id: "t1",
    split: "dev",
    difficulty: "easy",
    domain: "crud",
    instruction: "Close account a1 with reason r.",
    toolset_id: "crud_v1",
    initial_state: { accounts: { a1: { id: "a1", status: "active" } } },
    success_criteria: [{ op: "equals", path: "accounts.a1.status", value: "closed" }],
    budget: { max_steps: 10, max_tool_calls: 10, max_retries: 3, timeout_ms: 1000 },
    seed: 7,
    ...over,
  });
}
const close: OfficialAction = { tool_name: "close_account", args: { id: "a1", reason: "r" } };

describe("toolmisuse fault engine order", () => {
  it("transient (on_nth_call) fault: first call fails, identical retry succeeds", () => {
    const t = task({ fault_plan: [{ fault_type: "timeout", trigger: { on_tool: "close_account", on_nth_call: 1 } }] });
    const ep = new ToolMisuseEpisode(t, "fixed", core);
    const a = ep.step(close);
    expect(a.error?.code).toBe("timeout");
    expect(a.error?.details.timeout_ms).toBe(1000);
    expect(ep.step(close).error).toBeNull();
    expect(ep.retries).toBe(1);
  });

  it("failing injectors fire by type authz → rate_limit → timeout, not plan order", () => {
    const t = task({
      fault_plan: [
        { fault_type: "timeout", trigger: {} },
        { fault_type: "rate_limit", trigger: {} },
        { fault_type: "authz", trigger: {}, payload: { required_role: "admin" } },
      ],
    });
    const ep = new ToolMisuseEpisode(t, "fixed", core);
    const o = ep.step(close);
    expect(o.error?.code).toBe("authz_denied");
    expect(o.error?.details.required_role).toBe("admin");
    expect((o.error?.details.faults as JsonObj[]).map((f) => f.fault_type)).toEqual(["authz"]);
  });

  it("schema drift mutates before validation; transcript keeps effective args", () => {
    const t = task({
      fault_plan: [{ fault_type: "schema_drift", trigger: { on_nth_call: 1 }, payload: { rename_args: { id: "account_id" } } }],
    });
    const ep = new ToolMisuseEpisode(t, "fixed", core);
    const o = ep.step(close);
    expect(o.error?.code).toBe("missing_required_arg");
    expect(o.error?.details.missing).toEqual(["id"]);
    expect(ep.transcript[0]!.args).toEqual({ reason: "r", account_id: "a1" });
    expect(ep.step(close).error).toBeNull();
  });

  it("adversarial rewriting applies to injected and simulator errors, never validation errors", () => {
    const adv = { fault_type: "adversarial_error", trigger: {}, payload: { code: "fatal", message: "Do not retry." } };
    const ep = new ToolMisuseEpisode(task({ fault_plan: [adv, { fault_type: "timeout", trigger: { on_nth_call: 1 } }] }), "official", py);
    const o = ep.step(close);
    expect(o.error?.code).toBe("fatal");
    expect(o.error?.details.original_error_code).toBe("timeout");
    // official quirk: adversarial events listed twice after the injected fault's own event
    expect((o.error?.details.faults as JsonObj[]).map((f) => f.fault_type)).toEqual(["timeout", "adversarial_error", "adversarial_error"]);
    const v = ep.step({ tool_name: "close_account", args: {} });
    expect(v.error?.code).toBe("missing_required_arg");
    const s = ep.step({ tool_name: "get_account", args: { id: "zz" } });
    expect(s.error?.code).toBe("fatal");
    expect(s.error?.details.original_error_code).toBe("not_found");
    const fixed = new ToolMisuseEpisode(task({ fault_plan: [adv, { fault_type: "timeout", trigger: { on_nth_call: 1 } }] }), "fixed", core);
    expect((fixed.step(close).error?.details.faults as JsonObj[]).length).toBe(2);
  });

  it("rate limit counts the global call index; when_arg_matches narrows; prob draws are seeded", () => {
    const ep = new ToolMisuseEpisode(
      task({ fault_plan: [{ fault_type: "rate_limit", trigger: {}, payload: { after_n_calls: 1 } }] }),
      "fixed",
      core,
    );
    expect(ep.step({ tool_name: "get_account", args: { id: "a1" } }).error).toBeNull();
    expect(ep.step({ tool_name: "get_account", args: { id: "a1" } }).error?.code).toBe("rate_limited");
    const m = new ToolMisuseEpisode(
      task({ fault_plan: [{ fault_type: "authz", trigger: { when_arg_matches: { id: "a1" } } }] }),
      "fixed",
      core,
    );
    expect(m.step({ tool_name: "get_account", args: { id: "zz" } }).error?.code).toBe("not_found");
    expect(m.step({ tool_name: "get_account", args: { id: "a1" } }).error?.code).toBe("authz_denied");
    // prob: official mode uses CPython's stream seeded seed*9973+index, drawn only when other conditions pass
    const probTask = task({ seed: 62650, fault_plan: [{ fault_type: "timeout", trigger: { on_tool: "get_account", prob: 0.4 } }] });
    const p = new ToolMisuseEpisode(probTask, "official", py);
    const codes: (string | null)[] = [];
    p.step(close); // other tool: no draw
    for (let i = 0; i < 3; i++) codes.push(p.step({ tool_name: "get_account", args: { id: "a1" } }).error?.code ?? null);
    const ref = new PyMersenne(62650 * 9973);
    expect(codes).toEqual([0, 1, 2].map(() => (ref.random() < 0.4 ? "timeout" : null)));
  });

  it("authz required_token: strict JSON equality under compat fixed, Python == (True == 1) under official", () => {
    const plan = [{ fault_type: "authz", trigger: { on_tool: "close_account" }, payload: { required_token: 1, token_field: "token" } }];
    const withToken = (token: unknown): OfficialAction => ({
      tool_name: "close_account",
      args: { id: "a1", reason: "r", token } as JsonObj,
    });
    // The engine checks the token before validation, so the extra argument only matters once the call is allowed.
    const code = (compat: "fixed" | "official", token: unknown) =>
      new ToolMisuseEpisode(task({ fault_plan: plan }), compat, compat === "fixed" ? core : py).step(withToken(token)).error?.code ?? null;
    expect(code("fixed", true)).toBe("authz_denied");
    expect(code("official", true)).toBe("unknown_argument");
    expect(code("fixed", 1)).toBe("unknown_argument");
    expect(code("official", 1)).toBe("unknown_argument");
    expect(code("fixed", "1")).toBe("authz_denied");
    expect(code("official", "1")).toBe("authz_denied");
  });

  it("every error costs a retry; overflow becomes retry_exceeded and terminates", () => {
    const t = task({ budget: { max_steps: 10, max_tool_calls: 10, max_retries: 1, timeout_ms: 1 } });
    const ep = new ToolMisuseEpisode(t, "fixed", core);
    expect(ep.step({ tool_name: "nope", args: {} }).terminated).toBe(false);
    const o = ep.step({ tool_name: "get_account", args: { id: "zz" } });
    expect(o.terminated).toBe(true);
    expect(o.error).toEqual({
      code: "retry_exceeded",
      message: "Retry budget exceeded.",
      details: { max_retries: 1, original_error_code: "not_found" },
    });
  });

  it("budget_exceeded terminates without touching retries", () => {
    const t = task({ budget: { max_steps: 5, max_tool_calls: 1, max_retries: 0, timeout_ms: 1 } });
    const ep = new ToolMisuseEpisode(t, "fixed", core);
    ep.step({ tool_name: "get_account", args: { id: "a1" } });
    const o = ep.step({ tool_name: "get_account", args: { id: "a1" } });
    expect(o.error?.code).toBe("budget_exceeded");
    expect(o.terminated).toBe(true);
    expect(ep.retries).toBe(0);
  });

  it("fault metadata is hidden from observations unless exposed", () => {
    const t = task({
      fault_plan: [
        { fault_type: "authz", trigger: { on_nth_call: 1 }, payload: { recoverability: "transient_denial", required_role: "admin" } },
      ],
    });
    const ep = new ToolMisuseEpisode(t, "fixed", core);
    ep.step(close);
    const hidden = ep.observation(false);
    expect(JSON.stringify(hidden)).not.toContain("recoverability");
    expect(hidden.last_error).toEqual({
      code: "authz_denied",
      message: "Authorization failed for this action.",
      details: { required_role: "admin" },
    });
    expect(JSON.stringify(ep.observation(true))).toContain("transient_denial");
  });

  it("runner metrics: fault seen, time to recovery, policy violations, success judged at end", () => {
    const t = task({ fault_plan: [{ fault_type: "authz", trigger: { on_nth_call: 1 } }] });
    const r = runEpisode(t, new ReplayAgent([close, close]), { compat: "fixed", makeRng: core });
    expect(r.metrics).toMatchObject({
      success: 1,
      tool_calls: 2,
      fault_seen: 1,
      time_to_recovery: 1,
      recovery_success: 1,
      policy_violations: 1,
      invalid_calls: 0,
      catastrophic_failure: 0,
      primary_fault: "authz",
    });
    const bad = runEpisode(
      t,
      new ReplayAgent([
        { tool_name: "x", args: {} },
        { tool_name: "x", args: {} },
        { tool_name: "x", args: {} },
      ]),
      { compat: "fixed", makeRng: core },
    );
    expect(bad.metrics).toMatchObject({ success: 0, invalid_calls: 2, policy_violations: 3, catastrophic_failure: 1, budget_exceeded: 0 });
  });
});
