/**
 * One request frame from its bytes to `{ id, op, fields }`: the size and shape limits, MessagePack, the envelope.
 * Everything a request must pass before any handler sees it, with the id its error reply should carry.
 */
import { decode, peekId } from "./codec.js";
import { BridgeError, envelopeSchema, type Limits } from "./protocol.js";
import { scanFrame } from "./scan.js";

export type RequestFrame =
  | { ok: true; id: number | bigint; op: string; fields: Record<string, unknown> }
  | { ok: false; id: number | bigint | null; error: unknown };

/** `body`: the frame after the routing prefix, null when the message had another number of frames (`frameCount`). */
export function parseRequestFrame(body: Buffer | null, frameCount: number, limits: Limits): RequestFrame {
  if (body === null) {
    return {
      ok: false,
      id: null,
      error: new BridgeError(
        "INVALID_MESSAGE",
        `expected one body frame (or an empty delimiter and one body frame), got ${frameCount - 1} frames`,
        { frames: frameCount - 1 },
      ),
    };
  }
  if (body.length > limits.maxMessageBytes) {
    return {
      ok: false,
      id: peekId(body),
      error: new BridgeError("MESSAGE_TOO_LARGE", `request of ${body.length} bytes exceeds the limit of ${limits.maxMessageBytes} bytes`, {
        size: body.length,
        max: limits.maxMessageBytes,
      }),
    };
  }
  try {
    scanFrame(body, limits);
  } catch (e) {
    return { ok: false, id: peekId(body), error: e };
  }
  let msg: unknown;
  try {
    msg = decode(body);
  } catch (e) {
    return {
      ok: false,
      id: null,
      error: new BridgeError("INVALID_MESSAGE", `frame is not valid MessagePack: ${(e as Error).message}`, { size: body.length }),
    };
  }
  const env = envelopeSchema.safeParse(msg);
  if (!env.success) {
    const rawId = msg !== null && typeof msg === "object" && !Array.isArray(msg) ? (msg as { id?: unknown }).id : undefined;
    const id = typeof rawId === "number" && Number.isInteger(rawId) ? rawId : typeof rawId === "bigint" ? rawId : null;
    const fields = env.error.issues.map((i) => i.path.join(".") || "(root)");
    return {
      ok: false,
      id,
      error: new BridgeError(
        "INVALID_MESSAGE",
        `a request must be a map with an integer 'id' and a string 'op' (problem with: ${fields.join(", ")})`,
        { fields },
      ),
    };
  }
  const { id, op, ...fields } = env.data;
  return { ok: true, id, op, fields };
}
