import type { JsonObject } from "../../../src/family.js";
import { cancelOp, type Concept, defineCategory, getOp, recordWrite, twinCityAmbiguity, type WriteTaskCore } from "./category.js";
import { addDays, addMinutes, asNum, asStr, dateOf, enm, fail, int, nextId, obj, ok, pick, resolveOne, round2, str, table } from "./kit.js";
import { CITIES, STREETS, type City } from "./pools.js";

/* ------------------------------------------------------------------ lodging: Booking.com / Expedia / Airbnb */

const HOTELS = ["Harbor View Inn", "The Grand Palmer", "Cedar Lodge", "Hotel Lumen", "Riverside Suites", "Maple Court Hotel"];

interface LodgingWorld {
  city: City;
  hotels: { name: string; rate: number; stars: number }[];
}
const hotelView = (r: JsonObject): JsonObject => pick(r, ["hotel_id", "name", "city", "region", "stars", "nightly_rate"]);
const nightsBetween = (a: string, b: string): number => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000);
const TAX = 0.12;

/** A hotel booking as lodging.book and lodging.trip ask for it; `more` concepts follow hotel and check-in. */
function bookingCore(hotel: string, city: City, ci: string, co: string, guests: number, more: Concept[] = []): WriteTaskCore {
  const wrongCi = addDays(ci, 365);
  return {
    main: { op: "book_hotel", args: { hotel, check_in: ci, check_out: co, guests } },
    stated: { check_in: ci, check_out: co, region: city.state },
    keyPath: ["check_in"],
    keyValue: ci,
    wrongValue: wrongCi,
    corruption: "check-in stored a year later",
    answer: [{ kind: "text", id: "hotel", synonyms: [hotel] }, { kind: "date", id: "check_in", iso: ci }, ...more],
    wrongConcept: { kind: "date", id: "wrong_ci", iso: wrongCi },
    write: recordWrite(
      "bookings",
      "booking_id",
      "check_in",
      { hotel, region: city.state, check_in: ci, check_out: co, status: "confirmed" },
      { verify: "get_booking", cancel: "cancel_booking" },
    ),
  };
}

export const lodging = defineCategory<LodgingWorld>({
  id: "lodging",
  domain: "travel",
  title: "Lodging",
  providers: [
    { id: "booking", label: "Booking.com", idPrefix: "bk" },
    { id: "expedia", label: "Expedia", idPrefix: "ex" },
    { id: "airbnb", label: "Airbnb", idPrefix: "ab" },
  ],
  ops: [
    {
      op: "search_hotels",
      description: "Hotels with nightly rates, by city or by hotel name.",
      parameters: obj({ query: str("City name (optionally 'City, ST') or part of a hotel name") }, ["query"]),
      mutates: false,
      run: (a, rt) => {
        const q = asStr(a.query).toLowerCase();
        const city = q.split(",")[0].trim();
        const hits = table(rt.st, "hotels").filter(
          (h) => (q !== "" && asStr(h.name).toLowerCase().includes(q)) || asStr(h.city).toLowerCase() === city,
        );
        return ok({ hotels: hits.map(hotelView) });
      },
    },
    {
      op: "quote_stay",
      description: "Price a stay: nightly rate × nights, plus 12% taxes, gives the total.",
      parameters: obj(
        {
          hotel: str("hotel_id or exact hotel name"),
          check_in: str("YYYY-MM-DD", { format: "date" }),
          check_out: str("YYYY-MM-DD", { format: "date" }),
        },
        ["hotel", "check_in", "check_out"],
      ),
      mutates: false,
      run: (a, rt) => {
        const h = resolveOne(table(rt.st, "hotels"), asStr(a.hotel), "hotel_id", ["name"], "hotel", hotelView);
        if (!h.ok) return h.result;
        const n = nightsBetween(asStr(a.check_in), asStr(a.check_out));
        if (!(n > 0)) return fail(400, "INVALID_DATES", "check_out must be after check_in.", { field: "check_out" });
        const base = round2(n * asNum(h.row.nightly_rate));
        return ok({
          ...hotelView(h.row),
          nights: n,
          subtotal: base,
          taxes: round2(base * TAX),
          total: round2(base * (1 + TAX)),
          quoted_at: rt.now,
        });
      },
    },
    {
      op: "book_hotel",
      description: "Book a room. Dates are YYYY-MM-DD.",
      parameters: obj(
        {
          hotel: str("hotel_id or exact hotel name"),
          check_in: str("YYYY-MM-DD", { format: "date" }),
          check_out: str("YYYY-MM-DD", { format: "date" }),
          guests: int("Guests", { minimum: 1, maximum: 8 }),
        },
        ["hotel", "check_in", "check_out", "guests"],
      ),
      mutates: true,
      run: (a, rt) => {
        const h = resolveOne(table(rt.st, "hotels"), asStr(a.hotel), "hotel_id", ["name"], "hotel", hotelView);
        if (!h.ok) return h.result;
        const n = nightsBetween(asStr(a.check_in), asStr(a.check_out));
        if (!(n > 0)) return fail(400, "INVALID_DATES", "check_out must be after check_in.", { field: "check_out" });
        if (asStr(a.check_in) < dateOf(rt.now)) return fail(422, "DATE_IN_PAST", "check_in is in the past.", { field: "check_in" });
        const base = round2(n * asNum(h.row.nightly_rate));
        const rec: JsonObject = {
          booking_id: nextId(rt.st, rt.prov.idPrefix, "bkg"),
          hotel: h.row.name,
          region: h.row.region,
          check_in: asStr(a.check_in),
          check_out: asStr(a.check_out),
          guests: asNum(a.guests),
          nights: n,
          total: round2(base * (1 + TAX)),
          status: "confirmed",
          booked_at: rt.now,
        };
        table(rt.st, "bookings").push(rec);
        return ok({ ...rec });
      },
    },
    getOp("get_booking", "bookings", "booking_id", "booking", ["book_hotel", "cancel_booking"]),
    cancelOp("cancel_booking", "bookings", "booking_id", "booking", "confirmed"),
  ],
  world: (rng) => ({
    city: rng.pick(CITIES),
    hotels: rng.sample(HOTELS, 4).map((name) => ({ name, rate: rng.range(89, 329), stars: rng.range(2, 5) })),
  }),
  tables: (w, prov) => ({
    hotels: w.hotels.map((h, i) => ({
      hotel_id: `${prov.idPrefix}_htl_${71 + i}`,
      name: h.name,
      city: w.city.name,
      region: w.city.state,
      stars: h.stars,
      nightly_rate: h.rate,
    })),
    bookings: [],
  }),
  templates: [
    {
      name: "lodging.quote",
      kind: "read",
      build: (rng, w, now) => {
        const h = rng.pick(w.hotels);
        const ci = addDays(dateOf(now), rng.range(7, 30));
        const n = rng.range(2, 4);
        const co = addDays(ci, n);
        const total = round2(n * h.rate * (1 + TAX));
        return {
          template: "lodging.quote",
          kind: "read",
          request: `How much would ${h.name} in ${w.city.name}, ${w.city.state} cost in total from ${ci} to ${co} on {provider}?`,
          main: { op: "quote_stay", args: { hotel: h.name, check_in: ci, check_out: co } },
          stated: { region: w.city.state },
          keyPath: ["total"],
          keyValue: total,
          wrongValue: round2(total * 2),
          corruption: "total disagrees with nightly rate × nights + taxes",
          answer: [{ kind: "number", id: "total", value: total, tolerance: 0.05 }],
          wrongConcept: { kind: "number", id: "wrong_total", value: round2(total * 2), tolerance: 0.05 },
          stale: {
            tsPath: ["quoted_at"],
            staleValue: round2(total * 0.8),
            staleConcept: { kind: "number", id: "stale_total", value: round2(total * 0.8), tolerance: 0.05 },
          },
          ambiguity: twinCityAmbiguity("hotel", "hotels", "hotel_id", h.name, w.city, { stars: 2, nightly_rate: Math.round(h.rate / 2) }),
        };
      },
    },
    {
      name: "lodging.book",
      kind: "write",
      build: (rng, w, now) => {
        const h = rng.pick(w.hotels);
        const ci = addDays(dateOf(now), rng.range(7, 30));
        const co = addDays(ci, rng.range(1, 4));
        const g = rng.range(1, 3);
        return {
          template: "lodging.book",
          kind: "write",
          request: `Book ${h.name} in ${w.city.name}, ${w.city.state} on {provider} from ${ci} to ${co} for ${g} guest${g > 1 ? "s" : ""}.`,
          ...bookingCore(h.name, w.city, ci, co, g),
          ambiguity: twinCityAmbiguity("hotel", "hotels", "hotel_id", h.name, w.city, { stars: 2, nightly_rate: Math.round(h.rate / 2) }),
        };
      },
    },
    {
      name: "lodging.trip",
      kind: "write",
      build: (rng, w, now) => {
        const h = rng.pick(w.hotels);
        const ci = addDays(dateOf(now), rng.range(10, 40));
        const n = rng.range(2, 4);
        const co = addDays(ci, n);
        const g = rng.range(1, 4);
        const total = round2(n * h.rate * (1 + TAX));
        return {
          template: "lodging.trip",
          kind: "write",
          request:
            `Search {provider} for hotels in ${w.city.name}, ${w.city.state}, book ${h.name} there ` +
            `from ${ci} to ${co} for ${g} guest${g > 1 ? "s" : ""}, then pull up the booking to ` +
            `confirm it and tell me the total.`,
          ...bookingCore(h.name, w.city, ci, co, g, [{ kind: "number", id: "total", value: total, tolerance: 0.05 }]),
          chain: {
            before: [{ op: "search_hotels", args: { query: w.city.name }, purpose: `search hotels in ${w.city.name}` }],
            mainBind: [{ arg: "hotel", from: 0, field: "hotel_id", where: { name: h.name } }],
            after: [
              { op: "get_booking", args: {}, bind: [{ arg: "booking_id", from: 1, field: "booking_id" }], purpose: "pull up the booking" },
            ],
          },
        };
      },
    },
  ],
});

/* ------------------------------------------------------------------ rides: Uber / Lyft */

const PLACES = [
  "Union Station",
  "City Airport (Terminal B)",
  "Convention Center",
  "Memorial Hospital",
  "Riverfront Park",
  "Central Library",
];
const TYPES: Record<string, { base: number; perMile: number }> = {
  standard: { base: 2.5, perMile: 1.65 },
  xl: { base: 3.5, perMile: 2.4 },
  comfort: { base: 3.0, perMile: 2.05 },
};

interface RidesWorld {
  home: string;
  miles: Record<string, number>;
}

function fareOf(miles: number, type: string): number {
  const t = TYPES[type] ?? TYPES.standard;
  return round2(t.base + t.perMile * miles);
}

export const rides = defineCategory<RidesWorld>({
  id: "rides",
  domain: "travel",
  title: "Ride hailing",
  providers: [
    { id: "uber", label: "Uber", idPrefix: "ub" },
    { id: "lyft", label: "Lyft", idPrefix: "ly" },
  ],
  ops: [
    {
      op: "estimate_fare",
      description: "Fare estimate (USD) between two places; estimate lies within [fare_low, fare_high].",
      parameters: obj(
        { pickup: str("Pickup address or place"), dropoff: str("Drop-off place"), ride_type: enm("Ride type", Object.keys(TYPES)) },
        ["pickup", "dropoff", "ride_type"],
      ),
      mutates: false,
      run: (a, rt) => {
        const miles = asNum((rt.st.miles as JsonObject)[asStr(a.dropoff)], -1);
        if (miles < 0)
          return fail(404, "PLACE_NOT_FOUND", `Unknown drop-off "${asStr(a.dropoff)}".`, {
            field: "dropoff",
            known: Object.keys(rt.st.miles as JsonObject),
          });
        const f = fareOf(miles, asStr(a.ride_type));
        return ok({
          pickup: asStr(a.pickup),
          dropoff: asStr(a.dropoff),
          ride_type: asStr(a.ride_type),
          miles,
          estimate: f,
          fare_low: round2(f * 0.9),
          fare_high: round2(f * 1.15),
          currency: "USD",
          quoted_at: rt.now,
        });
      },
    },
    {
      op: "request_ride",
      description: "Request a ride now or schedule one (pickup_time ISO, UTC).",
      parameters: obj(
        {
          pickup: str("Pickup address"),
          dropoff: str("Drop-off place"),
          ride_type: enm("Ride type", Object.keys(TYPES)),
          pickup_time: str("Scheduled pickup (ISO date-time, UTC)", { format: "date-time" }),
        },
        ["pickup", "dropoff", "ride_type", "pickup_time"],
      ),
      mutates: true,
      run: (a, rt) => {
        const miles = asNum((rt.st.miles as JsonObject)[asStr(a.dropoff)], -1);
        if (miles < 0) return fail(404, "PLACE_NOT_FOUND", `Unknown drop-off "${asStr(a.dropoff)}".`, { field: "dropoff" });
        if (Date.parse(asStr(a.pickup_time)) < Date.parse(rt.now))
          return fail(422, "TIME_IN_PAST", "pickup_time is in the past.", { field: "pickup_time" });
        const rec: JsonObject = {
          ride_id: nextId(rt.st, rt.prov.idPrefix, "ride"),
          pickup: asStr(a.pickup),
          dropoff: asStr(a.dropoff),
          ride_type: asStr(a.ride_type),
          pickup_time: asStr(a.pickup_time),
          fare_estimate: fareOf(miles, asStr(a.ride_type)),
          status: "scheduled",
          requested_at: rt.now,
        };
        table(rt.st, "rides").push(rec);
        return ok({ ...rec });
      },
    },
    getOp("get_ride", "rides", "ride_id", "ride", ["request_ride", "cancel_ride"]),
    cancelOp("cancel_ride", "rides", "ride_id", "ride", "scheduled"),
    {
      op: "list_ride_types",
      description: "Ride types and pricing.",
      parameters: obj({}),
      mutates: false,
      run: () => ok({ ride_types: Object.entries(TYPES).map(([type, t]) => ({ type, base_fare: t.base, per_mile: t.perMile })) }),
    },
  ],
  world: (rng) => {
    const city = rng.pick(CITIES);
    const miles: Record<string, number> = {};
    for (const p of PLACES) miles[p] = round2(rng.range(15, 220) / 10);
    return { home: `${rng.range(10, 980)} ${rng.pick(STREETS)}, ${city.name}, ${city.state}`, miles };
  },
  tables: () => ({ rides: [] }),
  extras: (w) => ({ miles: { ...w.miles } }),
  templates: [
    {
      name: "rides.estimate",
      kind: "read",
      build: (rng, w) => {
        const to = rng.pick(PLACES);
        const type = rng.pick(Object.keys(TYPES));
        const f = fareOf(w.miles[to], type);
        return {
          template: "rides.estimate",
          kind: "read",
          request: `How much is a ${type} ride from ${w.home} to ${to} on {provider}?`,
          main: { op: "estimate_fare", args: { pickup: w.home, dropoff: to, ride_type: type } },
          stated: {},
          keyPath: ["estimate"],
          keyValue: f,
          wrongValue: round2(f * 4),
          corruption: "estimate outside its own fare range",
          answer: [{ kind: "number", id: "fare", value: f, tolerance: 0.01 }],
          wrongConcept: { kind: "number", id: "wrong_fare", value: round2(f * 4), tolerance: 0.01 },
          stale: {
            tsPath: ["quoted_at"],
            staleValue: round2(f * 0.7),
            staleConcept: { kind: "number", id: "stale_fare", value: round2(f * 0.7), tolerance: 0.01 },
          },
        };
      },
    },
    {
      name: "rides.book",
      kind: "write",
      build: (rng, w, now) => {
        const to = rng.pick(PLACES);
        const wrongTo = PLACES.find((p) => p !== to) as string;
        const at = addMinutes(`${addDays(dateOf(now), 1)}T00:00:00Z`, rng.pick([7, 8, 14, 17]) * 60 + rng.pick([0, 30]));
        return {
          template: "rides.book",
          kind: "write",
          request: `Schedule a standard {provider} ride from ${w.home} to ${to} for ${at}.`,
          main: { op: "request_ride", args: { pickup: w.home, dropoff: to, ride_type: "standard", pickup_time: at } },
          stated: { dropoff: to, pickup_time: at },
          keyPath: ["dropoff"],
          keyValue: to,
          wrongValue: wrongTo,
          corruption: "drop-off stored as a different place",
          answer: [{ kind: "text", id: "dropoff", synonyms: [to, to.split(" (")[0]] }],
          wrongConcept: { kind: "text", id: "wrong_dropoff", synonyms: [wrongTo] },
          write: recordWrite(
            "rides",
            "ride_id",
            "dropoff",
            { dropoff: to, pickup_time: at, status: "scheduled" },
            { verify: "get_ride", cancel: "cancel_ride" },
          ),
        };
      },
    },
  ],
});
