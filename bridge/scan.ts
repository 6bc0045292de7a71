/**
 * A pass over a request's raw MessagePack bytes before anything is decoded. It bounds the work one request can
 * cause: a map or array header announcing more entries than allowed, nesting deeper than allowed, or more values
 * in total, is refused from the header alone, before msgpackr allocates anything (a 2M-key `options` map used to
 * block every client for half a minute). It also refuses extension types wherever they occur, which msgpackr would
 * otherwise turn into odd values (ext 0 read as absent). The pass allocates only a small stack of containers.
 */
import { BridgeError, clip } from "./protocol.js";

/** Per-request bounds on the decoded value; advertised in `hello` with the other limits. */
export interface WorkLimits {
  /** Containers nested inside the request map (the request map itself is level 0). */
  maxDepth: number;
  /** Entries of any one map. */
  maxMapKeys: number;
  /** Elements of any one array. */
  maxArrayLength: number;
  /** Values of every kind in the whole request, containers included. */
  maxValues: number;
}

interface Frame {
  isMap: boolean;
  /** Items still to read: 2 per map entry (key, value), 1 per array element. */
  left: number;
  /** Next array index. */
  index: number;
  /**
   * Where the last key read starts in the frame (-1: none, or not a short string) and its length in bytes. Only an
   * error names a key, so keys stay bytes until then: decoding every key would cost a string per map entry per step.
   */
  keyStart: number;
  keyLen: number;
  expectKey: boolean;
}

const MAX_KEY_CHARS = 64;

function keyText(buf: Uint8Array, f: Frame): string {
  if (f.keyStart < 0) return "?";
  return Buffer.from(buf.buffer, buf.byteOffset + f.keyStart, f.keyLen)
    .toString("utf8")
    .slice(0, MAX_KEY_CHARS);
}

function pathOf(stack: readonly Frame[], buf: Uint8Array): string {
  const parts: string[] = [];
  for (const f of stack) parts.push(f.isMap ? keyText(buf, f) : String(f.index));
  return parts.join(".") || "(request)";
}

function invalid(message: string): BridgeError {
  return new BridgeError("INVALID_MESSAGE", `frame is not valid MessagePack: ${message}`, {});
}

/**
 * Throws a typed error for a frame that breaks `limits`, contains an extension type, is truncated or malformed,
 * or has bytes after its value; returns quietly otherwise. Linear in the frame's size.
 */
export function scanFrame(buf: Uint8Array, limits: WorkLimits): void {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const end = buf.length;
  const stack: Frame[] = [];
  let pos = 0;
  let values = 0;
  const need = (n: number): void => {
    if (pos + n > end) throw invalid(`truncated at byte ${pos} (needs ${n} more bytes)`);
  };
  const limit = (name: keyof WorkLimits, what: string, got: number): never => {
    const field = clip(pathOf(stack, buf), 200);
    throw new BridgeError("VALIDATION_ERROR", `${field}: ${what} (limit ${name} = ${limits[name]})`, {
      field,
      limit: name,
      max: limits[name],
      got,
    });
  };
  let lastKeyStart = -1;
  let lastKeyLen = 0;
  const skipString = (len: number, keep: boolean): void => {
    need(len);
    lastKeyStart = keep && len <= MAX_KEY_CHARS * 4 ? pos : -1;
    lastKeyLen = len;
    pos += len;
  };
  const open = (isMap: boolean, count: number): void => {
    if (isMap && count > limits.maxMapKeys) limit("maxMapKeys", `a map of ${count} entries is too large`, count);
    if (!isMap && count > limits.maxArrayLength) limit("maxArrayLength", `an array of ${count} elements is too long`, count);
    if (stack.length > limits.maxDepth) limit("maxDepth", `nested deeper than ${limits.maxDepth} levels`, stack.length);
    if (count > 0) stack.push({ isMap, left: isMap ? count * 2 : count, index: 0, keyStart: -1, keyLen: 0, expectKey: isMap });
  };
  /** Counts one finished item in the innermost container; containers it fills are closed and counted in turn. */
  const complete = (start: number, len: number): void => {
    let keyStart = start;
    while (stack.length > 0) {
      const f = stack[stack.length - 1];
      f.left--;
      if (f.isMap) {
        if (f.expectKey) {
          f.keyStart = keyStart;
          f.keyLen = len;
        }
        f.expectKey = !f.expectKey;
      } else f.index++;
      if (f.left > 0) return;
      stack.pop();
      keyStart = -1;
    }
  };

  do {
    if (++values > limits.maxValues) limit("maxValues", `more than ${limits.maxValues} values in one request`, values);
    const top = stack.length ? stack[stack.length - 1] : null;
    const asKey = top?.isMap === true && top.expectKey;
    lastKeyStart = -1;
    need(1);
    const b = buf[pos++];
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) {
      // fixint, nil, booleans: the byte is the value
    } else if (b <= 0x8f) open(true, b & 0x0f);
    else if (b <= 0x9f) open(false, b & 0x0f);
    else if (b <= 0xbf) skipString(b & 0x1f, asKey);
    else {
      switch (b) {
        case 0xc4:
          need(1);
          pos += 1 + buf[pos];
          need(0);
          break;
        case 0xc5:
          need(2);
          pos += 2 + view.getUint16(pos);
          need(0);
          break;
        case 0xc6:
          need(4);
          pos += 4 + view.getUint32(pos);
          need(0);
          break;
        case 0xca:
          need(4);
          pos += 4;
          break;
        case 0xcb:
          need(8);
          pos += 8;
          break;
        case 0xcc:
        case 0xd0:
          need(1);
          pos += 1;
          break;
        case 0xcd:
        case 0xd1:
          need(2);
          pos += 2;
          break;
        case 0xce:
        case 0xd2:
          need(4);
          pos += 4;
          break;
        case 0xcf:
        case 0xd3:
          need(8);
          pos += 8;
          break;
        case 0xd9:
          need(1);
          {
            const n = buf[pos];
            pos += 1;
            skipString(n, asKey);
          }
          break;
        case 0xda:
          need(2);
          {
            const n = view.getUint16(pos);
            pos += 2;
            skipString(n, asKey);
          }
          break;
        case 0xdb:
          need(4);
          {
            const n = view.getUint32(pos);
            pos += 4;
            skipString(n, asKey);
          }
          break;
        case 0xdc:
          need(2);
          {
            const n = view.getUint16(pos);
            pos += 2;
            open(false, n);
          }
          break;
        case 0xdd:
          need(4);
          {
            const n = view.getUint32(pos);
            pos += 4;
            open(false, n);
          }
          break;
        case 0xde:
          need(2);
          {
            const n = view.getUint16(pos);
            pos += 2;
            open(true, n);
          }
          break;
        case 0xdf:
          need(4);
          {
            const n = view.getUint32(pos);
            pos += 4;
            open(true, n);
          }
          break;
        case 0xc7:
        case 0xc8:
        case 0xc9:
        case 0xd4:
        case 0xd5:
        case 0xd6:
        case 0xd7:
        case 0xd8: {
          const lenBytes = b === 0xc7 ? 1 : b === 0xc8 ? 2 : b === 0xc9 ? 4 : 0;
          need(lenBytes + 1);
          const type = view.getInt8(pos + lenBytes);
          const field = clip(asKey ? `${pathOf(stack, buf)} (a key)` : pathOf(stack, buf), 200);
          const why = `MessagePack extension type ${type} is not allowed; send maps, lists, strings, numbers, booleans and nil`;
          throw new BridgeError("VALIDATION_ERROR", `${field}: ${why}`, {
            field,
            reason: "extension_type",
            extType: type,
          });
        }
        default:
          throw invalid(`byte 0x${b.toString(16)} at ${pos - 1} is not a MessagePack type`);
      }
    }
    // A container just opened is counted in its parent when it closes; anything else completes an item now.
    if (stack.length === 0 || stack[stack.length - 1] === top) complete(lastKeyStart, lastKeyLen);
  } while (stack.length > 0);
  if (pos !== end) throw invalid(`${end - pos} bytes after the request's value`);
}
