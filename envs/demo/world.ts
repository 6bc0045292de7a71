import { z } from "zod";
import type { JsonObject, ToolDefinition } from "../../src/family.js";

/** The demo world: a city's weather, a converter and an outbox that really records sent mail. */
export interface DemoWorld {
  outbox: { to: string; subject: string; body: string }[];
}

/** The world's exact shape, for `setState` (a restored snapshot must not carry a malformed outbox). */
export const DEMO_WORLD_SCHEMA = z.strictObject({
  outbox: z.array(z.strictObject({ to: z.string(), subject: z.string(), body: z.string() })),
});

const FORECASTS: Record<string, number> = { berlin: 7, paris: 11, lisbon: 17, oslo: -2, cairo: 24 };

function forecast(source: string) {
  return (args: JsonObject) => {
    const city = String(args.city).toLowerCase();
    const c = FORECASTS[city];
    if (c === undefined)
      return { ok: false as const, error: { code: "city_not_found", status: 404, message: `no forecast for "${args.city}"` } };
    return { ok: true as const, output: { city: args.city as string, temperature_c: c, source } };
  };
}

/** Documented types of the forecast providers' parameter and response fields (the discrete mode binds by them). */
const FORECAST_SEMANTICS = { parameters: { city: "city" }, outputs: { city: "city", temperature_c: "temperature_c" } };

/** Five tools: two interchangeable forecast providers (one alternative group), a converter, a mailer, an outbox reader. */
export const DEMO_TOOLS: ToolDefinition<DemoWorld>[] = [
  {
    name: "weather_com_forecast",
    description: "Current temperature for a city from Weather.com.",
    parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
    meta: { group: "forecast", category: "Source" },
    semantics: FORECAST_SEMANTICS,
    run: forecast("weather.com"),
  },
  {
    name: "yahoo_weather_forecast",
    description: "Current temperature for a city from Yahoo Weather.",
    parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
    meta: { group: "forecast", category: "Source" },
    semantics: FORECAST_SEMANTICS,
    run: forecast("yahoo"),
  },
  {
    name: "celsius_to_fahrenheit",
    description: "Convert a temperature from Celsius to Fahrenheit.",
    parameters: { type: "object", properties: { temperature_c: { type: "number", minimum: -273.15 } }, required: ["temperature_c"] },
    meta: { category: "Processor" },
    semantics: { parameters: { temperature_c: "temperature_c" }, outputs: { temperature_f: "temperature_f" } },
    run: (args) => ({ ok: true, output: { temperature_f: Math.round(((args.temperature_c as number) * 9) / 5 + 32) } }),
  },
  {
    name: "send_email",
    description: "Send an e-mail.",
    parameters: {
      type: "object",
      properties: { to: { type: "string", format: "email" }, subject: { type: "string" }, body: { type: "string" } },
      required: ["to", "subject", "body"],
    },
    meta: { category: "Action", mutates: true },
    semantics: { parameters: { to: "email_address", subject: "email_subject", body: "email_body" }, outputs: { message_id: "message_id" } },
    run: (args, ctx) => {
      ctx.state.outbox.push({ to: args.to as string, subject: args.subject as string, body: args.body as string });
      return { ok: true, output: { status: "sent", message_id: `msg-${ctx.state.outbox.length}` } };
    },
  },
  {
    name: "list_sent_email",
    description: "List e-mails sent so far.",
    parameters: { type: "object", properties: {} },
    meta: { category: "Source", verifies: ["send_email"] },
    run: (_args, ctx) => ({ ok: true, output: { messages: ctx.state.outbox.map((m) => ({ ...m })) } }),
  },
];
