import type { CoreEvent, EpisodeEvent } from "./events.js";
import type { RawTerms } from "../rewards/compute.js";

/** Reward terms every tool env reports in `info.rawTerms` (raw, unweighted signals; specs weight them). */
export const CORE_TERMS: Readonly<Record<string, string>> = {
  success: "1 on the step the episode is judged successful",
  failure: "1 on a terminal step that is not a success",
  tool_call: "number of tool calls this step (a per-call cost under negative weight)",
  invalid_call: "calls to unknown/unavailable tools, calls with invalid arguments, and invalid actions",
  retry_after_fault: "retries of a call that hit a transient or temporary fault",
  futile_retry: "retries of a call that hit a permanent fault",
  alternative_switch: "switches to another member of a tool's alternative group after it failed",
  verification: "read-back calls that verify an earlier write",
  poisoned_value: "arguments whose value came only from corrupted or untrusted responses",
  forbidden_call: "calls the task forbids",
  budget_exceeded: "1 when the tool-call or retry budget is exceeded (the step limit truncates instead: max_steps)",
  wise_abort: "1 when the agent aborts and aborting was the right call",
  potential: "potential-based shaping F = γΦ(s′) − Φ(s) (the raw signal is Φ, in info.phi)",
};

const INVALID_SOURCES = new Set(["unknown_tool", "not_visible", "validation"]);

function add(raw: RawTerms, k: string): void {
  raw[k] = (raw[k] ?? 0) + 1;
}

/** Counts the core terms from a step's events (runs every step: a plain loop, no per-call closures). */
export function coreRawTerms(events: readonly EpisodeEvent[], terminal: boolean, success: boolean): RawTerms {
  const raw: RawTerms = {};
  for (const e of events as CoreEvent[]) {
    switch (e.type) {
      case "tool_called":
        add(raw, "tool_call");
        break;
      case "tool_error":
        if (INVALID_SOURCES.has(e.source)) add(raw, "invalid_call");
        break;
      case "invalid_action":
        add(raw, "invalid_call");
        break;
      case "retry":
        if (e.afterFault) add(raw, e.persistence === "permanent" ? "futile_retry" : "retry_after_fault");
        break;
      case "alternative_switch":
        if (e.afterFault) add(raw, "alternative_switch");
        break;
      case "verification_call":
        add(raw, "verification");
        break;
      case "poisoned_value_reused":
        add(raw, "poisoned_value");
        break;
      case "forbidden_call":
        add(raw, "forbidden_call");
        break;
      case "budget_exceeded":
        add(raw, "budget_exceeded");
        break;
      default:
        break;
    }
  }
  if (success) add(raw, "success");
  else if (terminal) add(raw, "failure");
  return raw;
}
