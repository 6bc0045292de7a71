/**
 * Request payloads (env options, actions, snapshots) must be plain JSON-like data: the library serialises and
 * compares them as JSON. msgpackr still decodes a few things the protocol excludes — integers beyond ±2^53 (as
 * bigints) and its extension types (dates, sets, typed arrays, ...) — and a deeply nested value would overflow
 * the stack of any recursive consumer. This check turns each of those into a VALIDATION_ERROR naming the field.
 */
import { BridgeError } from "./protocol.js";

/** Deeper than any option, action or snapshot the library produces (snapshots nest about a dozen levels). */
export const MAX_PAYLOAD_DEPTH = 64;

function reject(field: string, reason: string): never {
  throw new BridgeError("VALIDATION_ERROR", `${field}: ${reason}`, { field, reason });
}

/** Throws a VALIDATION_ERROR naming the first offending path below `field`; returns quietly for plain data. */
export function assertPlainPayload(value: unknown, field: string, depth = 0): void {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "number":
    case "undefined":
      return;
    case "bigint":
      return reject(field, "integer beyond ±2^53 (the library's numbers are float64; send it as a string if it is an id)");
    case "object":
      break;
    default:
      return reject(field, `unsupported value of type ${typeof value}`);
  }
  if (value === null) return;
  if (depth >= MAX_PAYLOAD_DEPTH) reject(field, `nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) assertPlainPayload(value[i], `${field}.${i}`, depth + 1);
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? "object";
    return reject(field, `a binary or extension value (${kind}) is not allowed here; send maps, lists, strings, numbers, booleans and nil`);
  }
  for (const k of Object.keys(value)) assertPlainPayload((value as Record<string, unknown>)[k], `${field}.${k}`, depth + 1);
}
