import { OptionsError } from "./errors.js";

/** What every seed must be; error messages quote it so a caller learns the rule, not just the failure. */
export const SEED_RULE = "a non-negative integer no larger than 2^53 - 1 (a plain number such as 42)";

/** A short, always-printable description of a rejected value (JSON.stringify throws on bigint). */
export function describeValue(value: unknown): string {
  if (typeof value === "bigint") return `${value}n (a bigint)`;
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : `${value} (not an integer)`;
  if (typeof value === "string") return `${JSON.stringify(value.slice(0, 40))} (a string)`;
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${String(value)} (a ${typeof value})`;
}

/** Whether `value` is a valid seed (see SEED_RULE). */
export function isSeed(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Returns `value` when it is a valid seed, else throws an OptionsError on `field` whose message says what a seed
 * must be. `where` names the call (`reset()`, `Discrete.seed()`) so the error points at the caller's line.
 */
export function checkSeed(value: unknown, field: string, where: string): number {
  if (isSeed(value)) return value;
  throw new OptionsError(field, `${where}: invalid ${field}: must be ${SEED_RULE}, got ${describeValue(value)}`);
}
