import type { JsonValue } from "../../../src/family.js";
import type { FailureSource } from "./schema.js";

/** One of the paper's worked examples: which generated scenario it pins (and the provider pair or key value it needs). */
interface Worked {
  template: string;
  source: FailureSource;
  persistence: "permanent" | "temporary";
  name: string;
  primary?: string;
  fallback?: string;
  keyValue?: JsonValue;
}
/** The paper's worked examples, in our own form. */
export const WORKED_EXAMPLES: Worked[] = [
  { template: "weather.save", source: "silent_noop", persistence: "permanent", name: "saved locations silently dropped" },
  {
    template: "payments.send",
    source: "corrupted_state",
    persistence: "permanent",
    name: "$150 transfer comes back as $15",
    keyValue: 150,
  },
  {
    template: "reviews.rating",
    source: "availability_denial",
    persistence: "permanent",
    name: "review endpoint in permanent migration, Yelp fallback",
    primary: "googlereviews",
    fallback: "yelp",
  },
  { template: "weather.forecast", source: "data_staleness", persistence: "permanent", name: "stale forecast flags" },
  { template: "food.order", source: "corrupted_state", persistence: "permanent", name: "corrupted order total" },
  { template: "grocery.order", source: "corrupted_state", persistence: "temporary", name: "delivery slot a year in the past" },
  { template: "grocery.slots", source: "corrupted_state", persistence: "permanent", name: "delivery windows listed a year in the past" },
  { template: "grocery.pickup", source: "corrupted_state", persistence: "permanent", name: "pickup slot before the order is ready" },
];
