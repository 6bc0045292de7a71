import { z } from "zod";
import type { EnvSpec, Info } from "../core/env.js";
import { ActionError, describeZodIssues, OptionsError } from "../core/errors.js";
import type { JsonObject, JsonValue } from "../core/json.js";
import { checkSeed, describeValue } from "../core/seed.js";
import type { Space } from "../core/spaces/space.js";

/** Gymnasium 1.x autoreset modes. */
export const autoresetModeSchema = z.enum(["NextStep", "SameStep", "Disabled"]);
export type AutoresetMode = z.infer<typeof autoresetModeSchema>;

export const vectorEnvOptionsSchema = z
  .object({
    /** `sync` steps envs in this thread; `async` in worker threads (a pool no larger than the core count). */
    mode: z.enum(["sync", "async"]).optional(),
    autoresetMode: autoresetModeSchema.optional(),
    /** Async only: number of worker threads (default: min(numEnvs, cores)). */
    workers: z.number().int().positive().optional(),
    /** Async only: extra modules each worker imports first (to register custom envs). */
    modules: z.array(z.string()).optional(),
    /**
     * Batch only these info keys (with their `_key` masks); the rest are left out of the batched infos. A client
     * that reads no infos passes `[]`. The envs still build their infos: this saves the batching.
     */
    infoKeys: z.array(z.string()).optional(),
  })
  .strict();
export type VectorEnvOptions = z.infer<typeof vectorEnvOptionsSchema>;

/** Validates vector-env options; a bad one throws an OptionsError naming the field (e.g. `autoresetMode`). */
export function parseVectorEnvOptions(options: unknown): VectorEnvOptions {
  const res = vectorEnvOptionsSchema.safeParse(options ?? {});
  if (!res.success) {
    const { field, message } = describeZodIssues(res.error.issues, options ?? {});
    throw new OptionsError(field, `vector env: invalid option ${message}`);
  }
  return res.data;
}

/** Validates an autoreset mode (default NextStep); anything else throws an OptionsError on `autoresetMode`. */
export function parseAutoresetMode(mode: unknown): AutoresetMode {
  return parseVectorEnvOptions(mode === undefined ? {} : { autoresetMode: mode }).autoresetMode ?? "NextStep";
}

/**
 * Info batched per key (Gymnasium 1.x): `info[k][i]` is env i's value (null when absent) and `info["_" + k][i]`
 * says whether env i set it.
 */
export type BatchedInfo = Record<string, unknown[]>;

export interface VectorResetArgs {
  /** One seed (env i gets seed + i) or one per env. */
  seed?: number | readonly (number | null)[];
  /** `resetMask[i]` false leaves env i untouched (partial reset); other options pass to each env's reset. */
  options?: JsonObject & { resetMask?: boolean[] };
}

export type VectorStepResult<Obs> = [
  observations: Obs[],
  rewards: Float64Array,
  terminated: boolean[],
  truncated: boolean[],
  infos: BatchedInfo,
];

/** A batch of `numEnvs` independent copies of one env, stepped together. */
export interface VectorEnv<Obs = unknown, Act = unknown> {
  readonly numEnvs: number;
  readonly singleObservationSpace: Space<Obs>;
  readonly singleActionSpace: Space<Act>;
  readonly observationSpace: Space<unknown>;
  readonly actionSpace: Space<unknown>;
  readonly metadata: { autoresetMode: AutoresetMode; envId: string; [key: string]: unknown };
  /** The spec of the envs it batches (id, validated options, step limit, library version), as in Gymnasium. */
  readonly spec: EnvSpec;
  reset(args?: VectorResetArgs): [Obs[], BatchedInfo];
  step(actions: readonly Act[]): VectorStepResult<Obs>;
  /** Snapshot of env i (counterfactual replay; plain JSON). */
  getEnvState(index: number): JsonValue;
  /** Restores env i from a snapshot and returns its full current observation. */
  setEnvState(index: number, state: JsonValue): Obs;
  close(): void;
}

/** Which info keys a vector env batches: null batches every key. */
export type InfoKeyFilter = ReadonlySet<string> | null;

/** The filter for a vector env's `infoKeys` option (absent: every key). */
export function infoKeyFilter(keys: readonly string[] | undefined): InfoKeyFilter {
  return keys === undefined ? null : new Set(keys);
}

const MAX_MASK_KEYS = 4096;
const maskKeys = new Map<string, string>();
/** `_${key}`, built once per key name (every vector step batches the same few keys). */
function maskKey(key: string): string {
  let mask = maskKeys.get(key);
  if (mask === undefined) {
    if (maskKeys.size >= MAX_MASK_KEYS) maskKeys.clear();
    maskKeys.set(key, (mask = `_${key}`));
  }
  return mask;
}

/** One batched key while `batchInfos` runs: env i's value and whether env i set it. */
interface InfoColumn {
  readonly key: string;
  readonly values: unknown[];
  readonly set: boolean[];
  readonly position: number;
}

/**
 * Merges per-env infos into Gymnasium's batched form. With `keep`, only the keys it holds are batched (a key is
 * kept when `keep` has it or its mask `_key`); the others are skipped, not built and then dropped.
 */
export function batchInfos(infos: readonly (Info | null)[], keep: InfoKeyFilter = null): BatchedInfo {
  const n = infos.length;
  const out: BatchedInfo = {};
  if (keep !== null && keep.size === 0) return out;
  // Runs every vector step over every env's info. Infos of one env type list their keys in the same order, so
  // the column after the last one used is tried first and the map is consulted only when that guess misses.
  const columns: InfoColumn[] = [];
  const byKey = new Map<string, InfoColumn | null>(); // null: a key `keep` leaves out
  for (let i = 0; i < n; i++) {
    if (!(i in infos)) continue;
    const info = infos[i];
    if (!info) continue;
    let next = 0;
    for (const k in info) {
      if (!Object.hasOwn(info, k)) continue;
      const v = info[k];
      if (v === undefined) continue;
      let column = columns[next];
      if (column === undefined || column.key !== k) {
        const known = byKey.get(k);
        if (known === null) continue;
        if (known !== undefined) column = known;
        else if (keep !== null && !keep.has(k) && !keep.has(maskKey(k))) {
          byKey.set(k, null);
          continue;
        } else {
          column = { key: k, values: new Array(n).fill(null), set: new Array(n).fill(false), position: columns.length };
          columns.push(column);
          byKey.set(k, column);
        }
      }
      column.values[i] = v;
      column.set[i] = true;
      next = column.position + 1;
    }
  }
  // Keys in first-seen order, each followed by its mask (the order the batched info always had).
  for (const c of columns) {
    out[c.key] = c.values;
    out[maskKey(c.key)] = c.set;
  }
  return out;
}

/**
 * Per-env seeds from `reset()`'s arguments: one seed (env i gets seed + i) or one per env (null: unseeded). A
 * plain `reset(42)`, a bad seed or a list of the wrong length throws an OptionsError that says what a seed must be.
 */
export function seedsFor(args: VectorResetArgs, n: number): (number | undefined)[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    const hint = typeof args === "number" ? `; to seed the envs, call reset({ seed: ${String(args)} })` : "";
    throw new OptionsError("(root)", `vector env reset(): expected an object { seed?, options? }, got ${describeValue(args)}${hint}`);
  }
  const seed: unknown = args.seed;
  if (seed === undefined) return new Array(n).fill(undefined);
  if (!Array.isArray(seed)) {
    const first = checkSeed(seed, "seed", "vector env reset()");
    // Env i gets first + i, which must itself be a seed.
    checkSeed(first + (n - 1), "seed", `vector env reset() (env ${n - 1} gets seed + ${n - 1})`);
    return Array.from({ length: n }, (_, i) => first + i);
  }
  if (seed.length !== n) {
    throw new OptionsError("seed", `vector env reset(): invalid seed: expected one seed per env (${n}), got ${seed.length}`);
  }
  return seed.map((s: unknown, i) => (s === null || s === undefined ? undefined : checkSeed(s, `seed.${i}`, "vector env reset()")));
}

/**
 * Runs `check` (a shape check of env i's action) and re-throws an `ActionError` with the env's index in its field
 * (`actions.3.arguments.city`), so a client knows which entry of the batch was wrong.
 */
export function checkBatchAction(i: number, check: () => void): void {
  try {
    check();
  } catch (e) {
    throw batchActionError(i, e);
  }
}

/** What `checkBatchAction` throws for env i's error `e` (for loops that catch it themselves, without a closure per env). */
export function batchActionError(i: number, e: unknown): unknown {
  if (!(e instanceof ActionError)) return e;
  const rest = e.field.replace(/^action\.?/, "");
  return new ActionError(rest ? `actions.${i}.${rest}` : `actions.${i}`, `env ${i}: ${e.message}`, { ...e.details, env: i });
}
