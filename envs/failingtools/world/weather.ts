import type { JsonObject } from "../../../src/family.js";
import { cancelOp, defineCategory, type Path, recordWrite, type TaskSpec } from "./category.js";
import { addDays, asNum, asStr, dateOf, int, nextId, obj, ok, pick, resolveOne, str, table } from "./kit.js";
import { CITIES, TWIN_STATE, cityLabel, type City } from "./pools.js";

/* ------------------------------------------------------------------ weather: Weather.com / Yahoo Weather / AccuWeather */

const CONDITIONS = ["Sunny", "Partly cloudy", "Cloudy", "Light rain", "Thunderstorms", "Snow showers", "Fog", "Windy"];

interface WeatherWorld {
  cities: City[];
  days: { city: string; date: string; high: number; low: number; condition: string; precip: number }[];
}

const locView = (r: JsonObject): JsonObject => pick(r, ["location_id", "name", "region", "country"]);
const locFields = ["location_id", "label", "name"];

function resolveLoc(rows: JsonObject[], q: string) {
  return resolveOne(rows, q, "location_id", locFields, "location", locView);
}

/** The same city name in its twin state, as a second location row. */
function locationAmbiguity(c: City, shownPath: Path): NonNullable<TaskSpec["ambiguity"]> {
  const twin = TWIN_STATE[c.name];
  return {
    arg: "location",
    table: "locations",
    idField: "location_id",
    decoy: { name: c.name, region: twin, country: "US", label: `${c.name}, ${twin}` },
    truth: { name: c.name, region: c.state },
    shownPath,
    decoyShown: twin,
  };
}

export const weather = defineCategory<WeatherWorld>({
  id: "weather",
  domain: "information",
  title: "Weather",
  providers: [
    { id: "weathercom", label: "Weather.com", idPrefix: "wc" },
    { id: "yahooweather", label: "Yahoo Weather", idPrefix: "yw" },
    { id: "accuweather", label: "AccuWeather", idPrefix: "aw" },
  ],
  ops: [
    {
      op: "search_locations",
      description: "Find locations by city name.",
      parameters: obj({ query: str("City name, optionally with state, e.g. 'Portland, OR'") }, ["query"]),
      mutates: false,
      run: (a, rt) => {
        const q = asStr(a.query).toLowerCase().split(",")[0].trim();
        return ok({
          results: table(rt.st, "locations")
            .filter((r) => asStr(r.name).toLowerCase() === q)
            .map(locView),
        });
      },
    },
    {
      op: "get_forecast",
      description: "Daily forecast (highs and lows in °F) for a location name, 'City, ST' label or location_id.",
      parameters: obj(
        { location: str("location_id, 'City, ST' or city name"), days: int("Number of days (1-7)", { minimum: 1, maximum: 7 }) },
        ["location"],
      ),
      mutates: false,
      run: (a, rt) => {
        const loc = resolveLoc(table(rt.st, "locations"), asStr(a.location));
        if (!loc.ok) return loc.result;
        const days = table(rt.st, "forecasts")
          .filter((d) => d.location_id === loc.row.location_id)
          .slice(0, asNum(a.days, 3))
          .map((d) => pick(d, ["date", "high_f", "low_f", "condition", "precip_chance"]));
        return ok({ location: locView(loc.row), generated_at: rt.now, units: "imperial", forecast: days });
      },
    },
    {
      op: "get_alerts",
      description: "Active severe-weather alerts for a location.",
      parameters: obj({ location: str("location_id, 'City, ST' or city name") }, ["location"]),
      mutates: false,
      run: (a, rt) => {
        const loc = resolveLoc(table(rt.st, "locations"), asStr(a.location));
        if (!loc.ok) return loc.result;
        return ok({ location: locView(loc.row), alerts: [], generated_at: rt.now });
      },
    },
    {
      op: "list_saved_locations",
      description: "The user's saved locations.",
      parameters: obj({}),
      mutates: false,
      verifies: ["save_location", "remove_saved_location"],
      run: (_a, rt) =>
        ok({
          saved_locations: table(rt.st, "saved")
            .filter((s) => s.status === "saved")
            .map((s) => ({ ...s })),
        }),
    },
    {
      op: "save_location",
      description: "Add a location to the user's saved locations under a label.",
      parameters: obj({ location: str("location_id, 'City, ST' or city name"), label: str("Label, e.g. 'Home'") }, ["location", "label"]),
      mutates: true,
      run: (a, rt) => {
        const loc = resolveLoc(table(rt.st, "locations"), asStr(a.location));
        if (!loc.ok) return loc.result;
        const rec: JsonObject = {
          saved_id: nextId(rt.st, rt.prov.idPrefix, "sav"),
          location_id: loc.row.location_id,
          city: loc.row.name,
          region: loc.row.region,
          label: asStr(a.label),
          status: "saved",
          saved_at: rt.now,
        };
        table(rt.st, "saved").push(rec);
        return ok({ ...rec, message: "Location saved" });
      },
    },
    cancelOp("remove_saved_location", "saved", "saved_id", "saved location", "saved"),
  ],
  world: (rng, now) => {
    const cities = rng.sample(CITIES, 4);
    const days: WeatherWorld["days"] = [];
    for (const c of cities) {
      for (let i = 0; i < 5; i++) {
        const high = rng.range(38, 96);
        days.push({
          city: c.name,
          date: addDays(dateOf(now), i),
          high,
          low: high - rng.range(8, 22),
          condition: rng.pick(CONDITIONS),
          precip: rng.range(0, 9) * 10,
        });
      }
    }
    return { cities, days };
  },
  tables: (w, prov) => ({
    locations: w.cities.map((c, i) => ({
      location_id: `${prov.idPrefix}_loc_${201 + i}`,
      name: c.name,
      region: c.state,
      country: "US",
      label: cityLabel(c),
    })),
    forecasts: w.days.map((d) => ({
      location_id: `${prov.idPrefix}_loc_${201 + w.cities.findIndex((c) => c.name === d.city)}`,
      date: d.date,
      high_f: d.high,
      low_f: d.low,
      condition: d.condition,
      precip_chance: d.precip,
    })),
    saved: [],
  }),
  templates: [
    {
      name: "weather.forecast",
      kind: "read",
      build: (rng, w) => {
        const c = rng.pick(w.cities);
        const k = rng.range(1, 2);
        const d = w.days.filter((x) => x.city === c.name)[k];
        return {
          template: "weather.forecast",
          kind: "read",
          request: `What's the forecast high for ${cityLabel(c)} on ${d.date}? Use {provider}.`,
          main: { op: "get_forecast", args: { location: c.name, days: 7 } },
          stated: { region: c.state },
          keyPath: ["forecast", k, "high_f"],
          keyValue: d.high,
          wrongValue: -512,
          corruption: "temperature below absolute zero",
          answer: [{ kind: "number", id: "high_f", value: d.high, tolerance: 0.5 }],
          wrongConcept: { kind: "number", id: "impossible_temp", value: -512, tolerance: 0.5 },
          stale: {
            tsPath: ["generated_at"],
            staleValue: d.high - 11,
            staleConcept: { kind: "number", id: "stale_high", value: d.high - 11, tolerance: 0.5 },
          },
          ambiguity: locationAmbiguity(c, ["location", "region"]),
        };
      },
    },
    {
      name: "weather.save",
      kind: "write",
      build: (rng, w) => {
        const c = rng.pick(w.cities);
        const label = rng.pick(["Home", "Mom's place", "Office", "Cabin", "Work trip"]);
        return {
          template: "weather.save",
          kind: "write",
          request: `Save ${cityLabel(c)} to my {provider} saved locations with the label "${label}".`,
          main: { op: "save_location", args: { location: c.name, label } },
          stated: { region: c.state, label },
          keyPath: ["label"],
          keyValue: label,
          wrongValue: "Unnamed location",
          corruption: "label dropped on save",
          answer: [
            { kind: "text", id: "city", synonyms: [c.name] },
            { kind: "text", id: "label", synonyms: [label] },
          ],
          wrongConcept: { kind: "text", id: "wrong_label", synonyms: ["unnamed location"] },
          write: recordWrite(
            "saved",
            "saved_id",
            "label",
            { city: c.name, region: c.state, label, status: "saved" },
            { verify: "list_saved_locations", cancel: "remove_saved_location", verifyArgs: {} },
          ),
          ambiguity: locationAmbiguity(c, ["region"]),
        };
      },
    },
  ],
});
