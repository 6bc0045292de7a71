/**
 * Semantic field types of the ToolMaze world. Every tool parameter and output field carries one of these
 * ids, so task edges can only connect an output to an input of the same type and meaning (data-flow
 * coherence). Each type knows how to make a clean value from a hash, which literal values a task text may
 * quote, and which values are physically / temporally plausible (hidden ground truth, used by tests).
 */
import { code, sub, unit } from "./hash.js";

/** Corruption family of a type: decides which implicit (silent) fault applies to it. */
export type SemClass =
  | "temperature"
  | "count"
  | "probability"
  | "percentage"
  | "amount"
  | "rate"
  | "datetime"
  | "date"
  | "id"
  | "text"
  | "label"
  | "distance"
  | "duration"
  | "coords"
  | "score"
  | "measure";

export type Scalar = string | number | boolean;

export interface FieldType {
  readonly id: string;
  readonly sem: SemClass;
  /** JSON schema used for parameters and output fields of this type. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** Values a task text may quote for this type; absent = the value can only come from another tool. */
  readonly literals?: readonly Scalar[];
  /** Clean value from a hash. */
  gen(h: number): Scalar;
  /** Hidden truth: is this value semantically plausible? Implicit corruptions always make it false. */
  plausible(v: Scalar): boolean;
}

/** The simulated "now" of every episode; clean timestamps are never before it. */
export const WORLD_NOW = "2026-12-01T09:00:00Z";
const NOW_MS = Date.parse(WORLD_NOW);
const DAY = 86_400_000;

const round = (x: number, d: number): number => Math.round(x * 10 ** d) / 10 ** d;
const num =
  (lo: number, hi: number, d: number) =>
  (h: number): number =>
    round(lo + unit(h) * (hi - lo), d);
const int =
  (lo: number, hi: number) =>
  (h: number): number =>
    lo + (h % (hi - lo + 1));
const pickOf =
  <T>(pool: readonly T[]) =>
  (h: number): T =>
    pool[h % pool.length] as T;
const inRange =
  (lo: number, hi: number) =>
  (v: Scalar): boolean =>
    typeof v === "number" && v >= lo && v <= hi;
const prefixed =
  (prefix: string, n: number) =>
  (h: number): string =>
    `${prefix}${code(sub(h, prefix), n)}`;
const matches =
  (re: RegExp) =>
  (v: Scalar): boolean =>
    typeof v === "string" && re.test(v);
const inPool =
  (pool: readonly Scalar[]) =>
  (v: Scalar): boolean =>
    pool.includes(v);
const futureIso = (v: Scalar): boolean => typeof v === "string" && Date.parse(v) >= NOW_MS;
const futureDate = (v: Scalar): boolean => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) && Date.parse(`${v}T23:59:59Z`) >= NOW_MS;
/** Leakage (debug text, foreign payloads) never looks like a clean free-text value. */
const cleanText = (v: Scalar): boolean =>
  typeof v === "string" && v.length > 0 && !/debug|traceback|internal|stack|\{|<html|null pointer|cache_key/i.test(v);

const str = (extra: Record<string, unknown> = {}) => ({ type: "string", ...extra });
const number = (extra: Record<string, unknown> = {}) => ({ type: "number", ...extra });
const integer = (extra: Record<string, unknown> = {}) => ({ type: "integer", ...extra });

const CITIES = [
  "Lisbon",
  "Berlin",
  "Madrid",
  "Chicago",
  "Toronto",
  "Osaka",
  "Nairobi",
  "Sydney",
  "Oslo",
  "Prague",
  "Seattle",
  "Dublin",
  "Vienna",
  "Austin",
  "Lima",
  "Seoul",
  "Zurich",
  "Porto",
  "Denver",
  "Krakow",
] as const;
const IATA = [
  "LIS",
  "BER",
  "MAD",
  "ORD",
  "YYZ",
  "KIX",
  "NBO",
  "SYD",
  "OSL",
  "PRG",
  "SEA",
  "DUB",
  "VIE",
  "AUS",
  "LIM",
  "ICN",
  "ZRH",
  "OPO",
  "DEN",
  "KRK",
] as const;
const COUNTRIES = ["PT", "DE", "ES", "US", "CA", "JP", "KE", "AU", "NO", "CZ", "IE", "AT", "PE", "KR", "CH", "PL"] as const;
const PEOPLE = [
  "Maria Lopez",
  "Chen Wei",
  "Amara Okafor",
  "Lukas Brandt",
  "Priya Raman",
  "Tom Becker",
  "Sofia Rossi",
  "Kenji Sato",
  "Ana Costa",
  "Noah Fischer",
  "Leila Haddad",
  "Ivan Petrov",
] as const;
const EMAILS = PEOPLE.map((p) => `${p.toLowerCase().replace(" ", ".")}@example.com`);
const PHONES = [
  "+15550142",
  "+447700900123",
  "+351912345678",
  "+4915112345678",
  "+819012345678",
  "+61412345678",
  "+14165550199",
  "+34600123456",
] as const;
const TICKERS = ["AAPL", "MSFT", "NVDA", "ASML", "SAP", "TSLA", "AMZN", "NESN", "SONY", "SHOP", "ADYEN", "BABA"] as const;
const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD"] as const;
const LANGS = ["en", "de", "fr", "es", "pt", "ja", "it"] as const;
const ROOMS = ["living room", "kitchen", "bedroom", "office", "garage", "nursery"] as const;
const DEVICES = [
  "thermo-living-01",
  "thermo-office-02",
  "plug-kitchen-07",
  "lock-front-01",
  "cam-garage-03",
  "sensor-nursery-04",
  "hub-main-01",
  "light-bedroom-05",
] as const;
const PRODUCTS = [
  "noise-cancelling headphones",
  "espresso machine",
  "running shoes",
  "mechanical keyboard",
  "air purifier",
  "standing desk",
  "4K monitor",
  "camping tent",
  "electric kettle",
  "robot vacuum",
] as const;
const ZIPS = ["10115", "94103", "1100-148", "M5V 2T6", "2000", "60601", "28013", "0150"] as const;
const TOPICS = [
  "quarterly budget review",
  "product launch",
  "hiring plan",
  "vendor contract",
  "security audit",
  "team offsite",
  "customer onboarding",
  "roadmap planning",
] as const;
const NOTES = [
  "Please confirm by end of day.",
  "Bring the latest figures.",
  "Thanks for the quick turnaround.",
  "Let me know if anything changes.",
  "Sharing this for your records.",
] as const;
const ACCOUNTS = ["ACC-20931", "ACC-55817", "ACC-71044", "ACC-38250", "ACC-90412"] as const;
const QUERIES = [
  "renewable energy",
  "interest rates",
  "supply chain",
  "electric vehicles",
  "semiconductors",
  "remote work",
  "climate policy",
  "cybersecurity",
] as const;
const CONDITIONS = ["clear", "partly cloudy", "overcast", "light rain", "heavy rain", "snow", "fog", "windy"] as const;
const TIMEZONES = [
  "Europe/Lisbon",
  "Europe/Berlin",
  "America/Chicago",
  "Asia/Tokyo",
  "Africa/Nairobi",
  "Australia/Sydney",
  "America/Toronto",
  "Asia/Seoul",
] as const;
const CHANNELS = ["#general", "#finance", "#design", "#ops", "#sales"] as const;
const SENTIMENT = ["positive", "neutral", "negative"] as const;

// Both take few values (a half-hour slot or a day within a month or two), and responses name them on every call:
// each text is made once (bounded: at most days × 48 and days entries per `days` value used).
const isoTexts = new Map<number, string>();
const dateTexts = new Map<number, string>();
function isoAt(h: number, days: number): string {
  const ms = NOW_MS + DAY + Math.floor(unit(h) * days * 48) * 1_800_000;
  let text = isoTexts.get(ms);
  if (text === undefined) isoTexts.set(ms, (text = new Date(ms).toISOString().replace(".000Z", "Z")));
  return text;
}
function dateAt(h: number, days: number): string {
  const ms = NOW_MS + DAY * (1 + (h % days));
  let text = dateTexts.get(ms);
  if (text === undefined) dateTexts.set(ms, (text = new Date(ms).toISOString().slice(0, 10)));
  return text;
}
const DATE_LITERALS = [3, 9, 14, 21, 30, 45, 60].map((d) => new Date(NOW_MS + d * DAY).toISOString().slice(0, 10));

function t(
  id: string,
  sem: SemClass,
  schema: Record<string, unknown>,
  gen: (h: number) => Scalar,
  plausible: (v: Scalar) => boolean,
  literals?: readonly Scalar[],
): FieldType {
  return { id, sem, schema, gen, plausible, ...(literals ? { literals } : {}) };
}

const TYPE_LIST: FieldType[] = [
  // Shared
  t("city", "label", str({ description: "City name" }), pickOf(CITIES), inPool(CITIES), CITIES),
  t("country_code", "label", str({ pattern: "^[A-Z]{2}$" }), pickOf(COUNTRIES), inPool(COUNTRIES), COUNTRIES),
  t("iso_date", "date", str({ format: "date" }), (h) => dateAt(h, 60), futureDate, DATE_LITERALS),
  t("iso_datetime", "datetime", str({ format: "date-time" }), (h) => isoAt(h, 30), futureIso),
  // End of a time window whose start the same response gives (simulators derive it from the start).
  t("end_datetime", "datetime", str({ format: "date-time" }), (h) => isoAt(h, 30), futureIso),
  t("email_address", "label", str({ format: "email" }), pickOf(EMAILS), matches(/^[a-z.]+@[a-z.]+$/), EMAILS),
  // +999 is an unassigned ITU country code: well-formed digits, but no subscriber.
  t(
    "phone_number",
    "label",
    str({ pattern: "^\\+[0-9]{7,15}$" }),
    pickOf(PHONES),
    (v) => matches(/^\+\d{7,15}$/)(v) && !String(v).startsWith("+999"),
    PHONES,
  ),
  t("person_name", "label", str(), pickOf(PEOPLE), inPool(PEOPLE), PEOPLE),
  t("message_text", "text", str({ maxLength: 2000 }), pickOf(NOTES), cleanText, NOTES),
  t("summary_text", "text", str(), (h) => `Summary: ${pickOf(TOPICS)(h)} — ${pickOf(NOTES)(sub(h, 1))}`, cleanText),
  t("language_code", "label", str({ enum: [...LANGS] }), pickOf(LANGS), inPool(LANGS), LANGS),
  t("timezone", "label", str(), pickOf(TIMEZONES), inPool(TIMEZONES)),
  t("temperature_c", "temperature", number({ description: "Degrees Celsius" }), num(-12, 38, 1), inRange(-273.15, 60)),
  t("setpoint_c", "temperature", number({ description: "Target degrees Celsius" }), num(17, 23.5, 1), inRange(5, 32)),
  t("temperature_f", "temperature", number({ description: "Degrees Fahrenheit" }), num(10, 100, 1), inRange(-459.67, 140)),
  t("humidity_pct", "percentage", number({ minimum: 0, maximum: 100 }), num(18, 92, 0), inRange(0, 100)),
  t("probability", "probability", number(), num(0.02, 0.97, 3), inRange(0, 1)),
  t(
    "currency_amount",
    "amount",
    number({ description: "Amount in major currency units" }),
    num(4, 1800, 2),
    inRange(0, 5000),
    [50, 120, 250, 1200],
  ),
  t("share_price", "amount", number({ description: "Last traded price per share" }), num(12, 900, 2), inRange(0.01, 5000)),
  t("currency_code", "label", str({ enum: [...CURRENCIES] }), pickOf(CURRENCIES), inPool(CURRENCIES), CURRENCIES),
  t("exchange_rate", "rate", number({ exclusiveMinimum: 0 }), num(0.55, 1.6, 4), inRange(0.01, 200)),
  t("quantity", "count", integer({ minimum: 1, maximum: 20 }), int(1, 5), inRange(1, 20), [1, 2, 3, 4]),
  t("stock_count", "count", integer({ minimum: 0 }), int(0, 480), inRange(0, 100000)),
  t("distance_km", "distance", number(), num(2, 950, 1), inRange(0, 20000)),
  t("duration_min", "duration", integer(), int(5, 540), inRange(1, 1440), [30, 45, 60]),
  t(
    "geo_coords",
    "coords",
    str({ pattern: "^-?\\d+\\.\\d+,-?\\d+\\.\\d+$" }),
    (h) => `${round(-60 + unit(h) * 125, 4)},${round(-170 + unit(sub(h, 2)) * 340, 4)}`,
    (v) => typeof v === "string" && Math.abs(Number(v.split(",")[0])) <= 90 && Math.abs(Number(v.split(",")[1])) <= 180,
  ),
  t("weather_condition", "label", str(), pickOf(CONDITIONS), inPool(CONDITIONS)),
  t(
    "url",
    "id",
    str({ format: "uri" }),
    (h) => `https://docs.example.com/d/${code(h, 8).toLowerCase()}`,
    matches(/^https:\/\/[a-z.]+\/[a-z]\/[a-z0-9]+$/),
  ),
  t(
    "short_url",
    "id",
    str({ format: "uri" }),
    (h) => `https://sho.rt/${code(h, 6).toLowerCase()}`,
    matches(/^https:\/\/sho\.rt\/[a-z0-9]{6}$/),
  ),
  t("sentiment_label", "label", str({ enum: [...SENTIMENT] }), pickOf(SENTIMENT), inPool(SENTIMENT)),
  t("sentiment_score", "score", number({ minimum: -1, maximum: 1 }), num(-0.9, 0.9, 3), inRange(-1, 1)),
  t("rating", "score", number({ minimum: 1, maximum: 5 }), num(2.5, 4.9, 1), inRange(1, 5)),
  t("search_query", "label", str(), pickOf(QUERIES), inPool(QUERIES), QUERIES),
  t("headline", "text", str(), (h) => `${pickOf(QUERIES)(h)} outlook shifts as ${pickOf(TOPICS)(sub(h, 3))} nears`, cleanText),
  t("translated_text", "text", str(), (h) => `[${pickOf(LANGS)(h)}] ${pickOf(NOTES)(sub(h, 4))}`, cleanText),
  t("word_count", "count", integer({ minimum: 0 }), int(40, 1200), inRange(0, 1_000_000)),
  // Financial
  t("ticker", "label", str({ pattern: "^[A-Z]{2,5}$" }), pickOf(TICKERS), inPool(TICKERS), TICKERS),
  t("account_id", "label", str({ pattern: "^ACC-\\d{5}$" }), pickOf(ACCOUNTS), inPool(ACCOUNTS), ACCOUNTS),
  t("transaction_id", "id", str(), prefixed("txn_", 10), matches(/^txn_[A-Z0-9]{10}$/)),
  t("invoice_id", "id", str(), prefixed("INV-", 8), matches(/^INV-[A-Z0-9]{8}$/)),
  t("payment_id", "id", str(), prefixed("pay_", 12), matches(/^pay_[A-Z0-9]{12}$/)),
  t("order_ref", "id", str(), prefixed("TRD-", 9), matches(/^TRD-[A-Z0-9]{9}$/)),
  t("alert_rule_id", "id", str(), prefixed("rule_", 8), matches(/^rule_[A-Z0-9]{8}$/)),
  t("report_id", "id", str(), prefixed("rpt_", 8), matches(/^rpt_[A-Z0-9]{8}$/)),
  t("percent_change", "percentage", number(), num(-9.5, 9.5, 2), inRange(-100, 100)),
  // Travel
  t("iata_code", "label", str({ pattern: "^[A-Z]{3}$" }), pickOf(IATA), inPool(IATA), IATA),
  t("flight_offer_id", "id", str(), prefixed("FO-", 10), matches(/^FO-[A-Z0-9]{10}$/)),
  t("hotel_offer_id", "id", str(), prefixed("HO-", 10), matches(/^HO-[A-Z0-9]{10}$/)),
  t("booking_ref", "id", str(), (h) => code(sub(h, "pnr"), 6), matches(/^[A-Z0-9]{6}$/)),
  t("rental_ref", "id", str(), prefixed("CAR-", 8), matches(/^CAR-[A-Z0-9]{8}$/)),
  t(
    "visa_status",
    "label",
    str(),
    pickOf(["visa_free", "e_visa", "visa_on_arrival", "visa_required"]),
    inPool(["visa_free", "e_visa", "visa_on_arrival", "visa_required"]),
  ),
  t("reminder_id", "id", str(), prefixed("rem_", 8), matches(/^rem_[A-Z0-9]{8}$/)),
  // Office
  t("meeting_topic", "label", str(), pickOf(TOPICS), inPool(TOPICS), TOPICS),
  t("meeting_id", "id", str(), prefixed("mtg_", 10), matches(/^mtg_[A-Z0-9]{10}$/)),
  t("document_id", "id", str(), prefixed("doc_", 10), matches(/^doc_[A-Z0-9]{10}$/)),
  t("message_id", "id", str(), (h) => `<${code(h, 12).toLowerCase()}@mail.example.com>`, matches(/^<[a-z0-9]{12}@mail\.example\.com>$/)),
  t("task_id", "id", str(), prefixed("tsk_", 8), matches(/^tsk_[A-Z0-9]{8}$/)),
  t("contact_id", "id", str(), prefixed("cnt_", 8), matches(/^cnt_[A-Z0-9]{8}$/)),
  t("channel_name", "label", str({ pattern: "^#[a-z-]+$" }), pickOf(CHANNELS), inPool(CHANNELS), CHANNELS),
  t("envelope_id", "id", str(), prefixed("env_", 10), matches(/^env_[A-Z0-9]{10}$/)),
  t("channel_post_id", "id", str(), prefixed("msg_", 12), matches(/^msg_[A-Z0-9]{12}$/)),
  // Shopping
  t("product_query", "label", str(), pickOf(PRODUCTS), inPool(PRODUCTS), PRODUCTS),
  t("product_id", "id", str(), prefixed("prd_", 8), matches(/^prd_[A-Z0-9]{8}$/)),
  t("cart_id", "id", str(), prefixed("cart_", 8), matches(/^cart_[A-Z0-9]{8}$/)),
  t("order_id", "id", str(), prefixed("ord_", 10), matches(/^ord_[A-Z0-9]{10}$/)),
  t("tracking_number", "id", str(), (h) => `1Z${code(sub(h, "ups"), 14)}`, matches(/^1Z[A-Z0-9]{14}$/)),
  t("postal_code", "label", str(), pickOf(ZIPS), inPool(ZIPS), ZIPS),
  t("coupon_code", "id", str(), (h) => `SAVE${code(h, 5)}`, matches(/^SAVE[A-Z0-9]{5}$/)),
  t("discount_pct", "percentage", number(), num(5, 35, 0), inRange(0, 100)),
  t("return_id", "id", str(), prefixed("rma_", 8), matches(/^rma_[A-Z0-9]{8}$/)),
  // IoT
  t("device_id", "label", str(), pickOf(DEVICES), inPool(DEVICES), DEVICES),
  t("room", "label", str(), pickOf(ROOMS), inPool(ROOMS), ROOMS),
  t("power_w", "measure", number(), num(2, 2400, 1), inRange(0, 10000)),
  t("energy_kwh", "measure", number(), num(0.2, 42, 2), inRange(0, 10000)),
  t("co2_ppm", "measure", integer(), int(380, 1900), inRange(250, 10000)),
  t("battery_pct", "percentage", number(), num(5, 100, 0), inRange(0, 100)),
  t("schedule_id", "id", str(), prefixed("sch_", 8), matches(/^sch_[A-Z0-9]{8}$/)),
  t("scene_id", "id", str(), prefixed("scn_", 6), matches(/^scn_[A-Z0-9]{6}$/)),
  t("command_id", "id", str(), prefixed("cmd_", 10), matches(/^cmd_[A-Z0-9]{10}$/)),
  t("notification_id", "id", str(), prefixed("ntf_", 10), matches(/^ntf_[A-Z0-9]{10}$/)),
  t("firmware_version", "label", str(), (h) => `v${1 + (h % 4)}.${sub(h, 1) % 10}.${sub(h, 2) % 20}`, matches(/^v\d\.\d\.\d{1,2}$/)),
];

export const FIELD_TYPES: ReadonlyMap<string, FieldType> = new Map(TYPE_LIST.map((ft) => [ft.id, ft]));

export function fieldType(id: string): FieldType {
  const ft = FIELD_TYPES.get(id);
  if (!ft) throw new Error(`toolmaze: unknown field type "${id}"`);
  return ft;
}

export const TIME = { NOW_MS, DAY };
