/**
 * Sessions: one vector env per `make`, owned by the ZeroMQ identity of the client that made it. Handles are
 * 128-bit random (crypto, not the env Rng: they must be unguessable, not reproducible) so that a client can only
 * reach its own sessions even if it learns another's routing id.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { AutoresetMode, Backend, SamplerRng, VecEnvLike } from "./backend.js";
import { type PackedField, packedLayout } from "./packed.js";
import { BridgeError, type Limits } from "./protocol.js";
import { ActionNameTable } from "./columns.js";
import { ToolRefEncoder } from "./toolRefs.js";

export interface Session {
  readonly handle: string;
  readonly owner: string;
  readonly envId: string;
  readonly numEnvs: number;
  readonly env: VecEnvLike;
  readonly obsEncoding: "full" | "delta" | "packed" | "columns";
  /** The per-key layout of packed observations (`obsEncoding` "packed"), else null. */
  readonly packed: readonly PackedField[] | null;
  /** Set when the client asked for tool references (`tool_refs`): schemas already sent travel as names. */
  readonly toolRefs: ToolRefEncoder | null;
  /** Column sessions: the tool names of server-sampled actions already sent, by index. */
  readonly actionNames: ActionNameTable | null;
  readonly infoKeys: ReadonlySet<string> | null;
  readonly autoresetMode: AutoresetMode;
  /** Seed given to `make`; used by the first `reset` that has none, and for the action sampler. */
  readonly makeSeed: number | null;
  /** Global index of this session's env 0 when a vector env is sharded over several sessions. */
  readonly envOffset: number;
  /** Last observation sent per env, the base of the next delta. */
  lastObs: unknown[] | null;
  resets: number;
  steps: number;
  samplers: SamplerRng[] | null;
  lastUsed: number;
  /** Work queued on this session (async envs); ops on one session never overlap. */
  busy: boolean;
}

export interface NewSession {
  owner: string;
  envId: string;
  numEnvs: number;
  options: Record<string, unknown>;
  autoresetMode: AutoresetMode | undefined;
  /** "auto": packed when the observation space allows it, else delta. */
  obsEncoding: "full" | "delta" | "packed" | "auto" | "columns";
  toolRefs: boolean;
  infoKeys: string[] | null;
  seed: number | null;
  /** Record trajectories into the server's record directory. */
  record: boolean;
  envOffset: number;
}

/** "s<worker>-" for a worker's first process, "s<worker>r<generation>-" after restarts. */
export function sessionPrefix(worker: number, generation: number): string {
  return generation === 0 ? `s${worker}-` : `s${worker}r${generation}-`;
}
const HANDLE_PREFIX = /^s([0-9]{1,6})(?:r([0-9]{1,9}))?-/;

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private totalEnvs = 0;

  private readonly prefix: string;

  /**
   * `worker` and `generation` name this process among a supervisor's workers: generation g > 0 is the g-th restart
   * of worker `worker`, and handles of its earlier generations are reported as lost rather than unknown.
   */
  constructor(
    private readonly backend: Backend,
    private readonly limits: Limits,
    private readonly worker: number,
    private readonly now: () => number,
    private readonly recordDir: string | null = null,
    private readonly generation = 0,
  ) {
    this.prefix = sessionPrefix(worker, generation);
  }

  get size(): number {
    return this.sessions.size;
  }

  get envCount(): number {
    return this.totalEnvs;
  }

  create(req: NewSession): Session {
    const { limits } = this;
    if (req.numEnvs > limits.maxEnvsPerSession) {
      throw new BridgeError("CAPACITY_REACHED", `num_envs ${req.numEnvs} exceeds the per-session limit ${limits.maxEnvsPerSession}`, {
        limit: "maxEnvsPerSession",
        value: req.numEnvs,
        max: limits.maxEnvsPerSession,
      });
    }
    if (this.sessions.size >= limits.maxSessions) {
      throw new BridgeError(
        "CAPACITY_REACHED",
        `the server already has ${this.sessions.size} sessions (limit ${limits.maxSessions}); close some first`,
        {
          limit: "maxSessions",
          max: limits.maxSessions,
        },
      );
    }
    if (this.totalEnvs + req.numEnvs > limits.maxTotalEnvs) {
      throw new BridgeError(
        "CAPACITY_REACHED",
        `num_envs ${req.numEnvs} would exceed the server-wide env limit ${limits.maxTotalEnvs} (${this.totalEnvs} in use)`,
        {
          limit: "maxTotalEnvs",
          value: req.numEnvs,
          inUse: this.totalEnvs,
          max: limits.maxTotalEnvs,
        },
      );
    }
    if (req.record && !this.recordDir) {
      throw new BridgeError("VALIDATION_ERROR", "record: this server has no record directory (start it with --record-dir DIR)", {
        field: "record",
      });
    }
    const handle = `${this.prefix}${randomBytes(16).toString("hex")}`;
    const dir = this.recordDir;
    const recordPath = req.record && dir ? (i: number) => path.join(dir, `${req.envId}-${handle}-${i}.jsonl`) : undefined;
    const env = this.backend.makeVec(req.envId, req.numEnvs, req.options, {
      ...(req.autoresetMode ? { autoresetMode: req.autoresetMode } : {}),
      ...(recordPath ? { recordPath } : {}),
      ...(req.infoKeys ? { infoKeys: envInfoKeys(req.infoKeys) } : {}),
    });
    const packed = this.resolvePacking(req.obsEncoding, env);
    const encoding = packed ? "packed" : req.obsEncoding === "full" || req.obsEncoding === "columns" ? req.obsEncoding : "delta";
    const meta = (env.metadata ?? {}) as { autoresetMode?: AutoresetMode; autoreset_mode?: AutoresetMode };
    const session: Session = {
      handle,
      owner: req.owner,
      envId: req.envId,
      numEnvs: env.numEnvs,
      env,
      obsEncoding: encoding,
      packed,
      toolRefs: req.toolRefs ? new ToolRefEncoder() : null,
      actionNames: encoding === "columns" ? new ActionNameTable() : null,
      infoKeys: req.infoKeys ? new Set(req.infoKeys) : null,
      autoresetMode: meta.autoresetMode ?? meta.autoreset_mode ?? req.autoresetMode ?? "NextStep",
      makeSeed: req.seed,
      envOffset: req.envOffset,
      lastObs: null,
      resets: 0,
      steps: 0,
      samplers: null,
      lastUsed: this.now(),
      busy: false,
    };
    this.sessions.set(handle, session);
    this.totalEnvs += session.numEnvs;
    return session;
  }

  /** The packed layout when the session asked for packing (and can have it); an explicit "packed" must fit. */
  private resolvePacking(encoding: NewSession["obsEncoding"], env: VecEnvLike): PackedField[] | null {
    if (encoding !== "packed" && encoding !== "auto") return null;
    const layout = packedLayout(env.singleObservationSpace.toJSON());
    if (typeof layout !== "string") return layout;
    if (encoding === "auto") return null;
    // The env is not handed out; a failing close must not hide the reason it is refused.
    Promise.resolve()
      .then(() => env.close())
      .catch(() => undefined);
    const why = `obs_encoding: "packed" needs a Dict of Box/MultiBinary/Discrete observations: ${layout}`;
    throw new BridgeError("VALIDATION_ERROR", why, {
      field: "obs_encoding",
      reason: layout,
    });
  }

  /** The session if it exists and belongs to `owner`; the same error otherwise, so existence is not leaked. */
  get(handle: string, owner: string): Session {
    const s = this.sessions.get(handle);
    if (!s && this.isFromEarlierGeneration(handle)) {
      const why = "the worker process that held it died and was restarted; make a new session";
      throw new BridgeError("SESSION_LOST", `session '${handle}' was lost: ${why}`, { session: handle });
    }
    if (!s || s.owner !== owner) {
      throw new BridgeError("UNKNOWN_SESSION", `no session '${handle}' for this client (closed, reaped, or made by another client)`, {
        session: handle,
      });
    }
    s.lastUsed = this.now();
    return s;
  }

  /** Handles of every session `owner` made. */
  ownedBy(owner: string): string[] {
    return [...this.sessions.values()].filter((s) => s.owner === owner).map((s) => s.handle);
  }

  private isFromEarlierGeneration(handle: string): boolean {
    const m = HANDLE_PREFIX.exec(handle);
    return m !== null && Number(m[1]) === this.worker && Number(m[2] ?? 0) < this.generation;
  }

  async close(handle: string): Promise<void> {
    const s = this.sessions.get(handle);
    if (!s) return;
    this.sessions.delete(handle);
    this.totalEnvs -= s.numEnvs;
    await s.env.close();
  }

  /** Closes sessions idle for longer than the timeout; returns the handles closed. */
  async reap(): Promise<string[]> {
    const cutoff = this.now() - this.limits.idleTimeoutMs;
    const stale = [...this.sessions.values()].filter((s) => s.lastUsed < cutoff && !s.busy).map((s) => s.handle);
    for (const h of stale) await this.close(h);
    return stale;
  }

  async closeAll(): Promise<void> {
    for (const h of [...this.sessions.keys()]) {
      try {
        await this.close(h);
      } catch {
        // A failing close must not stop the others from closing (and flushing) during shutdown.
      }
    }
  }
}

/**
 * The env info keys a session's `info_keys` can reach. The bridge keeps a batched key when the list names it or the
 * key it masks (`_k` for `k`); the vector env batches an env key when its filter holds the key or its mask. So each
 * named key and its mask cover every env key whose batched form the bridge would keep (a named `_k` reaches `k`).
 */
export function envInfoKeys(requested: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const k of requested) {
    keys.add(k);
    keys.add(`_${k}`);
  }
  return [...keys];
}
