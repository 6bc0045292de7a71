/**
 * Malformed-frame fuzz (seeded, a few seconds): 10,000+ frames — random bytes, truncations, bit flips, corrupted
 * headers, extension types and oversized counts spliced into valid requests — through a real socket. Every frame
 * gets exactly one reply with a documented code, nothing hangs, and the server keeps serving a well-behaved client;
 * a second client's pings stay fast throughout.
 */
import seedrandom from "seedrandom";
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../bridge/client.js";
import { encode } from "../../bridge/codec.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { ERROR_CODES } from "../../bridge/protocol.js";
import { BridgeServer } from "../../bridge/server.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const FRAMES = 10_000;

function makeFrames(seed: string, session: string): Buffer[] {
  const rng = seedrandom(seed);
  const int = (n: number): number => Math.floor(rng() * n);
  const valid = [
    encode({ id: 1, op: "ping" }),
    encode({ id: 2, op: "hello", versions: [1] }),
    encode({ id: 3, op: "make", env_id: "Demo-v0", options: { fault: "permanent" }, num_envs: 2 }),
    encode({ id: 4, op: "step", session, actions: [{ type: "abort", reason: "x" }] }),
    encode({ id: 5, op: "reset", session, seed: [1], options: { a: [1, 2, { b: null }] } }),
    encode({ id: 6, op: "set_state", session, state: { kind: "recovery-gym/tool-env-state", data: {} } }),
    encode({ id: 7, op: "get_spec", env_id: "ToolMaze-v0" }),
  ];
  // Bytes that announce something big or exotic: map32/array32/str32/bin32 with huge counts, ext types, 0xc1.
  const nasty = [
    [0xdf, 0xff, 0xff, 0xff, 0xff],
    [0xdd, 0x7f, 0xff, 0xff, 0xff],
    [0xdb, 0xff, 0xff, 0xff, 0xf0],
    [0xc6, 0x10, 0, 0, 0],
    [0xd4, 0x00, 0x01],
    [0xd6, 0xff, 0, 0, 0, 1],
    [0xc7, 0x03, 0x42, 1, 2, 3],
    [0xc1],
    [0xde, 0xff, 0xff],
    [0xdc, 0xff, 0xff],
  ].map((b) => Buffer.from(b));
  const out: Buffer[] = [];
  for (let i = 0; i < FRAMES; i++) {
    const base = Buffer.from(valid[int(valid.length)]);
    switch (int(6)) {
      case 0: {
        const b = Buffer.alloc(1 + int(64));
        for (let j = 0; j < b.length; j++) b[j] = int(256);
        out.push(b);
        break;
      }
      case 1:
        out.push(base.subarray(0, int(base.length)));
        break;
      case 2: {
        for (let k = 0, n = 1 + int(4); k < n; k++) base[int(base.length)] ^= 1 << int(8);
        out.push(base);
        break;
      }
      case 3: {
        const at = int(base.length);
        out.push(Buffer.concat([base.subarray(0, at), nasty[int(nasty.length)], base.subarray(at)]));
        break;
      }
      case 4: {
        const at = int(base.length);
        const n = nasty[int(nasty.length)];
        out.push(Buffer.concat([base.subarray(0, at), n, base.subarray(Math.min(base.length, at + n.length))]));
        break;
      }
      default: {
        // deep nesting or long arrays of empty arrays
        const depth = 1 + int(200);
        out.push(
          Buffer.concat([
            Buffer.from([0x82]),
            encode("id"),
            encode(i),
            encode("op"),
            encode("ping"),
            Buffer.alloc(depth, 0x91),
            Buffer.from([0xc0]),
          ]),
        );
      }
    }
  }
  return out;
}

describe("malformed-frame fuzz", () => {
  it(`${FRAMES} seeded malformed frames: one typed reply each, no hang, the server keeps serving`, async () => {
    const server = new BridgeServer({ endpoint: "tcp://127.0.0.1:*", backend: createCoreBackend(), limits: { drainMs: 0 } });
    await server.start();
    cleanup.push(() => server.stop());
    const fuzzer = new BridgeClient(server.endpoint);
    const good = new BridgeClient(server.endpoint);
    cleanup.push(
      () => fuzzer.close(),
      () => good.close(),
    );
    const { session } = await good.request<{ session: string }>("make", { env_id: "Demo-v0", seed: 4 });
    await good.request("reset", { session });
    const frames = makeFrames("issue-17-fuzz", session);
    const t0 = performance.now();
    let worstPing = 0;
    // Windows of 500 keep the fuzzer under maxPendingPerClient; every reply arrives as an orphan (nothing awaited).
    for (let start = 0; start < frames.length; start += 500) {
      for (const f of frames.slice(start, start + 500)) void fuzzer.sendRaw(f);
      const want = Math.min(frames.length, start + 500);
      const p0 = performance.now();
      expect(await good.request("ping")).toEqual({ pong: true });
      worstPing = Math.max(worstPing, performance.now() - p0);
      for (let k = 0; k < 2_000 && fuzzer.orphans.length < want; k++) await new Promise((r) => setTimeout(r, 5));
      expect(fuzzer.orphans.length).toBe(want);
    }
    const seconds = (performance.now() - t0) / 1000;
    const codes = new Set<string>(ERROR_CODES);
    for (const r of fuzzer.orphans) {
      if (r.ok) continue;
      expect(codes.has(r.error!.code)).toBe(true);
      expect(typeof r.error!.message).toBe("string");
    }
    // No orphan belongs to the well-behaved client, whose session is intact.
    expect(good.orphans).toHaveLength(0);
    expect((await good.call("step", { session, actions: [{ type: "abort", reason: "done" }] })).ok).toBe(true);
    expect(seconds).toBeLessThan(60);
    expect(worstPing).toBeLessThan(2_000);
  });
});
