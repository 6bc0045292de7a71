/**
 * Client authentication for CURVE (ZAP, ZeroMQ RFC 27). CURVE alone only encrypts: anyone holding the server's
 * public key can connect. With an allow-list of client public keys, libzmq asks this process's ZAP handler about
 * every CURVE handshake and the handler admits only listed keys.
 *
 * libzmq looks for the handler at one fixed inproc address per context, so there is one handler per process;
 * each server registers its allow-list under its own ZAP domain (several servers share a process in tests).
 */
import { Reply } from "zeromq";

const ZAP_ENDPOINT = "inproc://zeromq.zap.01";
const Z85_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
const Z85_KEY = /^[0-9a-zA-Z.\-:+=^!/*?&<>()[\]{}@%$#]{40}$/;

/** Z85 text of a binary key (32 bytes → 40 characters), as libzmq's `zmq_z85_encode`. */
export function z85Encode(bytes: Uint8Array): string {
  if (bytes.length % 4 !== 0) throw new RangeError(`z85: length ${bytes.length} is not a multiple of 4`);
  let out = "";
  for (let i = 0; i < bytes.length; i += 4) {
    let value = ((bytes[i] << 24) >>> 0) + (bytes[i + 1] << 16) + (bytes[i + 2] << 8) + bytes[i + 3];
    const chunk: string[] = [];
    for (let k = 0; k < 5; k++) {
      chunk.unshift(Z85_ALPHABET[value % 85]);
      value = Math.floor(value / 85);
    }
    out += chunk.join("");
  }
  return out;
}

/** True for a 40-character Z85 string (a CURVE key as `curveKeyPair()` and pyzmq's `curve_keypair()` print them). */
export function isZ85Key(s: string): boolean {
  return Z85_KEY.test(s);
}

/** A verdict the handler reached, reported to the server that owns the domain. */
export interface ZapDecision {
  clientKey: string;
  address: string;
  allowed: boolean;
}

interface Domain {
  allowed: ReadonlySet<string>;
  onDecision: (d: ZapDecision) => void;
}

let handler: { sock: Reply; loop: Promise<void> } | null = null;
const domains = new Map<string, Domain>();
let nextDomain = 0;

/**
 * Registers an allow-list and returns the ZAP domain a server socket must set (`sock.zapDomain`). Call
 * `unregisterZapDomain` when the socket closes; the handler stops with the last domain.
 */
export async function registerZapDomain(allowedKeys: Iterable<string>, onDecision: (d: ZapDecision) => void): Promise<string> {
  const domain = `recovery-gym-${process.pid}-${nextDomain++}`;
  domains.set(domain, { allowed: new Set(allowedKeys), onDecision });
  if (!handler) {
    const sock = new Reply({ linger: 0 });
    await sock.bind(ZAP_ENDPOINT);
    handler = { sock, loop: serve(sock) };
  }
  return domain;
}

export async function unregisterZapDomain(domain: string): Promise<void> {
  domains.delete(domain);
  if (domains.size > 0 || !handler) return;
  const { sock, loop } = handler;
  handler = null;
  // close() frees the inproc address only when libzmq's I/O thread gets to it, so a server started right after
  // would fail to bind ("Address already in use"); unbind() frees it before returning.
  await sock.unbind(ZAP_ENDPOINT);
  sock.close();
  await loop;
}

async function serve(sock: Reply): Promise<void> {
  for (;;) {
    try {
      const frames = await sock.receive();
      await sock.send(answer(frames));
    } catch {
      return; // closed (stopping with the last server)
    }
  }
}

/** The reply to one ZAP request: version, request id, status code, status text, user id, metadata. */
function answer(frames: Buffer[]): Array<string | Buffer> {
  const [version, requestId, domainFrame, addressFrame, , mechanismFrame, credential] = frames;
  const reply = (code: string, text: string, userId = ""): Array<string | Buffer> => [
    version ?? "1.0",
    requestId ?? "",
    code,
    text,
    userId,
    "",
  ];
  if (version?.toString() !== "1.0") return reply("500", "unsupported ZAP version");
  const domain = domains.get(domainFrame?.toString() ?? "");
  // A socket without a registered domain never asked for authentication; other mechanisms are not ours to judge.
  if (!domain || mechanismFrame?.toString() !== "CURVE") return reply("200", "OK");
  if (credential?.length !== 32) return reply("400", "malformed CURVE credential");
  const clientKey = z85Encode(credential);
  const allowed = domain.allowed.has(clientKey);
  domain.onDecision({ clientKey, address: addressFrame?.toString() ?? "", allowed });
  return allowed ? reply("200", "OK", clientKey) : reply("400", "client key not authorized");
}
