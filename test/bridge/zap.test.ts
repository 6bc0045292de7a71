/**
 * CURVE client authentication: a server given an allow-list of client public keys serves listed clients and
 * refuses every other key during the handshake, per server even when several share one process.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { curveKeyPair } from "zeromq";
import { BridgeClient } from "../../bridge/client.js";
import { serveCommand } from "../../bridge/cli.js";
import { BridgeConfigError, configSchema, loadCurveClients, resolveConfig } from "../../bridge/config.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { BridgeServer } from "../../bridge/server.js";
import { isZ85Key, z85Encode } from "../../bridge/zap.js";

type Keys = { publicKey: string; secretKey: string };

/** A ping that resolves "timeout" when the handshake never completes (a refused client gets no answer at all). */
async function ping(endpoint: string, serverKey: string, clientKeys?: Keys): Promise<unknown> {
  const client = new BridgeClient(endpoint, { curveServerKey: serverKey, curveClientKeys: clientKeys });
  try {
    return await Promise.race([client.request("ping"), new Promise((res) => setTimeout(() => res("timeout"), 400))]);
  } finally {
    await client.close();
  }
}

function server(curve: Keys, curveClients: string[] | null, log: string[] = []): BridgeServer {
  return new BridgeServer({
    endpoint: "tcp://127.0.0.1:*",
    backend: createCoreBackend(),
    limits: { drainMs: 0 },
    curve,
    curveClients,
    log: (l) => log.push(l),
  });
}

describe("CURVE client allow-list (ZAP)", () => {
  it("encodes keys as Z85 (the spec's test vector) and recognises Z85 keys", () => {
    expect(z85Encode(Uint8Array.from([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b]))).toBe("HelloWorld");
    expect(isZ85Key(curveKeyPair().publicKey)).toBe(true);
    expect(isZ85Key("x".repeat(39))).toBe(false);
    expect(isZ85Key(`${"x".repeat(39)} `)).toBe(false);
  });

  it("serves listed client keys and refuses others, separately for two servers in one process", async () => {
    const serverKeys = curveKeyPair();
    const alice = curveKeyPair();
    const bob = curveKeyPair();
    const logA: string[] = [];
    const a = server(serverKeys, [alice.publicKey], logA);
    const b = server(serverKeys, [bob.publicKey]);
    await a.start();
    await b.start();
    try {
      expect(await ping(a.endpoint, serverKeys.publicKey, alice)).toEqual({ pong: true });
      expect(await ping(b.endpoint, serverKeys.publicKey, bob)).toEqual({ pong: true });
      expect(await ping(a.endpoint, serverKeys.publicKey, bob)).toBe("timeout");
      expect(await ping(a.endpoint, serverKeys.publicKey)).toBe("timeout"); // a fresh, unlisted key
      expect(a.stats.clientsRefused).toBeGreaterThanOrEqual(2);
      expect(b.stats.clientsRefused).toBe(0);
      expect(logA.filter((l) => l.includes(bob.publicKey) && l.includes("allow-list"))).toHaveLength(1); // once, however often bob retries
    } finally {
      await a.stop();
      await b.stop();
    }
    // The process-wide handler stopped with the last server; a new server starts it again.
    const c = server(serverKeys, [alice.publicKey]);
    await c.start();
    try {
      expect(await ping(c.endpoint, serverKeys.publicKey, alice)).toEqual({ pong: true });
    } finally {
      await c.stop();
    }
  });

  it("without an allow-list any client holding the server key is served, beside a server that has one", async () => {
    const serverKeys = curveKeyPair();
    const open = server(serverKeys, null);
    const closed = server(serverKeys, [curveKeyPair().publicKey]);
    await open.start();
    await closed.start();
    try {
      expect(await ping(open.endpoint, serverKeys.publicKey)).toEqual({ pong: true });
      expect(await ping(closed.endpoint, serverKeys.publicKey)).toBe("timeout");
    } finally {
      await open.stop();
      await closed.stop();
    }
  });

  it("refuses an allow-list without server keys", async () => {
    await expect(server(null as unknown as Keys, [curveKeyPair().publicKey]).start()).rejects.toThrow(
      /curveClients needs CURVE server keys/,
    );
  });

  it("allow-list files: comments, labels and blank lines, errors naming the line; curveClients needs curveKeys", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-zap-"));
    const k1 = curveKeyPair().publicKey;
    const k2 = curveKeyPair().publicKey;
    const good = path.join(dir, "clients.txt");
    writeFileSync(good, `# trainers\n${k1}\n\n  ${k2}   ray head\n`);
    expect(loadCurveClients(good)).toEqual([k1, k2]);
    const bad = path.join(dir, "bad.txt");
    writeFileSync(bad, `${k1}\nnot-a-key\n`);
    expect(() => loadCurveClients(bad)).toThrow(/line 2: expected a 40-character Z85 public key, got 'not-a-key'/);
    const empty = path.join(dir, "empty.txt");
    writeFileSync(empty, "# nobody\n");
    expect(() => loadCurveClients(empty)).toThrow(/no keys/);
    expect(() => loadCurveClients(path.join(dir, "missing.txt"))).toThrow(BridgeConfigError);
    try {
      resolveConfig(configSchema.parse({ curveClients: good }));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BridgeConfigError);
      expect((e as BridgeConfigError).field).toBe("curveClients");
    }
  });

  it("`serve --curve-keys K --curve-clients F` admits only the listed client", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rg-zap-cli-"));
    const serverKeys = curveKeyPair();
    const alice = curveKeyPair();
    writeFileSync(path.join(dir, "server.json"), JSON.stringify(serverKeys));
    writeFileSync(path.join(dir, "clients.txt"), `${alice.publicKey}\n`);
    let release: (v: unknown) => void = () => {};
    const stop = new Promise((r) => (release = r));
    let endpoint = "";
    const listening = new Promise<void>((resolve) => {
      void serveCommand(
        [
          "--endpoint",
          "tcp://127.0.0.1:*",
          "--workers",
          "1",
          "--quiet",
          "--curve-keys",
          path.join(dir, "server.json"),
          "--curve-clients",
          path.join(dir, "clients.txt"),
        ],
        {
          out: () => {},
          err: () => {},
          stopSignal: stop,
          loadBackend: async () => createCoreBackend(),
          onListening: (eps) => {
            endpoint = eps[0];
            resolve();
          },
        },
      ).then((code) => expect(code).toBe(0));
    });
    await listening;
    try {
      expect(await ping(endpoint, serverKeys.publicKey, alice)).toEqual({ pong: true });
      expect(await ping(endpoint, serverKeys.publicKey)).toBe("timeout");
    } finally {
      release("test done");
    }
  });
});
