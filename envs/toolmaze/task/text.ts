/**
 * Natural-language task text from templates (no LLM at run time). Phrases come from the capability tables;
 * bound parameters become references to earlier results, literals are quoted, and openers / connectors /
 * closers vary so tasks read like real requests.
 */
import { corpus } from "../world/corpus.js";
import type { Scalar } from "../world/types.js";
import type { Position, RngLike } from "./model.js";

const REFS: Record<string, string> = {
  iata_code: "that airport", geo_coords: "those coordinates", flight_offer_id: "the best flight offer",
  hotel_offer_id: "that hotel offer", booking_ref: "the booking", currency_amount: "that amount",
  temperature_c: "that temperature", temperature_f: "the Fahrenheit reading", distance_km: "that distance",
  timezone: "that time zone", iso_datetime: "that time", iso_date: "that date", email_address: "their e-mail address",
  phone_number: "that phone number", summary_text: "the summary", document_id: "the document", url: "the link",
  task_id: "the new task", meeting_id: "the meeting", contact_id: "that contact", product_id: "the product",
  cart_id: "the cart", order_id: "the order", tracking_number: "the tracking number", return_id: "the return",
  coupon_code: "the coupon", stock_count: "the stock level", device_id: "the device", setpoint_c: "that set-point",
  energy_kwh: "that consumption", co2_ppm: "that CO2 level", duration_min: "that long", scene_id: "that scene",
  firmware_version: "the latest version", headline: "the headline", translated_text: "the translation",
  short_url: "the short link", sentiment_score: "the sentiment score", exchange_rate: "that rate",
  transaction_id: "that transaction", invoice_id: "the invoice", share_price: "the last price",
  percent_change: "the day's move", probability: "that probability",
};

const OPENERS = ["Please ", "Could you ", "I need you to ", "Can you ", "Go ahead and ", "I'd like you to "];
const CLOSERS = ["", " Thanks!", " Let me know once it's done.", " Report back with the confirmation.", ""];

function renderLiteral(type: string, v: Scalar): string {
  if (type === "duration_min") return `${v}-minute`;
  // Messages are quoted verbatim (trailing period included) so an agent can copy the exact value.
  return String(v);
}

/** Phrase of one position with its parameters substituted. */
export function phraseOf(p: Position): string {
  const capSpec = corpus().caps.get(p.cap)!;
  return capSpec.phrase.replace(/\{(\w+)\}/g, (_, name: string) => {
    const b = p.bindings[name];
    const type = capSpec.params[name]!;
    if (!b) return name;
    return b.kind === "literal" ? renderLiteral(type, b.value) : (REFS[type] ?? `the ${type.replace(/_/g, " ")}`);
  });
}

function joinSteps(rng: RngLike, steps: string[]): string {
  if (steps.length === 1) return steps[0]!;
  const style = rng.int(3);
  if (style === 0) return `${steps.slice(0, -1).join(", then ")}, and finally ${steps[steps.length - 1]}`;
  if (style === 1) return `first ${steps[0]}; ${steps.slice(1, -1).map((s) => `then ${s}; `).join("")}after that, ${steps[steps.length - 1]}`;
  return `${steps.slice(0, -1).join(", ")} and then ${steps[steps.length - 1]}`;
}

/** Steps of one slot: one phrase per position, alternatives collapsed to the first route branch. */
export function slotSteps(positions: readonly Position[]): string[] {
  return positions.filter((p) => !p.route || p.route.branch === 0).map(phraseOf);
}

export function composeText(rng: RngLike, slots: readonly (readonly Position[])[]): string {
  const opener = rng.pick(OPENERS);
  const closer = rng.pick(CLOSERS);
  const question = opener.startsWith("Could") || opener.startsWith("Can");
  const sentences = slots.map((ps) => joinSteps(rng, slotSteps(ps)));
  let body: string;
  if (sentences.length === 1) body = `${opener}${sentences[0]}${question ? "?" : "."}`;
  else {
    const intro = rng.pick([`I have ${sentences.length} things for you.`, `A few errands, independent of each other.`,
      `Please handle these ${sentences.length} requests.`]);
    body = `${intro} ${sentences.map((s, i) => `(${i + 1}) ${s.charAt(0).toUpperCase()}${s.slice(1)}.`).join(" ")}`;
  }
  return body + closer;
}
