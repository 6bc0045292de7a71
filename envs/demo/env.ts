import { z } from "zod";
import {
  type CallRecord,
  type CallReport,
  type CorruptionFn,
  type EnvSpec,
  type EpisodeEnd,
  type EpisodeSetup,
  type FaultSpec,
  type JsonObject,
  type Rng,
  type StepContext,
  type StepReport,
  type TerminationReason,
  ToolEnv,
  toolEnvOptionsSchema,
} from "../../src/family.js";
import { DEMO_TOOLS, DEMO_WORLD_SCHEMA, type DemoWorld } from "./world.js";

export const demoOptionsSchema = toolEnvOptionsSchema
  .extend({
    /** Which fault the forecast group suffers. */
    fault: z.enum(["none", "transient", "permanent", "implicit"]).default("transient"),
  })
  .strict();
export type DemoOptions = z.infer<typeof demoOptionsSchema>;

const CITIES = ["Berlin", "Paris", "Lisbon", "Oslo", "Cairo"];
const TEMPS: Record<string, number> = { Berlin: 7, Paris: 11, Lisbon: 17, Oslo: -2, Cairo: 24 };

function faultsFor(kind: DemoOptions["fault"]): FaultSpec[] {
  if (kind === "none") return [];
  if (kind === "implicit") {
    return [
      {
        id: "forecast-corrupt",
        kind: "physics_violation",
        visibility: "implicit",
        persistence: { type: "permanent" },
        trigger: { group: "forecast", bindFirstInGroup: true },
        effect: { type: "corrupt", transform: "below_absolute_zero" },
      },
    ];
  }
  return [
    {
      id: "forecast-503",
      kind: "http_503",
      visibility: "explicit",
      persistence: { type: kind === "transient" ? "transient" : "permanent" },
      trigger: { group: "forecast", bindFirstInGroup: true },
      effect: { type: "error", error: { code: "service_unavailable", status: 503, message: "upstream weather service unavailable" } },
    },
  ];
}

/** The hooks' empty answer, shared (they run on every call and step; the engine only reads it). */
const NO_REPORT: CallReport & StepReport = Object.freeze({});

/** The demo's one corruption: an implicit fault that reports a physically impossible temperature. */
const CORRUPTIONS: Readonly<Record<string, CorruptionFn<DemoWorld>>> = {
  below_absolute_zero: ({ output }) => ({ ...(output as JsonObject), temperature_c: -300 }),
};

/**
 * A five-tool demo: look up a city's temperature (two providers, one of them faulty), convert it and e-mail it.
 * Small enough to read in one sitting; it exercises every engine mechanism the families use.
 */
export class DemoEnv extends ToolEnv<DemoWorld, DemoOptions> {
  private city = "";
  private recipient = "";

  constructor(options: DemoOptions, spec: EnvSpec) {
    super(
      {
        family: "demo",
        maxEpisodeSteps: 10,
        familyTerms: { sent_correct_email: "1 when the e-mail with the right Fahrenheit value is sent" },
        familyEventTypes: ["demo:email_sent"],
        worldSchema: DEMO_WORLD_SCHEMA,
        // What anyone can see: no temperature is below absolute zero.
        suspiciousValue: (field, value) => field === "temperature_c" && typeof value === "number" && value < -273.15,
      },
      options,
      spec,
    );
  }

  protected createEpisode(rng: Rng, _options: JsonObject): EpisodeSetup<DemoWorld> {
    const task = rng.derive("task");
    this.city = task.pick(CITIES);
    this.recipient = `${task.pick(["ana", "li", "sam", "noor"])}@example.com`;
    const f = Math.round((TEMPS[this.city] * 9) / 5 + 32);
    return {
      taskId: `demo-${this.city.toLowerCase()}`,
      prompt:
        `Look up the current temperature in ${this.city}, convert it to Fahrenheit and e-mail it ` +
        `to ${this.recipient} with the subject "Weather".`,
      tools: DEMO_TOOLS,
      visible: DEMO_TOOLS.map((t) => t.name),
      world: { outbox: [] },
      faults: faultsFor(this.options.fault),
      budgets: { toolCalls: 8, retries: 3 },
      corruptions: CORRUPTIONS,
      // The task's parameters as data (what the prompt quotes, and the formats of the e-mail body and the answer).
      parameters: [
        { name: "city", type: "city", value: this.city },
        { name: "to", type: "email_address", value: this.recipient },
        { name: "subject", target: "send_email", value: "Weather" },
        { name: "body", target: "send_email", template: "It is {temperature_f}°F in {city}." },
        { name: "content", target: "answer", template: "Sent: {temperature_f}°F in {city}." },
      ],
      hidden: { city: this.city, expectedFahrenheit: f, faultyGroup: this.options.fault === "none" ? null : "forecast" },
    };
  }

  private expected(): number {
    return Math.round((TEMPS[this.city] * 9) / 5 + 32);
  }

  private sentCorrect(): boolean {
    const world = this.episode?.data.world;
    return !!world?.outbox.some((m) => m.to === this.recipient && m.body.includes(String(this.expected())));
  }

  /** An answer succeeds when the right e-mail went out; aborting and budgets never do. */
  protected override judge(end: EpisodeEnd): boolean | null {
    return end.kind === "answer" ? this.sentCorrect() : null;
  }

  protected override onCall(record: CallRecord): CallReport {
    if (record.tool !== "send_email" || !record.ok) return NO_REPORT;
    return { events: [{ type: "demo:email_sent", correct: this.sentCorrect() }] };
  }

  protected override stepReport(step: StepContext): StepReport {
    return step.events.some((e) => e.type === "demo:email_sent" && e.correct === true)
      ? { rawTerms: { sent_correct_email: 1 } }
      : NO_REPORT;
  }

  /** Φ of the last `potential()`, with the episode and call count it was computed for (calls are append-only). */
  private phiEpisode: object | null = null;
  private phiCalls = -1;
  private phiValue = 0;

  /** Φ = −(calls still needed): forecast, convert, send. */
  protected override potential(): number {
    // Only a recorded call (a send included) changes Φ, so a step without one (answer, abort) reuses it.
    const episode = this.episode;
    if (episode === null) return this.computePotential();
    const count = episode.data.calls.length;
    if (this.phiEpisode !== episode || this.phiCalls !== count) {
      this.phiValue = this.computePotential();
      this.phiEpisode = episode;
      this.phiCalls = count;
    }
    return this.phiValue;
  }

  private computePotential(): number {
    const calls = this.episode?.data.calls ?? [];
    // Runs every step: one pass over the calls, no closures (under tsx a named closure costs a `__name` call).
    let forecast = false;
    let converted = false;
    const celsius = TEMPS[this.city];
    for (let i = 0; i < calls.length && !(forecast && converted); i++) {
      const c = calls[i];
      if (!c.ok) continue;
      if (c.faults.length === 0 && (c.tool === "weather_com_forecast" || c.tool === "yahoo_weather_forecast")) forecast = true;
      else if (c.tool === "celsius_to_fahrenheit" && c.arguments.temperature_c === celsius) converted = true;
    }
    return -(3 - (forecast ? 1 : 0) - (converted ? 1 : 0) - (this.sentCorrect() ? 1 : 0));
  }

  protected override episodeMetrics(success: boolean, reason: TerminationReason, _end: EpisodeEnd): JsonObject {
    const calls = this.episode?.data.calls ?? [];
    return { success: success ? 1 : 0, toolCalls: calls.length, faultsSeen: calls.filter((c) => c.faults.length > 0).length, reason };
  }
}
