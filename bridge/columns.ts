/**
 * Column deltas (`obs_encoding: "columns"`, protocol minor 5): a step's observation deltas for the whole batch,
 * grouped by key instead of by env. Per-env deltas repeat the same keys (`response`, `step`, `budget`, ...) and one
 * wrapper map in every env of every step; msgpack pays per item, so on a 256-env batch those repetitions cost more
 * than the values. Here each changed key is written once per response with the list of its new values, and a map
 * value that kept its keys travels as a patch of the sub-keys that changed (a step counter inside `budget`).
 * Server-sampled actions go the same way: tool calls as an index into a per-session name table plus their arguments.
 */
import { deepEqual, isPlainObject } from "./delta.js";
import type { ToolRefDecoder, ToolRefEncoder } from "./toolRefs.js";

/** One column: the envs it covers (null: every env, in order) and one value per listed env. */
export type Column<T = unknown> = [number[] | null, T[]];

/** A batch of observation deltas, as sent. Parts with nothing in them are left out. */
export interface ColumnObs {
  /** Whole observations (when the previous or the new one is not a map), applied first. */
  f?: Column;
  /** Keys set to a new value. */
  s?: Record<string, Column>;
  /** Map values that kept their keys: only the changed sub-keys, merged into the previous value. */
  p?: Record<string, Column<Record<string, unknown>>>;
  /** Keys that disappeared, with the envs they disappeared from. */
  d?: Record<string, number[]>;
}

function push<T>(cols: Record<string, Column<T>>, key: string, env: number, value: T): void {
  const col = cols[key];
  if (col === undefined) cols[key] = [[env], [value]];
  else {
    (col[0] as number[]).push(env);
    col[1].push(value);
  }
}

/** `diffValue`'s answer when the two values are deeply equal: nothing to send. */
const SAME: Record<string, unknown> = Object.freeze({});

/**
 * How `next` travels given `prev`: SAME when they are deeply equal (`deepEqual`), the changed sub-keys when both are
 * plain maps with the same keys and at least one value kept and one changed (the client merges this patch into its
 * copy of `prev`), else null (the whole value is sent). One walk over two maps, where a `deepEqual` of the maps and
 * then a per-key comparison would walk them twice: the `response` and `budget` maps of most steps are exactly that.
 */
function diffValue(prev: unknown, next: unknown): Record<string, unknown> | null {
  if (!isPlainObject(prev) || !isPlainObject(next)) return deepEqual(prev, next) ? SAME : null;
  const keys = Object.keys(next);
  // Different key counts: not equal, and no patch can express it.
  if (keys.length !== Object.keys(prev).length) return null;
  let patch: Record<string, unknown> | null = null;
  let kept = false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    // A key `prev` lacks: as above.
    if (!Object.hasOwn(prev, k)) return null;
    const v = next[k];
    if (deepEqual(prev[k], v)) kept = true;
    else (patch ??= {})[k] = v;
  }
  if (patch === null) return SAME;
  return kept ? patch : null;
}

/** Files key `k` of env `e` under a set (whole value) or a patch column, or nowhere when it did not change. */
function diffKey(
  set: Record<string, Column>,
  patch: Record<string, Column<Record<string, unknown>>>,
  k: string,
  e: number,
  pv: unknown,
  v: unknown,
): void {
  if (pv === v) return;
  const sub = diffValue(pv, v);
  if (sub === SAME) return;
  if (sub === null) push(set, k, e, v);
  else push(patch, k, e, sub);
}

/** Columns covering every env (0..n-1 in order) drop their env list. */
function finish<T>(cols: Record<string, Column<T>>, n: number): Record<string, Column<T>> {
  for (const k in cols) if ((cols[k][0] as number[]).length === n) cols[k][0] = null;
  return cols;
}

function nonEmpty(cols: object): boolean {
  for (const _ in cols) return true;
  return false;
}

/**
 * Encodes a batch's observations relative to the previous ones. Tool references (when `refs` is set) are applied in
 * the order a client reads them: whole observations first (env 0 first), then the `newTools` column.
 */
export function encodeColumns(prev: readonly unknown[] | null, next: readonly unknown[], refs: ToolRefEncoder | null): ColumnObs {
  const n = next.length;
  const set: Record<string, Column> = {};
  const patch: Record<string, Column<Record<string, unknown>>> = {};
  let removed: Record<string, number[]> | null = null;
  let full: Column | null = null;
  for (let e = 0; e < n; e++) {
    const p = prev?.[e];
    const x = next[e];
    // The same object handed out again may have changed in place: nothing to diff against, send it whole.
    if (p === x || !isPlainObject(p) || !isPlainObject(x)) {
      if (full === null) full = [[e], [x]];
      else {
        (full[0] as number[]).push(e);
        full[1].push(x);
      }
      continue;
    }
    const kx = Object.keys(x);
    const kp = Object.keys(p);
    // The usual case: an env's observations keep their keys, in the same order, from step to step. Then no key
    // needs a lookup in the other map, and none can have appeared or disappeared.
    let sameKeys = kx.length === kp.length;
    for (let i = 0; sameKeys && i < kx.length; i++) sameKeys = kx[i] === kp[i];
    if (sameKeys) {
      for (let i = 0; i < kx.length; i++) {
        const k = kx[i];
        diffKey(set, patch, k, e, p[k], x[k]);
      }
      continue;
    }
    let shared = 0;
    for (let i = 0; i < kx.length; i++) {
      const k = kx[i];
      const v = x[k];
      if (!Object.hasOwn(p, k)) {
        push(set, k, e, v);
        continue;
      }
      shared++;
      diffKey(set, patch, k, e, p[k], v);
    }
    if (shared === kp.length) continue;
    for (let i = 0; i < kp.length; i++) if (!Object.hasOwn(x, kp[i])) ((removed ??= {})[kp[i]] ??= []).push(e);
  }
  if (refs !== null) {
    if (full !== null) full[1] = full[1].map((o) => refs.compact(o));
    const tools = set.newTools;
    if (tools !== undefined) tools[1] = tools[1].map((t) => (Array.isArray(t) ? refs.compactList(t) : t));
  }
  const out: ColumnObs = {};
  if (full !== null) out.f = full[0]?.length === n ? [null, full[1]] : full;
  if (nonEmpty(set)) out.s = finish(set, n);
  if (nonEmpty(patch)) out.p = finish(patch, n);
  if (removed !== null) out.d = removed;
  return out;
}

function envAt(col: Column<unknown>, j: number): number {
  return col[0] === null ? j : col[0][j];
}

/**
 * The inverse, as a client applies it (JS clients and tests; the Python client has the same rule): returns the new
 * observations, copying each changed env's map (the previous observations are left as they were).
 */
export function applyColumns(prev: readonly unknown[], wire: ColumnObs, tools: ToolRefDecoder | null = null): unknown[] {
  const out = prev.slice();
  const fresh = new Uint8Array(out.length);
  const own = (e: number): Record<string, unknown> => {
    if (!fresh[e]) {
      out[e] = { ...(out[e] as Record<string, unknown>) };
      fresh[e] = 1;
    }
    return out[e] as Record<string, unknown>;
  };
  if (wire.f) {
    const f = wire.f;
    f[1].forEach((v, j) => {
      out[envAt(f, j)] = tools === null ? v : tools.expand(v);
      fresh[envAt(f, j)] = 1;
    });
  }
  for (const [k, col] of Object.entries(wire.s ?? {})) {
    const expand = tools !== null && k === "newTools";
    col[1].forEach((v, j) => {
      own(envAt(col, j))[k] = expand && Array.isArray(v) ? tools.expandList(v) : v;
    });
  }
  for (const [k, col] of Object.entries(wire.p ?? {})) {
    col[1].forEach((v, j) => {
      const o = own(envAt(col, j));
      o[k] = { ...(o[k] as Record<string, unknown>), ...v };
    });
  }
  for (const [k, envs] of Object.entries(wire.d ?? {})) for (const e of envs) delete own(e)[k];
  return out;
}

/** Server-sampled actions as sent: tool calls as `tool` (an index into the session's name table) + `args`. */
export interface ColumnActions {
  /** Names new to the session's table, appended in this order. Left out when none. */
  names?: string[];
  /** Per env: the tool's index in the table, or -1 when the action is not a tool call (then `args` holds it whole). */
  tool: number[];
  args: unknown[];
}

/** `{ type: "tool_call", name, arguments }`, with exactly these keys in this order (the client rebuilds it so). */
function isToolCall(a: unknown): a is { type: "tool_call"; name: string; arguments: unknown } {
  if (!isPlainObject(a) || a.type !== "tool_call" || typeof a.name !== "string") return false;
  let i = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k)) continue;
    if (k !== (i === 0 ? "type" : i === 1 ? "name" : i === 2 ? "arguments" : "")) return false;
    i++;
  }
  return i === 3;
}

/** The server side of the action name table: per session, each tool name's index. */
export class ActionNameTable {
  private readonly index = new Map<string, number>();

  encode(actions: readonly unknown[]): ColumnActions {
    const tool = new Array<number>(actions.length);
    const args = new Array<unknown>(actions.length);
    let names: string[] | null = null;
    for (let i = 0; i < actions.length; i++) {
      const a = actions[i];
      if (!isToolCall(a)) {
        tool[i] = -1;
        args[i] = a;
        continue;
      }
      let t = this.index.get(a.name);
      if (t === undefined) {
        t = this.index.size;
        this.index.set(a.name, t);
        (names ??= []).push(a.name);
      }
      tool[i] = t;
      args[i] = a.arguments;
    }
    return names === null ? { tool, args } : { names, tool, args };
  }
}

/** The client side: rebuilds the actions, learning the names each response adds. */
export class ActionNameDecoder {
  private readonly names: string[] = [];

  decode(wire: ColumnActions): unknown[] {
    if (wire.names) this.names.push(...wire.names);
    return wire.tool.map((t, i) => {
      if (t < 0) return wire.args[i];
      const name = this.names[t];
      if (name === undefined) throw new Error(`action tool index ${t} names no tool received on this session`);
      return { type: "tool_call", name, arguments: wire.args[i] };
    });
  }
}
