/** The bridge benchmark's baseline: a raw zeromq.js + msgpack echo of the same request and response bytes. */
import { Router } from "zeromq";
import { decode, encode } from "../../bridge/codec.js";

/** The baseline: decode each request, encode the primed response map, send. Same codec as the bridge. */
export async function startEcho(): Promise<{ endpoint: string; close: () => void }> {
  const sock = new Router({ linger: 0 });
  await sock.bind("tcp://127.0.0.1:*");
  let primed: unknown = null;
  void (async () => {
    try {
      for await (const [id, body] of sock) {
        const msg = decode(body) as { prime?: unknown; id?: number };
        if (msg.prime !== undefined) {
          primed = { ...(msg.prime as object) };
          await sock.send([id, encode({ ok: true })]);
          continue;
        }
        await sock.send([id, encode({ ...(primed as object), id: msg.id })]);
      }
    } catch {
      // closed
    }
  })();
  return { endpoint: sock.lastEndpoint!, close: () => sock.close() };
}
