/**
 * The bridge server: one ZeroMQ ROUTER socket, one vector env per session. Requests from one client are answered
 * in the order they arrived (pipelining is safe); each request gets exactly one response, errors included.
 */
import { Router } from "zeromq";
import type { Backend } from "./backend.js";
import { ClientQueues } from "./clientQueues.js";
import { capDetails, GENERATED_ID_BYTES } from "./replyLimits.js";
import { checkEndpointPolicy, type CurveKeys } from "./endpoint.js";
import { handleRequest, type HandlerContext } from "./handlers.js";
import { Outbox } from "./outbox.js";
import { BridgeError, clip, type ErrorCode, type Limits, limitsSchema, type Response } from "./protocol.js";
import { parseRequestFrame } from "./requestFrame.js";
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

export class BridgeServer {
  readonly limits: Limits;
  readonly sessions: SessionManager;
  private readonly backend: Backend;
  private sock: Router | null = null;
  private readonly clients = new ClientQueues();
  private readonly outbox: Outbox;
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
    this.outbox = new Outbox({
      socket: () => this.sock,
      limits: this.limits,
      sessions: this.sessions,
      stats: this.stats,
      err: (id, e) => this.err(id, e),
      log: this.log,
    });
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
    await this.clients.idle();
    await this.sessions.closeAll();
    await this.outbox.drained();
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
      this.outbox.send(prefix, this.err(null, new BridgeError("INVALID_MESSAGE", why, { field: "routing_id" })));
      return;
    }
    this.outbox.readmit(key);
    this.stats.requests++;
    const refused = this.shuttingDown;
    this.clients.enqueue(key, (unanswered) => {
      const res = this.respond(key, body, frames.length, refused, unanswered >= this.limits.maxPendingPerClient);
      if (res instanceof Promise) return res.then((r) => this.outbox.send(prefix, r));
      this.outbox.send(prefix, res);
    });
  }

  private respond(
    owner: string,
    body: Buffer | null,
    frameCount: number,
    refused: boolean,
    overloaded: boolean,
  ): Response | Promise<Response> {
    const req = parseRequestFrame(body, frameCount, this.limits);
    if (!req.ok) return this.err(req.id, req.error);
    const { id, op, fields } = req;
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
}
