/**
 * One function per operation. Each validates its fields with zod, does its work, and returns the `result` map
 * (or a promise of it when the env is asynchronous). Errors are thrown and turned into responses by the server.
 */
import { type Backend, envActionSpace, type VecResetResult, type VecStepResult } from "./backend.js";
import { encodeColumns } from "./columns.js";
import { encodeDelta } from "./delta.js";
import { layoutJson, packBatch, packScalars } from "./packed.js";
import { assertPlainPayload } from "./payload.js";
import {
  BridgeError,
  type Limits,
  OPS,
  type Op,
  PROTOCOL_MINOR,
  requestSchemas,
  type Requests,
  SUPPORTED_VERSIONS,
  zodDetails,
} from "./protocol.js";
import type { Session, SessionManager } from "./sessions.js";

export const SERVER_NAME = "recovery-gym-bridge";
export const SERVER_VERSION = "0.1.0";

export interface HandlerContext {
  owner: string;
  backend: Backend;
  sessions: SessionManager;
  limits: Limits;
  worker: { index: number; count: number };
  endpoints: string[];
}

type Result = Record<string, unknown>;

function isOp(op: string): op is Op {
  return (OPS as readonly string[]).includes(op);
}

export function handleRequest(ctx: HandlerContext, op: string, fields: Record<string, unknown>): Result | Promise<Result> {
  if (!isOp(op)) {
    throw new BridgeError("UNKNOWN_OP", `unknown op '${op.slice(0, 64)}'; known ops: ${OPS.join(", ")}`, {
      op: op.slice(0, 64),
      known: [...OPS],
    });
  }
  const parsed = requestSchemas[op].safeParse(fields);
  if (!parsed.success) throw zodDetails(op, parsed.error);
  const req = parsed.data;
  checkPayloads(op, req as Record<string, unknown>);
  switch (op) {
    case "hello":
      return hello(ctx, req as Requests["hello"]);
    case "ping":
      return { pong: true };
    case "list_envs":
      return { envs: ctx.backend.listEnvs() };
    case "make":
      return make(ctx, req as Requests["make"]);
    case "reset":
      return reset(ctx, req as Requests["reset"]);
    case "step":
      return step(ctx, req as Requests["step"]);
    case "sample":
      return sample(ctx, req as Requests["sample"]);
    case "close":
      return close(ctx, req as Requests["close"]);
    case "get_spec":
      return getSpec(ctx, req as Requests["get_spec"]);
    case "get_state":
      return getState(ctx, req as Requests["get_state"]);
    case "set_state":
      return setState(ctx, req as Requests["set_state"]);
  }
}

/** The free-form fields (env options, actions, snapshots) must be plain data before the library sees them. */
const PAYLOAD_FIELDS: Partial<Record<Op, readonly string[]>> = {
  make: ["options"],
  reset: ["options"],
  step: ["actions"],
  set_state: ["state"],
};

function checkPayloads(op: Op, req: Record<string, unknown>): void {
  for (const field of PAYLOAD_FIELDS[op] ?? []) assertPlainPayload(req[field], field);
}

function hello(ctx: HandlerContext, req: Requests["hello"]): Result {
  const common = req.versions.filter((v) => SUPPORTED_VERSIONS.includes(v));
  if (common.length === 0) {
    throw new BridgeError(
      "UNSUPPORTED_VERSION",
      `no common protocol version: client offers [${req.versions.join(", ")}], server supports [${SUPPORTED_VERSIONS.join(", ")}]`,
      {
        requested: req.versions,
        supported: [...SUPPORTED_VERSIONS],
      },
    );
  }
  return {
    version: Math.max(...common),
    minor: PROTOCOL_MINOR,
    server: SERVER_NAME,
    server_version: SERVER_VERSION,
    library_version: ctx.backend.libraryVersion,
    codec: "msgpack",
    ops: [...OPS],
    limits: ctx.limits,
    env_ids: ctx.backend.listEnvs().map((e) => e.id),
    worker: ctx.worker,
    endpoints: ctx.endpoints,
  };
}

function spaceJson(space: { toJSON(): unknown }): unknown {
  return space.toJSON();
}

function describeSession(s: Session): Result {
  return {
    session: s.handle,
    env_id: s.envId,
    num_envs: s.numEnvs,
    single_observation_space: spaceJson(s.env.singleObservationSpace),
    single_action_space: spaceJson(s.env.singleActionSpace),
    autoreset_mode: s.autoresetMode,
    env_offset: s.envOffset,
    obs_encoding: s.obsEncoding,
    ...(s.packed ? { obs_layout: layoutJson(s.packed) } : {}),
    tool_refs: s.toolRefs !== null,
    info_keys: s.infoKeys ? [...s.infoKeys] : null,
    spec: s.env.spec ?? null,
    metadata: s.env.metadata ?? null,
  };
}

function make(ctx: HandlerContext, req: Requests["make"]): Result | Promise<Result> {
  // Files named by options are read asynchronously before the (synchronous) env constructors use them.
  const create = (): Session =>
    ctx.sessions.create({
      owner: ctx.owner,
      envId: req.env_id,
      numEnvs: req.num_envs,
      options: req.options ?? {},
      autoresetMode: req.autoreset_mode,
      obsEncoding: req.obs_encoding,
      toolRefs: req.tool_refs,
      infoKeys: req.info_keys ?? null,
      seed: req.seed ?? null,
      record: req.record ?? false,
      envOffset: req.env_offset ?? 0,
    });
  return ctx.backend.withOptionFiles ? ctx.backend.withOptionFiles(create).then(describeSession) : describeSession(create());
}

/** Runs `fn` on a session with the `busy` flag set so the reaper never closes an env mid-call. */
function withSession<T extends Result>(s: Session, fn: () => T | Promise<T>): T | Promise<T> {
  s.busy = true;
  let out: T | Promise<T>;
  try {
    out = fn();
  } catch (e) {
    s.busy = false;
    throw e;
  }
  if (out instanceof Promise)
    return out.finally(() => {
      s.busy = false;
    });
  s.busy = false;
  return out;
}

function then<A, B>(x: A | Promise<A>, f: (a: A) => B): B | Promise<B> {
  return x instanceof Promise ? x.then(f) : f(x);
}

function reset(ctx: HandlerContext, req: Requests["reset"]): Result | Promise<Result> {
  const s = ctx.sessions.get(req.session, ctx.owner);
  if (Array.isArray(req.seed) && req.seed.length !== s.numEnvs) {
    throw new BridgeError("VALIDATION_ERROR", `seed: a list of seeds must have one per env (${s.numEnvs}), got ${req.seed.length}`, {
      field: "seed",
      expected: s.numEnvs,
      got: req.seed.length,
    });
  }
  if (req.reset_mask && req.reset_mask.length !== s.numEnvs) {
    throw new BridgeError("VALIDATION_ERROR", `reset_mask: must have one boolean per env (${s.numEnvs}), got ${req.reset_mask.length}`, {
      field: "reset_mask",
      expected: s.numEnvs,
      got: req.reset_mask.length,
    });
  }
  // make's seed stands in for the first reset's: env i gets makeSeed + env_offset + i, as if unsharded.
  const makeSeed = s.makeSeed;
  const seed =
    req.seed ?? (s.resets === 0 && makeSeed !== null ? Array.from({ length: s.numEnvs }, (_, i) => makeSeed + s.envOffset + i) : undefined);
  const options: Record<string, unknown> = { ...(req.options ?? {}) };
  if (req.reset_mask) options.resetMask = req.reset_mask;
  const opts: { seed?: number | (number | null)[]; options?: Record<string, unknown> } = {};
  if (seed !== undefined) opts.seed = seed;
  if (Object.keys(options).length) opts.options = options;
  return withSession(s, () =>
    then(s.env.reset(opts), ([obs, infos]: VecResetResult): Result => {
      s.resets++;
      if (s.packed) return { observations: packBatch(s.packed, obs), infos: filterInfos(s, infos) };
      s.lastObs = obs.slice();
      return { observations: compactTools(s, obs), infos: filterInfos(s, infos) };
    }),
  );
}

function step(ctx: HandlerContext, req: Requests["step"]): Result | Promise<Result> {
  const s = ctx.sessions.get(req.session, ctx.owner);
  let actions: unknown[];
  if (req.sample) {
    if (req.actions !== undefined) {
      throw new BridgeError("VALIDATION_ERROR", "step: give either 'actions' or 'sample: true', not both", { field: "actions" });
    }
    actions = sampleActions(ctx, s);
  } else {
    if (req.actions === undefined) {
      throw new BridgeError("VALIDATION_ERROR", "step: 'actions' is required (one action per env) unless 'sample' is true", {
        field: "actions",
      });
    }
    if (req.actions.length !== s.numEnvs) {
      throw new BridgeError("VALIDATION_ERROR", `actions: expected one action per env (${s.numEnvs}), got ${req.actions.length}`, {
        field: "actions",
        expected: s.numEnvs,
        got: req.actions.length,
      });
    }
    actions = req.actions;
  }
  if (s.resets === 0) {
    throw new BridgeError("ENV_ERROR", "step before reset: call 'reset' on this session first", { field: "reset", session: s.handle });
  }
  return withSession(s, () => then(s.env.step(actions), (out: VecStepResult): Result => stepResult(s, out, req.sample ? actions : null)));
}

/** The `step` result: observations in the session's encoding, the per-env scalars, infos, sampled actions. */
function stepResult(s: Session, [obs, rewards, terminated, truncated, infos]: VecStepResult, sampled: unknown[] | null): Result {
  s.steps++;
  if (s.packed || s.actionNames !== null) {
    // Packed and column sessions: the per-env scalars go columnar too (float64 / uint8 bytes).
    const out: Result = {
      observations: s.packed ? packBatch(s.packed, obs) : encodeColumns(s.lastObs, obs, s.toolRefs),
      rewards: packScalars(Float64Array, rewards),
      terminated: packScalars(Uint8Array, terminated),
      truncated: packScalars(Uint8Array, truncated),
      infos: filterInfos(s, infos),
    };
    if (!s.packed) s.lastObs = obs.slice();
    if (sampled !== null) out.actions = s.actionNames !== null ? s.actionNames.encode(sampled) : sampled;
    return out;
  }
  let observations: unknown[];
  if (s.obsEncoding === "delta") {
    const prev = s.lastObs ?? [];
    const refs = s.toolRefs;
    observations = obs.map((o, i) => {
      const wire = encodeDelta(prev[i], o);
      if (refs === null) return wire;
      // compact() returns its argument when no schema was replaced (most steps): then nothing is copied.
      if ("f" in wire) return { f: refs.compact(wire.f) };
      const s = refs.compact(wire.s) as Record<string, unknown>;
      return s === wire.s ? wire : { ...wire, s };
    });
  } else {
    observations = compactTools(s, obs);
  }
  s.lastObs = obs.slice();
  const out: Result = {
    observations,
    rewards: Array.from(rewards),
    terminated: Array.from(terminated),
    truncated: Array.from(truncated),
    infos: filterInfos(s, infos),
  };
  if (sampled !== null) out.actions = sampled;
  return out;
}

/** Full observations with already-sent tool schemas as names, when the session uses tool references. */
function compactTools(s: Session, obs: readonly unknown[]): unknown[] {
  const refs = s.toolRefs;
  return refs === null ? obs.slice() : obs.map((o) => refs.compact(o));
}

/** One action per env from the session's sampler streams (env i's stream: make seed and env_offset + i only). */
function sampleActions(ctx: HandlerContext, s: Session): unknown[] {
  s.samplers ??= ctx.backend.createSamplers(s.makeSeed ?? 0, s.envOffset, s.numEnvs);
  return s.samplers.map((rng, i) => ctx.backend.sampleAction(envActionSpace(s.env, i), rng));
}

/**
 * Samples actions without stepping (what a Gymnasium `action_space.sample()` needs). Draws from the same streams
 * as `step` with `sample: true`, so the two interleave as one sequence of draws per env; `seed` restarts them.
 */
function sample(ctx: HandlerContext, req: Requests["sample"]): Result {
  const s = ctx.sessions.get(req.session, ctx.owner);
  if (req.index !== undefined && req.index !== null && req.index >= s.numEnvs) {
    throw new BridgeError("VALIDATION_ERROR", `index: expected 0..${s.numEnvs - 1}, got ${req.index}`, {
      field: "index",
      expected: s.numEnvs,
      got: req.index,
    });
  }
  if (s.resets === 0)
    throw new BridgeError("ENV_ERROR", "sample before reset: call 'reset' on this session first", { field: "reset", session: s.handle });
  // A seed restarts every env's stream, as make's seed starts them (Gymnasium's `action_space.seed(n)`).
  if (req.seed !== undefined && req.seed !== null) s.samplers = ctx.backend.createSamplers(req.seed, s.envOffset, s.numEnvs);
  if (req.index === undefined || req.index === null) return { actions: sampleActions(ctx, s) };
  s.samplers ??= ctx.backend.createSamplers(s.makeSeed ?? 0, s.envOffset, s.numEnvs);
  return { action: ctx.backend.sampleAction(envActionSpace(s.env, req.index), s.samplers[req.index]) };
}

function filterInfos(s: Session, infos: Record<string, unknown>): Record<string, unknown> {
  const keys = s.infoKeys;
  if (!keys) return infos;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(infos)) {
    const base = k.startsWith("_") ? k.slice(1) : k;
    if (keys.has(k) || keys.has(base)) out[k] = infos[k];
  }
  return out;
}

async function close(ctx: HandlerContext, req: Requests["close"]): Promise<Result> {
  const s = ctx.sessions.get(req.session, ctx.owner);
  await ctx.sessions.close(s.handle);
  return { closed: true };
}

function getSpec(ctx: HandlerContext, req: Requests["get_spec"]): Result {
  if ((req.session === undefined) === (req.env_id === undefined)) {
    throw new BridgeError("VALIDATION_ERROR", "get_spec: give exactly one of 'session' or 'env_id'", { field: "session" });
  }
  if (req.session !== undefined) return describeSession(ctx.sessions.get(req.session, ctx.owner));
  return { env_id: req.env_id, spec: ctx.backend.envSpec(req.env_id as string) };
}

function stateIndex(s: Session, index: number): number {
  if (index >= s.numEnvs)
    throw new BridgeError("VALIDATION_ERROR", `index: expected 0..${s.numEnvs - 1}, got ${index}`, {
      field: "index",
      expected: s.numEnvs,
      got: index,
    });
  if (s.resets === 0)
    throw new BridgeError("ENV_ERROR", "get_state/set_state before reset: call 'reset' on this session first", {
      field: "reset",
      session: s.handle,
    });
  if (!s.env.getEnvState || !s.env.setEnvState)
    throw new BridgeError("ENV_ERROR", `${s.envId} does not support get_state/set_state`, { field: "op" });
  return index;
}

/** Snapshot of one env of the session (plain data; pass it to set_state on any session of the same env id and options). */
function getState(ctx: HandlerContext, req: Requests["get_state"]): Result | Promise<Result> {
  const s = ctx.sessions.get(req.session, ctx.owner);
  const i = stateIndex(s, req.index);
  return withSession(s, () => ({ index: i, state: (s.env.getEnvState as (n: number) => unknown)(i) }) as Result);
}

/** Restores one env; the answer carries its full observation, which also becomes the base of the next delta. */
function setState(ctx: HandlerContext, req: Requests["set_state"]): Result | Promise<Result> {
  const s = ctx.sessions.get(req.session, ctx.owner);
  const i = stateIndex(s, req.index);
  return withSession(s, () => {
    const obs = (s.env.setEnvState as (n: number, st: unknown) => unknown)(i, req.state);
    if (s.lastObs) s.lastObs[i] = obs;
    return { index: i, observation: s.toolRefs ? s.toolRefs.compact(obs) : obs } as Result;
  });
}
