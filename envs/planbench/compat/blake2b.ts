/**
 * BLAKE2b (RFC 7693) with the digest length as a real parameter.
 *
 * Why not node:crypto: Node exposes `blake2b512` only; the official runtime hashes with
 * `digest_size=8` / `16`, and BLAKE2b folds the digest size into the parameter block, so a
 * truncated 64-byte digest gives a different value. 64-bit words are held as (lo, hi) pairs of
 * 32-bit integers for speed.
 */

const IV32 = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
];
// Word offsets (×2 for the lo/hi layout) of the message schedule, precomputed once.
const SIGMA2 = SIGMA.map((row) => row.map((i) => i * 2));

const v = new Uint32Array(32);
const m = new Uint32Array(32);

/** v[a] += v[b] + (lo, hi) as 64-bit words. */
function add3(a: number, b: number, lo: number, hi: number): void {
  let l = v[a]! + v[b]!;
  let h = v[a + 1]! + v[b + 1]! + (l >= 0x100000000 ? 1 : 0);
  l >>>= 0;
  const l2 = l + lo;
  h = h + hi + (l2 >= 0x100000000 ? 1 : 0);
  v[a] = l2 >>> 0;
  v[a + 1] = h >>> 0;
}

function xorRot(a: number, b: number, r: number): void {
  const lo = v[a]! ^ v[b]!;
  const hi = v[a + 1]! ^ v[b + 1]!;
  if (r === 32) {
    v[a] = hi;
    v[a + 1] = lo;
  } else if (r < 32) {
    v[a] = ((lo >>> r) | (hi << (32 - r))) >>> 0;
    v[a + 1] = ((hi >>> r) | (lo << (32 - r))) >>> 0;
  } else {
    const s = r - 32;
    v[a] = ((hi >>> s) | (lo << (32 - s))) >>> 0;
    v[a + 1] = ((lo >>> s) | (hi << (32 - s))) >>> 0;
  }
}

function G(a: number, b: number, c: number, d: number, x: number, y: number): void {
  add3(a, b, m[x]!, m[x + 1]!);
  xorRot(d, a, 32);
  add3(c, d, 0, 0);
  xorRot(b, c, 24);
  add3(a, b, m[y]!, m[y + 1]!);
  xorRot(d, a, 16);
  add3(c, d, 0, 0);
  xorRot(b, c, 63);
}

function compress(h: Uint32Array, block: Uint8Array, off: number, t: number, last: boolean): void {
  for (let i = 0; i < 16; i++) {
    v[i] = h[i]!;
    v[i + 16] = IV32[i]!;
  }
  // 128-bit counter: messages here are far below 2^53 bytes, so the high words stay zero.
  v[24] = (v[24]! ^ (t >>> 0)) >>> 0;
  v[25] = (v[25]! ^ Math.floor(t / 0x100000000)) >>> 0;
  if (last) {
    v[28] = ~v[28]! >>> 0;
    v[29] = ~v[29]! >>> 0;
  }
  for (let i = 0; i < 32; i++) {
    const p = off + i * 4;
    m[i] = (block[p]! | (block[p + 1]! << 8) | (block[p + 2]! << 16) | (block[p + 3]! << 24)) >>> 0;
  }
  for (let r = 0; r < 12; r++) {
    const s = SIGMA2[r]!;
    G(0, 8, 16, 24, s[0]!, s[1]!);
    G(2, 10, 18, 26, s[2]!, s[3]!);
    G(4, 12, 20, 28, s[4]!, s[5]!);
    G(6, 14, 22, 30, s[6]!, s[7]!);
    G(0, 10, 20, 30, s[8]!, s[9]!);
    G(2, 12, 22, 24, s[10]!, s[11]!);
    G(4, 14, 16, 26, s[12]!, s[13]!);
    G(6, 8, 18, 28, s[14]!, s[15]!);
  }
  for (let i = 0; i < 16; i++) h[i] = (h[i]! ^ v[i]! ^ v[i + 16]!) >>> 0;
}

const encoder = new TextEncoder();

/** Unkeyed BLAKE2b of `data` (a string is hashed as UTF-8) with a digest of `outLen` bytes (1..64). */
export function blake2b(data: Uint8Array | string, outLen = 64): Uint8Array {
  if (!Number.isInteger(outLen) || outLen < 1 || outLen > 64) {
    throw new RangeError(`blake2b: outLen must be an integer in 1..64, got ${outLen}`);
  }
  const input = typeof data === "string" ? encoder.encode(data) : data;
  const h = new Uint32Array(IV32.subarray(0, 16));
  h[0] = (h[0]! ^ 0x01010000 ^ outLen) >>> 0;
  const block = new Uint8Array(128);
  let t = 0;
  let pos = 0;
  // All full blocks except the last one are compressed without the final flag.
  while (input.length - pos > 128) {
    t += 128;
    compress(h, input, pos, t, false);
    pos += 128;
  }
  block.fill(0);
  block.set(input.subarray(pos));
  t += input.length - pos;
  compress(h, block, 0, t, true);
  const out = new Uint8Array(outLen);
  for (let i = 0; i < outLen; i++) out[i] = (h[i >> 2]! >>> (8 * (i & 3))) & 0xff;
  return out;
}

/** Hex digest helper. */
export function blake2bHex(data: Uint8Array | string, outLen = 64): string {
  return Buffer.from(blake2b(data, outLen)).toString("hex");
}

/** The digest read as a big-endian unsigned integer (Python `int.from_bytes(d, "big")`). */
export function blake2bInt(data: Uint8Array | string, outLen: number): bigint {
  return bytesToBigInt(blake2b(data, outLen));
}

export function bytesToBigInt(bytes: Uint8Array): bigint {
  let x = 0n;
  for (const b of bytes) x = (x << 8n) | BigInt(b);
  return x;
}
