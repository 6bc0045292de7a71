import type { Action, Info, JsonObject, Policy, PolicyEntry, Rng, ToolObservation } from "../../src/family.js";

/** Reads the task text: which city, which recipient. */
function parseTask(task: string): { city: string; to: string } {
  const city = /temperature in (\w+)/.exec(task)?.[1] ?? "";
  const to = /e-mail it to (\S+) with/.exec(task)?.[1] ?? "";
  return { city, to };
}

/**
 * A careful agent using only what it observes: retries an explicit error once, then switches provider; rejects
 * physically impossible temperatures; reads back the outbox before answering.
 */
export function carefulDemoPolicy(): Policy<ToolObservation, Action> {
  let provider = 0;
  let errors = 0;
  let tempC: number | null = null;
  let tempF: number | null = null;
  let sent = false;
  let verified = false;
  const providers = ["weather_com_forecast", "yahoo_weather_forecast"];
  return {
    name: "careful",
    reset() {
      provider = 0;
      errors = 0;
      tempC = tempF = null;
      sent = verified = false;
    },
    act(obs: ToolObservation): Action {
      const { city, to } = parseTask(obs.task);
      const r = obs.response as JsonObject | null;
      if (r && "error" in r) {
        errors += 1;
        if (errors >= 2) provider = Math.min(provider + 1, providers.length - 1);
      } else if (r && typeof r.temperature_c === "number") {
        if (r.temperature_c < -273.15) provider = Math.min(provider + 1, providers.length - 1);
        else tempC = r.temperature_c;
      } else if (r && typeof r.temperature_f === "number") tempF = r.temperature_f;
      else if (r && r.status === "sent") sent = true;
      else if (r && Array.isArray(r.messages)) verified = true;
      if (tempC === null) return { type: "tool_call", name: providers[provider], arguments: { city } };
      if (tempF === null) return { type: "tool_call", name: "celsius_to_fahrenheit", arguments: { temperature_c: tempC } };
      if (!sent)
        return { type: "tool_call", name: "send_email", arguments: { to, subject: "Weather", body: `It is ${tempF}°F in ${city}.` } };
      if (!verified) return { type: "tool_call", name: "list_sent_email", arguments: {} };
      return { type: "answer", content: `Sent: ${tempF}°F in ${city}.` };
    },
  };
}

/** Samples uniformly from the action space (mostly tool calls with schema-valid arguments). */
export function randomPolicy(env: { actionSpace: { sample(rng: Rng): unknown } }, rng: Rng): Policy<unknown, unknown> {
  return { name: "random", act: () => env.actionSpace.sample(rng) };
}

export const DEMO_POLICIES: Record<string, PolicyEntry<ToolObservation, Action>> = {
  random: {
    description: "uniform samples from the action space",
    usesHidden: false,
    create: (env, rng) => randomPolicy(env, rng) as Policy<ToolObservation, Action>,
  },
  careful: {
    description: "observable-only: retry once, switch provider, plausibility check, read back",
    usesHidden: false,
    create: () => carefulDemoPolicy(),
  },
};
export type { Info };
