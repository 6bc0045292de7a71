/**
 * Bounds on what the server sends back about a request, so that a bad request cannot produce a huge reply, and
 * labels for logging clients.
 */
import { encode } from "./codec.js";
import { clip, MAX_LISTED_ISSUES } from "./protocol.js";

/** libzmq's generated routing ids: a 0x00 byte and a 32-bit counter. */
export const GENERATED_ID_BYTES = 5;

/** A routing id for logs: printable ids as they are, others in hex, both shortened. */
export function clientLabel(key: string): string {
  const printable = /^[\x20-\x7e]{1,64}$/.test(key);
  return printable ? JSON.stringify(key) : `0x${Buffer.from(key, "latin1").subarray(0, 32).toString("hex")}`;
}

/** Details of an error reply, bounded: long lists keep their first MAX_LISTED_ISSUES items plus a count. */
export function capDetails(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) {
    if (typeof v === "string") out[k] = clip(v);
    else if (Array.isArray(v) && v.length > MAX_LISTED_ISSUES) {
      out[k] = v.slice(0, MAX_LISTED_ISSUES);
      out[`${k}Count`] = v.length;
    } else out[k] = v;
  }
  let size: number;
  try {
    size = encode(out).length;
  } catch {
    size = Infinity;
  }
  if (size <= MAX_DETAILS_BYTES) return out;
  const field = typeof details.field === "string" ? clip(details.field, 200) : undefined;
  const note = `details of ${size} bytes left out (limit ${MAX_DETAILS_BYTES})`;
  return { ...(field !== undefined ? { field } : {}), truncated: true, note };
}

/** Largest encoded `details` map an error reply carries. */
const MAX_DETAILS_BYTES = 16 * 1024;
