/**
 * The official runtime's hashlib digests, read as Python reads them. BLAKE2b comes from @noble/hashes because the
 * runtime hashes with `digest_size=8` / `16` and BLAKE2b folds the digest size into its parameter block (a
 * truncated node:crypto `blake2b512` digest is a different value); SHA-256 comes from node:crypto.
 */
import { createHash } from "node:crypto";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** `hashlib.blake2b(text.encode(), digest_size=outLen).digest()` (outLen 1..64). */
export function blake2bDigest(text: string, outLen: number): Uint8Array {
  return blake2b(utf8ToBytes(text), { dkLen: outLen });
}

/** `int.from_bytes(hashlib.blake2b(text.encode(), digest_size=outLen).digest(), "big")`. */
export function blake2bInt(text: string, outLen: number): bigint {
  return BigInt(`0x${bytesToHex(blake2bDigest(text, outLen))}`);
}

/** First 8 bytes of SHA-256(utf8(s)) as a big-endian unsigned integer (the official per-task seed offset). */
export function sha256Prefix64(s: string): bigint {
  return createHash("sha256").update(s, "utf8").digest().readBigUInt64BE(0);
}
