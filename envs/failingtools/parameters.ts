import type { JsonValue, TaskParameter } from "../../src/family.js";
import type { Scenario } from "./scenarios/schema.js";
import type { Concept } from "./world/index.js";

/**
 * Asked facts that the template's documented response states under another name than the fact's, per template:
 * a count as `result_count`, a pick-up date as the slot's `slot_start`, a clock time as the `time` view of an ISO
 * `start` (`{start:time}`, see the engine's template views). API documentation, the same for every scenario of the
 * template and every provider of its category, so it says nothing about a scenario's failure.
 */
const REPORTED_AS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "email.unread": { unread: "result_count" },
  "calendar.when": { start_time: "start:time" },
  "calendar.create": { date: "start" },
  "grocery.slots": { time: "start:time" },
  "grocery.order": { date: "slot_start", product: "name" },
  "grocery.pickup": { date: "slot_start" },
  "shopping.track": { delivery: "estimated_delivery" },
  "rides.estimate": { fare: "estimate" },
};

/**
 * Where a reported fact comes from: the response field the template documents for it (REPORTED_AS), else the
 * request field that states it (a review's `rating` reported as `stars`), else the response field of the fact's own
 * name (`high_f`). Only the field's name enters the format.
 */
function holeOf(c: Concept, s: Scenario): string {
  const documented = REPORTED_AS[s.template]?.[c.id];
  if (documented !== undefined) return documented;
  const fields = { ...s.intent.stated, ...s.intent.args };
  for (const [k, v] of Object.entries(fields)) {
    if (k === c.id) return k;
    if (c.kind === "number" && typeof v === "number" && Math.abs(v - c.value) <= c.tolerance) return k;
    if (c.kind === "text" && typeof v === "string" && c.synonyms.includes(v)) return k;
    if (c.kind === "date" && v === c.iso) return k;
  }
  return c.id;
}

const NOTE = " Note: there was a problem along the way, which I handled and verified.";
const VIA = " I used {provider_label} because {provider_label} failed.";

/**
 * The request's parameters for the discrete action mode: the structured intent (the values the request states,
 * and the literal arguments of its lookup plan) and the report formats. The answer formats name the fields the
 * request asks for (`high_f`, `recipient`...) — a fact of the request, not of its failure — and take their values
 * from the responses; the messages name services through the labels of the visible tools.
 */
export function ftParameters(s: Scenario): TaskParameter[] {
  const out: TaskParameter[] = [];
  const add = (name: string, value: JsonValue) => {
    if (!out.some((p) => p.name === name && JSON.stringify(p.value) === JSON.stringify(value))) out.push({ name, value });
  };
  for (const [k, v] of Object.entries(s.intent.args)) add(k, v);
  for (const [k, v] of Object.entries(s.intent.stated)) add(k, v);
  for (const step of s.intent.plan ?? []) for (const [k, v] of Object.entries(step.args)) add(k, v);
  const asked = (s.truth as { answer?: Concept[] }).answer ?? [];
  const facts = asked.map((c) => `${c.id}: {${holeOf(c, s)}}`).join("; ");
  for (const tail of ["", NOTE, VIA, VIA + NOTE]) out.push({ name: "content", target: "answer", template: `Done. ${facts}.${tail}` });
  out.push({
    name: "content",
    target: "answer",
    template:
      "I was unable to complete this reliably: {provider_label} failed and {provider_label} returned inconsistent data, " +
      "so I undid anything it changed. There was a problem on both services.",
  });
  out.push({ name: "question", target: "ask_user", template: "{provider_label} is not working. Shall I use {provider_label} instead?" });
  return out;
}
