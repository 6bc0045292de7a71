/**
 * Natural-language task text from templates (no LLM at run time). Phrases come from the capability tables;
 * bound parameters become references to earlier results, literals are quoted, and openers / connectors /
 * closers vary so tasks read like real requests.
 */
import { corpus } from "../world/corpus.js";
import type { Scalar } from "../world/types.js";
import type { Position, RngLike } from "./model.js";
import { phrasingsOf } from "./phrasings.js";

const REFS: Record<string, string> = {
  iata_code: "that airport",
  geo_coords: "those coordinates",
  flight_offer_id: "the best flight offer",
  hotel_offer_id: "that hotel offer",
  booking_ref: "the booking",
  currency_amount: "that amount",
  temperature_c: "that temperature",
  temperature_f: "the Fahrenheit reading",
  distance_km: "that distance",
  timezone: "that time zone",
  iso_datetime: "that time",
  iso_date: "that date",
  email_address: "their e-mail address",
  phone_number: "that phone number",
  summary_text: "the summary",
  document_id: "the document",
  url: "the link",
  task_id: "the new task",
  meeting_id: "the meeting",
  contact_id: "that contact",
  product_id: "the product",
  cart_id: "the cart",
  order_id: "the order",
  tracking_number: "the tracking number",
  return_id: "the return",
  coupon_code: "the coupon",
  stock_count: "the stock level",
  device_id: "the device",
  setpoint_c: "that set-point",
  energy_kwh: "that consumption",
  co2_ppm: "that CO2 level",
  duration_min: "that long",
  scene_id: "that scene",
  firmware_version: "the latest version",
  headline: "the headline",
  translated_text: "the translation",
  short_url: "the short link",
  sentiment_score: "the sentiment score",
  exchange_rate: "that rate",
  transaction_id: "that transaction",
  invoice_id: "the invoice",
  share_price: "the last price",
  percent_change: "the day's move",
  probability: "that probability",
};

/** Openers; those ending in a question take a question mark. */
const OPENERS: readonly { text: string; question?: true }[] = [
  { text: "Please " },
  { text: "Could you ", question: true },
  { text: "I need you to " },
  { text: "Can you ", question: true },
  { text: "Go ahead and " },
  { text: "I'd like you to " },
  { text: "Would you ", question: true },
  { text: "When you get a chance, " },
  { text: "Quick favour: " },
  { text: "Hi, please " },
  { text: "I want you to " },
  { text: "Kindly " },
  { text: "Hey, could you ", question: true },
  { text: "For me, please " },
  { text: "Task for today: " },
  { text: "Help me out and " },
];
const CLOSERS = [
  "",
  " Thanks!",
  " Let me know once it's done.",
  " Report back with the confirmation.",
  "",
  " Thank you.",
  " Appreciate it.",
  " Keep me posted.",
  " Confirm when you're finished.",
  " Cheers.",
  " That's all for now.",
  "",
];
const INTROS = [
  (n: number) => `I have ${n} things for you.`,
  () => "A few errands, independent of each other.",
  (n: number) => `Please handle these ${n} requests.`,
  (n: number) => `${n} separate jobs today.`,
  () => "Several unrelated tasks, in any order.",
  (n: number) => `Here are ${n} independent requests.`,
];

function renderLiteral(type: string, v: Scalar): string {
  if (type === "duration_min") return `${v}-minute`;
  // Messages are quoted verbatim (trailing period included) so an agent can copy the exact value.
  return String(v);
}

/** Phrase of one position with its parameters substituted, in one of the capability's phrasings. */
export function phraseOf(p: Position, rng?: RngLike): string {
  const capSpec = corpus().caps.get(p.cap)!;
  const options = phrasingsOf(p.cap);
  const template = rng && options.length > 0 ? rng.pick(options) : capSpec.phrase;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const b = p.bindings[name];
    const type = capSpec.params[name]!;
    if (!b) return name;
    return b.kind === "literal" ? renderLiteral(type, b.value) : (REFS[type] ?? `the ${type.replace(/_/g, " ")}`);
  });
}

function joinSteps(rng: RngLike, steps: string[]): string {
  if (steps.length === 1) return steps[0]!;
  const last = steps[steps.length - 1]!;
  const init = steps.slice(0, -1);
  switch (rng.int(6)) {
    case 0:
      return `${init.join(", then ")}, and finally ${last}`;
    case 1: {
      let middle = "";
      for (let i = 1; i < steps.length - 1; i++) middle += `then ${steps[i]}; `;
      return `first ${steps[0]}; ${middle}after that, ${last}`;
    }
    case 2:
      return `${init.join(", ")} and then ${last}`;
    case 3:
      return `${init.join(", then ")}; once that's done, ${last}`;
    case 4:
      return `start by ${gerund(steps[0]!)}, then ${steps.slice(1).join(", then ")}`;
    default:
      return `${init.join(", then ")}, and then ${last}`;
  }
}

/** "find the airport" -> "finding the airport" (the phrase's first word is always a verb). */
function gerund(step: string): string {
  const [verb, ...rest] = step.split(" ");
  const v = verb!;
  if (v === "SMS") return ["texting", ...rest].join(" ");
  // Short verbs ending consonant-vowel-consonant double the consonant ("set" -> "setting", "log" -> "logging").
  const doubled = /^(get|set|put|run|log|flag|grab|plan|program)$/.test(v);
  const ing = doubled
    ? `${v}${v.slice(-1)}ing`
    : v.endsWith("ie")
      ? `${v.slice(0, -2)}ying`
      : v.endsWith("e") && !v.endsWith("ee")
        ? `${v.slice(0, -1)}ing`
        : `${v}ing`;
  return [ing, ...rest].join(" ");
}

/** Steps of one slot: one phrase per position, alternatives collapsed to the first route branch. */
export function slotSteps(positions: readonly Position[], rng?: RngLike): string[] {
  // Loops, not `.filter().map()`, for arrays other functions read (see `enumerateSlot` in solve.ts for why).
  const out: string[] = [];
  for (const p of positions) if (!p.route || p.route.branch === 0) out.push(phraseOf(p, rng));
  return out;
}

export function composeText(rng: RngLike, slots: readonly (readonly Position[])[]): string {
  const opener = rng.pick(OPENERS);
  const closer = rng.pick(CLOSERS);
  const phrasing = rng.derive("phrasing");
  const sentences: string[] = [];
  for (const ps of slots) sentences.push(joinSteps(rng, slotSteps(ps, phrasing)));
  let body: string;
  if (sentences.length === 1) body = `${opener.text}${sentences[0]}${opener.question ? "?" : "."}`;
  else {
    const intro = rng.pick(INTROS)(sentences.length);
    body = intro;
    for (let i = 0; i < sentences.length; i++) {
      const s = sentences[i]!;
      body += ` (${i + 1}) ${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
    }
  }
  return body + closer;
}
