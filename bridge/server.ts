/**
 * The bridge server: one ZeroMQ ROUTER socket, one vector env per session. Requests from one client are answered
 * in the order they arrived (pipelining is safe); each request gets exactly one response, errors included.
 */
import { Router } from "zeromq";
import type { Backend } from "./backend.js";
import { decode, encode, peekId } from "./codec.js";
import { capDetails, clientLabel, GENERATED_ID_BYTES } from "./replyLimits.js";
import { scanFrame } from "./scan.js";
import { checkEndpointPolicy, type CurveKeys } from "./endpoint.js";
import { handleRequest, type HandlerContext } from "./handlers.js";
import { BridgeError, clip, envelopeSchema, type ErrorCode, type Limits, limitsSchema, type Response } from "./protocol.js";
import { SessionManager } from "./sessions.js";
import { registerZapDomain, unregisterZapDomain } from "./zap.js";

export interface ServerOptions {
  endpoint: string;
  backend: Backend;
  limits?: Partial<Limits>;
  allowRemote?: boolean;
  curve?: CurveKeys | null;
  /**
   * Z85 public keys of the clients allowed to connect over CURVE (requires `curve`). Null or unset: any client
   * holding the server's public key is served.
   */
  curveClients?: readonly string[] | null;
  /** Index of this worker when several serve one machine; prefixes session handles. */
  workerIndex?: number;
  workerCount?: number;
  /** How many times the supervisor restarted this worker (0 for its first process); see SESSION_LOST. */
  generation?: number;
  /** Directory for trajectories of sessions made with `record: true`; recording is refused when unset. */
  recordDir?: string | null;
  /**
   * Where env options naming files may point (null or unset: the backend's default data root, the package's own
   * configs). Installed for the whole process while the server runs.
   */
  dataRoots?: readonly string[] | null;
  /** Clock for idle reaping (ms); injectable for tests. Not used by any env logic. */
  now?: () => number;
  log?: (line: string) => void;
}

interface ClientState {
  pending: number;
  tail: Promise<void> | null;
}

export class BridgeServer {
  readonly limits: Limits;
  readonly sessions: SessionManager;
  private readonly backend: Backend;
  private sock: Router | null = null;
  private readonly clients = new Map<string, ClientState>();
  private readonly outbox: Buffer[][] = [];
  private pumping: Promise<void> | null = null;
  private shuttingDown = false;
  private stopped: Promise<void> | null = null;
  private loopDone: Promise<void> | null = null;
  private reaper: NodeJS.Timeout | null = null;
  private bound = "";
  private peerEndpoints: string[] = [];
  private readonly log: (line: string) => void;
  /**
   * Counters (requests received, error responses, sessions reaped, CURVE handshakes refused, replies dropped and
   * clients cut off for not reading); never reset.
   */
  readonly stats = { requests: 0, errors: 0, reaped: 0, clientsRefused: 0, repliesDropped: 0, clientsCutOff: 0 };
  /** Clients whose outbound queue overflowed; their replies are dropped until they send a new request. */
  private readonly cutOff = new Set<string>();
  private readonly cutOffLogged = new Set<string>();
  private zapDomain: string | null = null;
  private releasePaths: (() => void) | null = null;

  constructor(private readonly opts: ServerOptions) {
    this.limits = limitsSchema.parse(opts.limits ?? {});
    if (this.limits.hardMessageBytes < this.limits.maxMessageBytes) {
      throw new RangeError(
        `limits: hardMessageBytes (${this.limits.hardMessageBytes}) must be >= maxMessageBytes (${this.limits.maxMessageBytes})`,
      );
    }
    if (this.limits.maxArrayLength < this.limits.maxEnvsPerSession) {
      throw new RangeError(
        `limits: maxArrayLength (${this.limits.maxArrayLength}) must be >= maxEnvsPerSession (${this.limits.maxEnvsPerSession})`,
      );
    }
    this.backend = opts.backend;
    this.log = opts.log ?? (() => {});
    const now = opts.now ?? (() => performance.now());
    this.sessions = new SessionManager(this.backend, this.limits, opts.workerIndex ?? 0, now, opts.recordDir ?? null, opts.generation ?? 0);
  }

  /** The endpoint actually bound (with the real port when the configured one was `*` or 0). */
  get endpoint(): string {
    return this.bound;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** All workers' endpoints (set by the supervisor), reported by `hello` so clients can shard across them. */
  setPeerEndpoints(endpoints: string[]): void {
    this.peerEndpoints = [...endpoints];
  }

  async start(): Promise<string> {
    checkEndpointPolicy(this.opts.endpoint, this.opts.allowRemote ?? false, this.opts.curve ?? null);
    // Every server confines file-naming options (default: the library's own data root); a backend that cannot is
    // acceptable only when nobody asked for confinement explicitly and the server is loopback-only.
    const roots = this.opts.dataRoots ?? null;
    if (!this.backend.restrictOptionPaths && (roots !== null || this.opts.allowRemote)) {
      throw new Error("this backend cannot restrict option paths, which --data-root and a remote-facing server require");
    }
    this.releasePaths = this.backend.restrictOptionPaths?.(roots) ?? null;
    if (this.opts.curveClients && !this.opts.curve) {
      throw new Error("curveClients needs CURVE server keys (curve): without CURVE there is no client key to check");
    }
    const sock = new Router({
      maxMessageSize: this.limits.hardMessageBytes,
      sendHighWaterMark: this.limits.sendHighWaterMark,
      receiveHighWaterMark: this.limits.sendHighWaterMark,
      linger: 2000,
      // A second connection under a routing id in use is refused, so the first keeps its replies and sessions (with
      // handover a stranger who learned the id took them over). A client whose connection really dropped is back
      // as soon as libzmq notices the old pipe is gone.
      handover: false,
      // Report a full per-client queue (EAGAIN) instead of silently dropping, and never wait on one slow client:
      // see `pump`.
      mandatory: true,
      sendTimeout: 0,
    });
    if (this.opts.curve) {
      sock.curveServer = true;
      sock.curveSecretKey = this.opts.curve.secretKey;
      if (this.opts.curveClients) {
        try {
          // A refused client keeps reconnecting (every 100 ms by default): log each key once, count every refusal.
          const logged = new Set<string>();
          this.zapDomain = await registerZapDomain(this.opts.curveClients, (d) => {
            if (d.allowed) return;
            this.stats.clientsRefused++;
            if (logged.has(d.clientKey) || logged.size >= 1000) return;
            logged.add(d.clientKey);
            this.log(`refused CURVE client ${d.clientKey} from ${d.address || "?"}: key not in the allow-list (logged once per key)`);
          });
        } catch (e) {
          sock.close();
          throw new Error(`cannot start the CURVE client check (ZAP handler): ${(e as Error).message}`);
        }
        sock.zapDomain = this.zapDomain;
      }
    }
    const endpoint = this.opts.endpoint.replace(/^(tcp:\/\/[^:]+|tcp:\/\/\[[^\]]+\]):0$/, "$1:*");
    try {
      await sock.bind(endpoint);
    } catch (e) {
      sock.close();
      await this.releaseZap();
      this.releasePaths?.();
      throw new Error(`cannot bind ${this.opts.endpoint}: ${(e as Error).message}`);
    }
    this.sock = sock;
    this.bound = sock.lastEndpoint ?? endpoint;
    if (this.peerEndpoints.length === 0) this.peerEndpoints = [this.bound];
    this.loopDone = this.loop(sock);
    this.reaper = setInterval(() => void this.reapNow(), this.limits.reapIntervalMs);
    this.reaper.unref();
    return this.bound;
  }

  /** Runs the idle reaper once (also called by the timer). */
  async reapNow(): Promise<string[]> {
    const closed = await this.sessions.reap();
    this.stats.reaped += closed.length;
    if (closed.length) this.log(`reaped ${closed.length} idle session(s)`);
    return closed;
  }

  /**
   * Graceful stop: new requests get SHUTTING_DOWN for `drainMs`, requests already received are answered, sessions
   * are closed (which flushes any trajectory recorder an env holds), then the socket closes.
   */
  stop(): Promise<void> {
    this.stopped ??= this.doStop();
    return this.stopped;
  }

  private async doStop(): Promise<void> {
    this.shuttingDown = true;
    if (this.reaper) clearInterval(this.reaper);
    if (this.limits.drainMs > 0) await new Promise((r) => setTimeout(r, this.limits.drainMs));
    await Promise.allSettled([...this.clients.values()].map((c) => c.tail ?? Promise.resolve()));
    await this.sessions.closeAll();
    while (this.pumping) await this.pumping;
    const sock = this.sock;
    this.sock = null;
    if (sock) sock.close();
    await this.loopDone;
    await this.releaseZap();
    this.releasePaths?.();
  }

  private async releaseZap(): Promise<void> {
    if (this.zapDomain === null) return;
    const domain = this.zapDomain;
    this.zapDomain = null;
    await unregisterZapDomain(domain);
  }

  private async loop(sock: Router): Promise<void> {
    try {
      for await (const frames of sock) this.onFrames(frames);
    } catch (e) {
      if (!sock.closed) this.log(`receive loop ended: ${(e as Error).message}`);
    }
  }

  private onFrames(frames: Buffer[]): void {
    const identity = frames[0];
    let prefix: Buffer[];
    let body: Buffer | null;
    if (frames.length === 2) {
      prefix = [identity];
      body = frames[1];
    } else if (frames.length === 3 && frames[1].length === 0) {
      // A REQ client: keep its empty delimiter so the reply reaches it.
      prefix = [identity, frames[1]];
      body = frames[2];
    } else {
      prefix = [identity];
      body = null;
    }
    const key = identity.toString("latin1");
    if (identity.length > 0 && identity[0] === 0 && identity.length !== GENERATED_ID_BYTES) {
      // libzmq reserves ids starting with 0x00 for the ones it generates (0x00 + 4 bytes); a client setting one
      // could collide with another client's generated id.
      this.stats.requests++;
      const why = "routing ids starting with a 0x00 byte are reserved by ZeroMQ; set another routing id (or none)";
      this.send(prefix, this.err(null, new BridgeError("INVALID_MESSAGE", why, { field: "routing_id" })));
      return;
    }
    this.cutOff.delete(key);
    let cs = this.clients.get(key);
    if (!cs) {
      cs = { pending: 0, tail: null };
      this.clients.set(key, cs);
    }
    this.stats.requests++;
    const refused = this.shuttingDown;
    const overloaded = cs.pending >= this.limits.maxPendingPerClient;
    cs.pending++;
    const run = (): void | Promise<void> => {
      const res = this.respond(key, body, frames.length, refused, overloaded);
      if (res instanceof Promise) return res.then((r) => this.send(prefix, r));
      this.send(prefix, res);
    };
    const settle = (): void => {
      cs.pending--;
      if (cs.pending === 0 && this.clients.get(key) === cs) this.clients.delete(key);
    };
    if (cs.tail) {
      const next: Promise<void> = cs.tail.then(run).finally(() => {
        if (cs.tail === next) cs.tail = null;
        settle();
      });
      cs.tail = next;
      return;
    }
    const r = run();
    if (r instanceof Promise) {
      const next: Promise<void> = r.finally(() => {
        if (cs.tail === next) cs.tail = null;
        settle();
      });
      cs.tail = next;
    } else {
      settle();
    }
  }

  private respond(
    owner: string,
    body: Buffer | null,
    frameCount: number,
    refused: boolean,
    overloaded: boolean,
  ): Response | Promise<Response> {
    if (body === null) {
      return this.err(
        null,
        new BridgeError(
          "INVALID_MESSAGE",
          `expected one body frame (or an empty delimiter and one body frame), got ${frameCount - 1} frames`,
          { frames: frameCount - 1 },
        ),
      );
    }
    if (body.length > this.limits.maxMessageBytes) {
      return this.err(
        peekId(body),
        new BridgeError("MESSAGE_TOO_LARGE", `request of ${body.length} bytes exceeds the limit of ${this.limits.maxMessageBytes} bytes`, {
          size: body.length,
          max: this.limits.maxMessageBytes,
        }),
      );
    }
    try {
      scanFrame(body, this.limits);
    } catch (e) {
      return this.err(peekId(body), e);
    }
    let msg: unknown;
    try {
      msg = decode(body);
    } catch (e) {
      return this.err(
        null,
        new BridgeError("INVALID_MESSAGE", `frame is not valid MessagePack: ${(e as Error).message}`, { size: body.length }),
      );
    }
    const env = envelopeSchema.safeParse(msg);
    if (!env.success) {
      const rawId = msg !== null && typeof msg === "object" && !Array.isArray(msg) ? (msg as { id?: unknown }).id : undefined;
      const id = typeof rawId === "number" && Number.isInteger(rawId) ? rawId : typeof rawId === "bigint" ? rawId : null;
      const fields = env.error.issues.map((i) => i.path.join(".") || "(root)");
      return this.err(
        id,
        new BridgeError(
          "INVALID_MESSAGE",
          `a request must be a map with an integer 'id' and a string 'op' (problem with: ${fields.join(", ")})`,
          { fields },
        ),
      );
    }
    const { id, op, ...fields } = env.data;
    if (refused) return this.err(id, new BridgeError("SHUTTING_DOWN", "the server is shutting down and accepts no new requests", {}));
    if (overloaded) {
      return this.err(
        id,
        new BridgeError("CAPACITY_REACHED", `more than ${this.limits.maxPendingPerClient} unanswered requests from this client`, {
          limit: "maxPendingPerClient",
          max: this.limits.maxPendingPerClient,
        }),
      );
    }
    const ctx: HandlerContext = {
      owner,
      backend: this.backend,
      sessions: this.sessions,
      limits: this.limits,
      worker: { index: this.opts.workerIndex ?? 0, count: this.opts.workerCount ?? 1 },
      endpoints: this.peerEndpoints,
    };
    try {
      const r = handleRequest(ctx, op, fields);
      if (r instanceof Promise) {
        return r.then(
          (result): Response => ({ id, ok: true, result }),
          (e: unknown) => this.err(id, e),
        );
      }
      return { id, ok: true, result: r };
    } catch (e) {
      return this.err(id, e);
    }
  }

  private err(id: number | bigint | null, e: unknown): Response {
    this.stats.errors++;
    let code: ErrorCode;
    let message: string;
    let details: Record<string, unknown>;
    if (e instanceof BridgeError) {
      ({ code, message, details } = e);
    } else {
      ({ code, message, details } = this.backend.classifyError(e));
    }
    return { id, ok: false, error: { code, message: clip(message), details: capDetails(details) } };
  }

  private send(prefix: Buffer[], res: Response): void {
    let payload: Buffer;
    try {
      payload = encode(res);
    } catch (e) {
      payload = encode(this.err(res.id, new BridgeError("INTERNAL_ERROR", `response could not be encoded: ${(e as Error).message}`)));
    }
    this.outbox.push([...prefix, payload]);
    this.pumping ??= this.pump();
  }

  /**
   * zeromq.js allows one send in flight per socket; this drains the outbox in order. A client whose queue is full
   * (it has not read `sendHighWaterMark` replies) is cut off: that reply and its later ones are dropped and its
   * sessions closed, so one client that never reads cannot make the server hold its replies without bound.
   */
  private async pump(): Promise<void> {
    try {
      let i = 0;
      while (i < this.outbox.length) {
        const sock = this.sock;
        if (!sock) break;
        const msg = this.outbox[i++];
        // Usually nobody is cut off: only then is the routing id worth turning into a key.
        if (this.cutOff.size > 0 && this.cutOff.has(msg[0].toString("latin1"))) {
          this.stats.repliesDropped++;
          continue;
        }
        try {
          await sock.send(msg);
        } catch (e) {
          const code = (e as { code?: string }).code;
          // EHOSTUNREACH: the peer vanished; its answers have nowhere to go.
          if (code === "EAGAIN") this.cutOffClient(msg[0].toString("latin1"));
          else if (!sock.closed && code !== "EHOSTUNREACH") this.log(`send failed: ${(e as Error).message}`);
        }
        if (i > 1024) {
          this.outbox.splice(0, i);
          i = 0;
        }
      }
      this.outbox.length = 0;
      // A cut-off client that sends again after its queue drained is served again (a new request lifts it).
    } finally {
      this.pumping = null;
    }
  }

  private cutOffClient(key: string): void {
    this.cutOff.add(key);
    this.stats.repliesDropped++;
    const closing = this.sessions.ownedBy(key);
    const who = clientLabel(key);
    // A client that keeps sending without reading is cut off again and again: log and count it once.
    const first = !this.cutOffLogged.has(key) && this.cutOffLogged.size < 1000;
    if (first) {
      this.cutOffLogged.add(key);
      this.stats.clientsCutOff++;
      const queued = `${this.limits.sendHighWaterMark} queued, limit sendHighWaterMark`;
      this.log(`client ${who} did not read its replies (${queued}): dropping its replies and closing its ${closing.length} session(s)`);
    }
    void Promise.allSettled(closing.map((h) => this.sessions.close(h)));
  }
}
