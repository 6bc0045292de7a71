/**
 * Fault plans of generated tasks. Transient faults (easy and medium) fire on the agent's first
 * call of the target step wherever it comes (oncetrigger.ts) and an identical retry succeeds;
 * persistent faults (hard) sit on a step a careful agent can skip or route around, so the gold
 * must handle them: a permanent failure, or a call quota that runs out when the gold reaches it.
 */
import type { FaultSpec } from "./dataset.js";
import { onceTrigger } from "./oncetrigger.js";
import type { Difficulty, FaultClass } from "./tasks.js";
import type { Draft, GenRng } from "./templates.js";
import { driftPayloads } from "./toolTraits.js";
import type { JsonObj, OfficialAction } from "./world/types.js";

export interface FaultPlan {
  specs: FaultSpec[];
  persistentTools: Set<string>;
}

const ROLES = ["admin", "operator", "owner"];
const MISLEAD_PERMANENT = [
  "This operation is permanently disabled; do not retry.",
  "Fatal: the backing resource no longer exists.",
  "Request rejected permanently by upstream policy.",
];
const MISLEAD_TRANSIENT = [
  "Transient glitch, please retry the same call.",
  "Service is warming up; retry immediately.",
  "Temporary hiccup — an identical retry will succeed.",
];

function spec(fault_type: FaultSpec["fault_type"], trigger: JsonObj, payload: JsonObj, severity: "soft" | "hard" = "soft"): FaultSpec {
  return { fault_type, trigger, severity, payload };
}

function failingSpec(type: "timeout" | "authz" | "rate_limit", trigger: JsonObj, r: GenRng, recoverability: string): FaultSpec {
  if (type === "timeout") return spec("timeout", trigger, { timeout_ms: r.pick([500, 1000, 2000]), recoverability });
  if (type === "authz") return spec("authz", trigger, { deny: true, required_role: r.pick(ROLES), recoverability });
  return spec("rate_limit", trigger, { after_n_calls: 0, retry_after_ms: r.pick([250, 500, 1000]), recoverability });
}

/** The first string-valued argument, used to narrow faults with `when_arg_matches`. */
function keyArg(a: OfficialAction): JsonObj | null {
  for (const [k, v] of Object.entries(a.args)) if (typeof v === "string") return { [k]: v };
  return null;
}

/**
 * Where a transient fault on step `s` fires: the step's tool, narrowed to the step's key argument
 * when another gold step (or route) uses the same tool, so the fault belongs to that step.
 */
function stepTarget(d: Draft, s: number): JsonObj {
  const call = d.steps[s]!.call;
  const trig: JsonObj = { on_tool: call.tool_name };
  const shared = d.steps.some((o, i) => i !== s && [o.call, ...(o.alternative ?? [])].some((a) => a.tool_name === call.tool_name));
  const narrow = keyArg(call);
  if (shared && narrow) trig.when_arg_matches = narrow;
  return trig;
}

export function planFaults(d: Draft, cls: FaultClass, diff: Difficulty, r: GenRng): FaultPlan | null {
  const none: FaultPlan = { specs: [], persistentTools: new Set() };
  if (cls === "clean") return none;
  if (diff !== "hard") {
    // Transient: the agent's first call of the target step fails, wherever it comes in the episode
    // (see oncetrigger.ts); an identical retry succeeds. Each spec gets its own once-seed.
    const s = r.int(d.steps.length);
    const target = d.steps[s]!.call;
    const at = stepTarget(d, s);
    if (cls === "timeout" || cls === "authz" || cls === "rate_limit") {
      const label = cls === "authz" ? "transient_denial" : "transient";
      return { ...none, specs: [failingSpec(cls, onceTrigger(at, 0, r), r, label)] };
    }
    if (cls === "schema_drift") {
      return {
        ...none,
        specs: [spec("schema_drift", onceTrigger(at, 0, r), { ...r.pick(driftPayloads(target.tool_name)), recoverability: "transient" })],
      };
    }
    // adversarial_error: a transient fault whose error is rewritten to look permanent. The rewrite
    // fires on the first error of a matching call, which is the injected one.
    const adv = spec("adversarial_error", onceTrigger(at, 0, r), {
      code: r.pick(["permanent_failure", "not_found", "internal_error"]),
      messages: MISLEAD_PERMANENT,
      recoverability: "transient",
    });
    const under = failingSpec(r.pick(["timeout", "authz", "rate_limit"] as const), onceTrigger(at, 1, r), r, "transient");
    return { ...none, specs: [adv, under] };
  }
  // hard: a persistent fault on a step a careful agent can do without — optional or routable, on a
  // tool no unavoidable step needs.
  const unavoidable = new Set(d.steps.filter((s) => !s.optional && !s.alternative).map((s) => s.call.tool_name));
  const eligible = d.steps
    .map((step, s) => ({ step, s }))
    .filter(
      ({ step }) =>
        (step.optional || step.alternative) &&
        !unavoidable.has(step.call.tool_name) &&
        !(step.alternative ?? []).some((a) => a.tool_name === step.call.tool_name),
    );
  if (eligible.length === 0) return null;
  if (cls === "rate_limit") {
    // A call quota on the step's tool that runs out exactly when the gold reaches the step: the tool
    // answers for the first `s` calls of the episode, then is rate-limited for good. Steps after the
    // first are preferred, so the quota is a real quota (the tool may have worked earlier), not a block.
    const later = eligible.filter((e) => e.s > 0);
    const { step, s } = r.pick(later.length > 0 ? later : eligible);
    const q = spec(
      "rate_limit",
      { on_tool: step.call.tool_name },
      { after_n_calls: s, retry_after_ms: r.pick([250, 500, 1000]), recoverability: "persistent_quota" },
      "hard",
    );
    return { specs: [q], persistentTools: new Set([step.call.tool_name]) };
  }
  const target = r.pick(eligible).step.call;
  const trig: JsonObj = { on_tool: target.tool_name };
  const narrow = keyArg(target);
  if (narrow && r.random() < 0.5) trig.when_arg_matches = narrow;
  const tools = new Set([target.tool_name]);
  if (cls === "timeout" || cls === "authz")
    return { ...none, specs: [{ ...failingSpec(cls, trig, r, "persistent"), severity: "hard" }], persistentTools: tools };
  if (cls === "schema_drift") {
    return {
      ...none,
      specs: [spec("schema_drift", trig, { ...r.pick(driftPayloads(target.tool_name)), recoverability: "persistent" }, "hard")],
      persistentTools: tools,
    };
  }
  const under = { ...failingSpec(r.pick(["timeout", "authz"] as const), trig, r, "persistent"), severity: "hard" as const };
  const adv = spec(
    "adversarial_error",
    trig,
    { code: "temporarily_unavailable", messages: MISLEAD_TRANSIENT, recoverability: "persistent" },
    "hard",
  );
  return { ...none, specs: [adv, under], persistentTools: tools };
}
