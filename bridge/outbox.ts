/**
 * The server's outgoing replies: encoded, queued in order and sent one at a time, with the cut-off of clients that
 * stop reading theirs.
 */
import type { Router } from "zeromq";
import { encode } from "./codec.js";
import { BridgeError, type Limits, type Response } from "./protocol.js";
import { clientLabel } from "./replyLimits.js";
import type { SessionManager } from "./sessions.js";

/** The server's counters this queue keeps. */
export interface OutboxStats {
  repliesDropped: number;
  clientsCutOff: number;
}

export interface OutboxOptions {
  /** The socket to send on; null once the server closed it (the queue then stops sending). */
  socket: () => Router | null;
  limits: Limits;
  sessions: SessionManager;
  stats: OutboxStats;
  /** The server's error response (counted in its stats), sent in place of a reply that could not be encoded. */
  err: (id: Response["id"], e: unknown) => Response;
  log: (line: string) => void;
}

export class Outbox {
  private readonly queue: Buffer[][] = [];
  private pumping: Promise<void> | null = null;
  /** Clients whose outbound queue overflowed; their replies are dropped until they send a new request. */
  private readonly cutOff = new Set<string>();
  private readonly cutOffLogged = new Set<string>();

  constructor(private readonly opts: OutboxOptions) {}

  /** A new request from a cut-off client lifts its cut-off. */
  readmit(key: string): void {
    this.cutOff.delete(key);
  }

  /** Resolves once every queued reply has been sent or dropped. */
  async drained(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  send(prefix: Buffer[], res: Response): void {
    let payload: Buffer;
    try {
      payload = encode(res);
    } catch (e) {
      payload = encode(this.opts.err(res.id, new BridgeError("INTERNAL_ERROR", `response could not be encoded: ${(e as Error).message}`)));
    }
    this.queue.push([...prefix, payload]);
    this.pumping ??= this.pump();
  }

  /**
   * zeromq.js allows one send in flight per socket; this drains the queue in order. A client whose queue is full
   * (it has not read `sendHighWaterMark` replies) is cut off: that reply and its later ones are dropped and its
   * sessions closed, so one client that never reads cannot make the server hold its replies without bound.
   */
  private async pump(): Promise<void> {
    try {
      let i = 0;
      while (i < this.queue.length) {
        const sock = this.opts.socket();
        if (!sock) break;
        const msg = this.queue[i++];
        // Usually nobody is cut off: only then is the routing id worth turning into a key.
        if (this.cutOff.size > 0 && this.cutOff.has(msg[0].toString("latin1"))) {
          this.opts.stats.repliesDropped++;
          continue;
        }
        try {
          await sock.send(msg);
        } catch (e) {
          const code = (e as { code?: string }).code;
          // EHOSTUNREACH: the peer vanished; its answers have nowhere to go.
          if (code === "EAGAIN") this.cutOffClient(msg[0].toString("latin1"));
          else if (!sock.closed && code !== "EHOSTUNREACH") this.opts.log(`send failed: ${(e as Error).message}`);
        }
        if (i > 1024) {
          this.queue.splice(0, i);
          i = 0;
        }
      }
      this.queue.length = 0;
      // A cut-off client that sends again after its queue drained is served again (a new request lifts it).
    } finally {
      this.pumping = null;
    }
  }

  private cutOffClient(key: string): void {
    const { sessions, stats, limits } = this.opts;
    this.cutOff.add(key);
    stats.repliesDropped++;
    const closing = sessions.ownedBy(key);
    const who = clientLabel(key);
    // A client that keeps sending without reading is cut off again and again: log and count it once.
    const first = !this.cutOffLogged.has(key) && this.cutOffLogged.size < 1000;
    if (first) {
      this.cutOffLogged.add(key);
      stats.clientsCutOff++;
      const queued = `${limits.sendHighWaterMark} queued, limit sendHighWaterMark`;
      this.opts.log(
        `client ${who} did not read its replies (${queued}): dropping its replies and closing its ${closing.length} session(s)`,
      );
    }
    void Promise.allSettled(closing.map((h) => sessions.close(h)));
  }
}
