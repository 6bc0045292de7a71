import { createHash } from "node:crypto";
import { bytesToBigInt } from "./blake2b.js";

/** First 8 bytes of SHA-256(utf8(s)) as a big-endian unsigned integer (the official per-task seed offset). */
export function sha256Prefix64(s: string): bigint {
  return bytesToBigInt(createHash("sha256").update(s, "utf8").digest().subarray(0, 8));
}
