/**
 * Prompt-harness variants (`harness` option). The issue asks for the paper's H1–H3; our sources (SEEDS §3, the
 * OpenReview abstract of "Failing Tools: Benchmarking LLM Agent Recovery Under Runtime Tool Failures") name no
 * H1–H3 and give no prompt text, so these three are our reconstruction, graded by how much of the recovery
 * behaviour the abstract says the benchmark measures is spelled out for the agent:
 * - H1: the user's request alone (the standard function-calling harness; the default, byte-identical to before);
 * - H2: a failure-aware notice before the request (tools may fail, and a success response may be wrong);
 * - H3: H2 plus the recovery protocol the abstract lists: detect failures, tell transient from permanent faults,
 *   retry or fall back, verify state with a confirmation function when one exists, ask before moving a write to
 *   another provider (Base's confirmation constraint), and communicate residual uncertainty.
 * Only the prompt changes: tools, faults, constraints and scoring are the same in every variant, so a difference
 * in score is the harness's effect. The scripted baselines act on `info.intent`, not on this text.
 */
export const HARNESSES = ["H1", "H2", "H3"] as const;
export type Harness = (typeof HARNESSES)[number];

const NOTICE =
  "Note: the tools in this session run against live services that can fail. A call may return an error, and a call " +
  "that reports success may still have returned stale or wrong data or not have taken effect.";

const PROTOCOL = [
  "When you use the tools:",
  "1. Check every response for signs of failure, including success responses whose content does not match the request.",
  "2. Decide whether a failure is temporary (retry the same call) or permanent (switch to an equivalent service if one is offered).",
  "3. After any write, confirm the result with a read-back function when one exists before you report it.",
  "4. Before moving a write to a different provider than the one the user asked for, ask the user to confirm.",
  "5. In your final answer, state plainly what went wrong and anything you could not verify.",
].join("\n");

/** The agent's prompt for a scenario's request under a harness variant. */
export function harnessPrompt(harness: Harness, request: string): string {
  if (harness === "H1") return request;
  if (harness === "H2") return `${NOTICE}\n\nUser request: ${request}`;
  return `${NOTICE}\n${PROTOCOL}\n\nUser request: ${request}`;
}
