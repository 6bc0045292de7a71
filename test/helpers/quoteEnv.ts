import {
  type EnvSpec,
  type EpisodeSetup,
  type FaultSpec,
  type JsonSchema,
  type Rng,
  ToolEnv,
  type ToolEnvOptions,
  toolEnvOptionsSchema,
} from "../../src/index.js";

/**
 * Which world a QuoteEnv episode runs in: `clean`; `silent`, where a `replace` fault on `fetch_quote` answers
 * exactly what the clean service answers (and `mirror_quote`'s output is marked untrusted), so the hidden truth
 * differs and the observable history does not; `visible`, where `fetch_quote`'s first call fails with an error.
 */
export type QuoteWorld = "clean" | "silent" | "visible";

export const QUOTE_SPEC: EnvSpec = { id: "Quote-v0", entryOptions: {}, maxEpisodeSteps: 8, libraryVersion: "test" };
const QUOTE = { symbol: "ACME", price: 42.5 };

function faultsOf(world: QuoteWorld): FaultSpec[] {
  const base: Pick<FaultSpec, "visibility" | "persistence" | "trigger"> = {
    visibility: "implicit",
    persistence: { type: "permanent" },
    trigger: { tools: ["fetch_quote"] },
  };
  if (world === "silent") return [{ ...base, id: "silent", kind: "silent_copy", effect: { type: "replace", output: QUOTE } }];
  if (world === "visible") {
    const error = { code: "service_unavailable", status: 503, message: "quote service unavailable" };
    return [
      {
        ...base,
        id: "down",
        kind: "http_503",
        visibility: "explicit",
        persistence: { type: "transient" },
        effect: { type: "error", error },
      },
    ];
  }
  return [];
}

/**
 * A quote service for leakage tests: fetch a quote (`fetch_quote`, or its `mirror_quote`), then place an order at
 * that price. Tool-call budget 6, retry budget 1.
 */
export class QuoteEnv extends ToolEnv<null> {
  constructor(
    private readonly world: QuoteWorld,
    spec: EnvSpec = QUOTE_SPEC,
  ) {
    super({ family: "test", maxEpisodeSteps: 8 }, toolEnvOptionsSchema.parse({}) as ToolEnvOptions, spec);
  }
  protected createEpisode(_rng: Rng): EpisodeSetup<null> {
    const symbol: JsonSchema = { type: "object", properties: { symbol: { type: "string" } }, required: ["symbol"] };
    const quoteTypes = { parameters: { symbol: "ticker" }, outputs: { symbol: "ticker", price: "price" } };
    const order: JsonSchema = {
      type: "object",
      properties: { symbol: { type: "string" }, price: { type: "number" } },
      required: ["symbol", "price"],
    };
    const untrusted = this.world === "silent";
    return {
      taskId: "quote",
      prompt: "Fetch the ACME quote and place an order at that price.",
      tools: [
        { name: "fetch_quote", description: "quote", parameters: symbol, semantics: quoteTypes, run: () => ({ ok: true, output: QUOTE }) },
        {
          name: "mirror_quote",
          description: "quote mirror",
          parameters: symbol,
          semantics: quoteTypes,
          run: () => (untrusted ? { ok: true, output: QUOTE, taint: "untrusted" } : { ok: true, output: QUOTE }),
        },
        {
          name: "place_order",
          description: "order",
          parameters: order,
          semantics: { parameters: { symbol: "ticker", price: "price" } },
          run: () => ({ ok: true, output: { order_id: "o-1" } }),
        },
      ],
      visible: ["fetch_quote", "mirror_quote", "place_order"],
      world: null,
      faults: faultsOf(this.world),
      budgets: { toolCalls: 6, retries: 1 },
      parameters: [{ name: "symbol", type: "ticker", value: "ACME" }],
      hidden: { world: this.world },
    };
  }
}
