/**
 * PlanBench-XL's own events, registered with the engine's typed event registry: typed members of `EpisodeEvent`
 * wherever this module is part of the program. Calls, faults, retries and switches are the engine's core events.
 */
import type { RegisteredFamilyEvent } from "../../src/family.js";

declare module "../../src/family.js" {
  interface FamilyEventRegistry {
    /** A retrieval: whether its request was valid, and how many tools it listed. */
    "planbench:retrieve": { ok: boolean; listed: number };
    /** A reply without exactly one action tag (`attempt`: consecutive label errors so far). */
    "planbench:label_error": { attempt: number };
    /** A call answered by a noisy or blocker sibling (`source`: which). */
    "planbench:untrusted_output": { tool: string; source: string };
    /** A call refused because an input value came only from untrusted outputs. */
    "planbench:untrusted_rejected": { tool: string; datatypes: string[] };
    /** The official answer, judged by the official rules (correct: right value from a trusted path). */
    "planbench:final_answer": { content: string; correct: boolean };
    /** A wrong answer that did not end the episode: the enforced-exploration feedback was sent instead. */
    "planbench:feedback_sent": { count: number };
    /** A trusted call that obtained a new ground-truth datatype. */
    "planbench:progress": { datatype: string };
  }
}

export type PlanBenchEvent = Extract<RegisteredFamilyEvent, { type: `planbench:${string}` }>;

// A record, so the list cannot miss a registered event type (and keeps the documented order).
const TYPES: Record<PlanBenchEvent["type"], true> = {
  "planbench:retrieve": true,
  "planbench:label_error": true,
  "planbench:untrusted_output": true,
  "planbench:untrusted_rejected": true,
  "planbench:final_answer": true,
  "planbench:feedback_sent": true,
  "planbench:progress": true,
};
export const FAMILY_EVENT_TYPES = Object.keys(TYPES) as PlanBenchEvent["type"][];
