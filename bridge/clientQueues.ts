/**
 * Per-client ordering: a client's requests are answered in the order they arrived (so pipelining is safe), while
 * different clients' requests do not wait for each other.
 */

interface ClientState {
  pending: number;
  tail: Promise<void> | null;
}

export class ClientQueues {
  private readonly clients = new Map<string, ClientState>();

  /**
   * Runs `job` after the client's earlier requests have been answered (at once when none is waiting on a promise).
   * `job` gets how many of the client's requests were unanswered when this one arrived.
   */
  enqueue(key: string, job: (unanswered: number) => void | Promise<void>): void {
    let cs = this.clients.get(key);
    if (!cs) {
      cs = { pending: 0, tail: null };
      this.clients.set(key, cs);
    }
    const unanswered = cs.pending;
    cs.pending++;
    const run = (): void | Promise<void> => job(unanswered);
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

  /** Settles once every request received so far has been answered. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.clients.values()].map((c) => c.tail ?? Promise.resolve()));
  }
}
