/**
 * A minimal Node client for the bridge (DEALER socket). Used by the tests and benchmarks, and usable by Node
 * trainers that want to talk to a remote server. Requests may be pipelined; responses are matched by `id`.
 */
import { curveKeyPair, Dealer } from "zeromq";
import { decode, encode } from "./codec.js";
import type { ErrorCode } from "./protocol.js";

export class BridgeRequestError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(`${code}: ${message}`);
    this.name = "BridgeRequestError";
  }
}

export interface RawResponse {
  id: number | null;
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { code: ErrorCode; message: string; details: Record<string, unknown> };
}

export class BridgeClient {
  readonly sock: Dealer;
  private nextId = 1;
  private readonly waiting = new Map<number, (r: RawResponse) => void>();
  /** Responses with `id: null` (undecodable frames), in arrival order. */
  readonly orphans: RawResponse[] = [];
  private readonly reader: Promise<void>;

  /** `curveClientKeys`: this client's own key pair (a server with an allow-list admits only listed keys); default fresh. */
  constructor(
    endpoint: string,
    opts: { routingId?: string; curveServerKey?: string; curveClientKeys?: { publicKey: string; secretKey: string } } = {},
  ) {
    this.sock = new Dealer({ linger: 0, receiveTimeout: -1, ...(opts.routingId ? { routingId: opts.routingId } : {}) });
    if (opts.curveServerKey) {
      const mine = opts.curveClientKeys ?? curveKeyPair();
      this.sock.curveServerKey = opts.curveServerKey;
      this.sock.curvePublicKey = mine.publicKey;
      this.sock.curveSecretKey = mine.secretKey;
    }
    this.sock.connect(endpoint);
    this.reader = this.readLoop();
  }

  private async readLoop(): Promise<void> {
    try {
      for await (const frames of this.sock) {
        const r = decode(frames[frames.length - 1]) as RawResponse;
        const id = typeof r.id === "bigint" ? Number(r.id) : r.id;
        const w = id === null ? undefined : this.waiting.get(id);
        if (w && id !== null) {
          this.waiting.delete(id);
          w(r);
        } else {
          this.orphans.push(r);
        }
      }
    } catch {
      // socket closed
    }
  }

  /** zeromq.js allows one send in flight per socket; chaining keeps pipelined sends in order. */
  private sendChain: Promise<void> = Promise.resolve();

  private enqueue(frames: Buffer | Buffer[]): Promise<void> {
    const next = this.sendChain.then(() => this.sock.send(frames));
    this.sendChain = next.catch(() => {});
    return next;
  }

  /** Sends raw frames (for fuzzing); responses land in `orphans` unless their id is awaited. */
  async sendRaw(frames: Buffer | Buffer[]): Promise<void> {
    await this.enqueue(frames);
  }

  /** Sends a request and resolves with the raw response map (ok or not). */
  async call(op: string, fields: Record<string, unknown> = {}): Promise<RawResponse> {
    const id = this.nextId++;
    const p = new Promise<RawResponse>((resolve) => this.waiting.set(id, resolve));
    await this.enqueue(encode({ id, op, ...fields }));
    return p;
  }

  /** Like `call`, but resolves with `result` or rejects with a `BridgeRequestError`. */
  async request<T = Record<string, unknown>>(op: string, fields: Record<string, unknown> = {}): Promise<T> {
    const r = await this.call(op, fields);
    if (!r.ok) throw new BridgeRequestError(r.error!.code, r.error!.message, r.error!.details);
    return r.result as T;
  }

  async close(): Promise<void> {
    this.sock.close();
    await this.reader;
  }
}
