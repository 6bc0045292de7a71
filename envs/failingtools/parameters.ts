import type { JsonValue, TaskParameter } from "../../src/family.js";
import type { Scenario } from "./scenarios/schema.js";

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
  const asked = ((s.truth as { answer?: { id: string }[] }).answer ?? []).map((c) => c.id);
  const facts = asked.map((id) => `${id}: {${id}}`).join("; ");
  for (const tail of ["", NOTE, VIA, VIA + NOTE]) out.push({ name: "content", target: "answer", template: `Done. ${facts}.${tail}` });
  out.push({
    name: "content",
    target: "answer",
    template: "I was unable to complete this reliably: {provider_label} failed and {provider_label} returned inconsistent data, so I undid anything it changed. There was a problem on both services.",
  });
  out.push({ name: "question", target: "ask_user", template: "{provider_label} is not working. Shall I use {provider_label} instead?" });
  return out;
}
