/**
 * Seeded snapshot mutation for the set_state tests (issue 17, item 5): mutate one path of a real snapshot, offer it to
 * an env, and check the contract — refused with a StateError that leaves the env exactly as it was, or accepted and
 * then steppable without untyped errors.
 */
import seedrandom from "seedrandom";
import { expect } from "vitest";
import { RecoveryGymError, StateError } from "../../src/core/errors.js";
import { type JsonValue, stableStringify } from "../../src/core/json.js";
import { Rng } from "../../src/core/rng.js";
import type { Action } from "../../src/engine/actions.js";

export type JsonPath = (string | number)[];

/** The replacement values every mutation draws from; families add values their own checks must catch. */
export const BASE_REPLACEMENTS: readonly JsonValue[] = [null, 5, -1, 0.5, "x", "", true, [], {}, [1, "a"], { a: 1 }];

/** Every path of the JSON tree (arrays and maps included), the root's empty path first. */
export function jsonPaths(v: JsonValue, at: JsonPath = [], out: JsonPath[] = []): JsonPath[] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => jsonPaths(x, [...at, i], out));
  else if (v !== null && typeof v === "object") for (const k of Object.keys(v)) jsonPaths(v[k]!, [...at, k], out);
  return out;
}

/** A copy of `state` with one allowed path deleted (15%, maps only) or replaced by a drawn value. */
export function mutateSnapshot(
  state: JsonValue,
  rnd: () => number,
  replacements: readonly JsonValue[],
  allowed: (p: JsonPath) => boolean,
): JsonValue {
  const copy = JSON.parse(JSON.stringify(state)) as JsonValue;
  const all = jsonPaths(copy).filter((p) => p.length > 0 && allowed(p));
  const p = all[Math.floor(rnd() * all.length)]!;
  let parent = copy as Record<string | number, JsonValue>;
  for (const k of p.slice(0, -1)) parent = parent[k] as Record<string | number, JsonValue>;
  const last = p[p.length - 1]!;
  if (rnd() < 0.15 && !Array.isArray(parent)) delete parent[last];
  else parent[last] = replacements[Math.floor(rnd() * replacements.length)]!;
  return copy;
}

/** What `mutationTrial` needs of an env: snapshots in and out, and a way back to a known episode. */
export interface SnapshotEnv {
  getState(): unknown;
  setState(s: never): void;
  reset(a: { seed: number }): unknown;
}

export interface MutationTally {
  refused: number;
  accepted: number;
  /** Untyped errors thrown while stepping an accepted state (each a defect: the state should have been refused). */
  laterFailures: string[];
}

/**
 * Offers `n` mutations of `snapshots` to `target` (reset to seed 3 between trials). `step(k)` plays a few steps after an
 * accepted state; a refusal must be a StateError whose field matches `field` and leave the env's state unchanged.
 */
export function mutationTrial(
  target: SnapshotEnv,
  snapshots: readonly JsonValue[],
  opts: {
    n: number;
    rnd: () => number;
    replacements: readonly JsonValue[];
    allowed: (p: JsonPath) => boolean;
    step: (k: number) => void;
    field?: RegExp;
  },
): MutationTally {
  const tally: MutationTally = { refused: 0, accepted: 0, laterFailures: [] };
  target.reset({ seed: 3 });
  for (let k = 0; k < opts.n; k++) {
    const bad = mutateSnapshot(snapshots[k % snapshots.length]!, opts.rnd, opts.replacements, opts.allowed);
    const before = stableStringify(target.getState());
    try {
      target.setState(bad as never);
    } catch (e) {
      expect(e).toBeInstanceOf(StateError);
      if (opts.field) expect((e as StateError).field).toMatch(opts.field);
      expect(stableStringify(target.getState())).toBe(before);
      tally.refused++;
      continue;
    }
    tally.accepted++;
    try {
      opts.step(k);
    } catch (e) {
      if (!(e instanceof RecoveryGymError)) tally.laterFailures.push((e as Error).message.slice(0, 120));
    }
    target.reset({ seed: 3 });
  }
  return tally;
}

/**
 * For each named edit of a copy of `base`: `target.setState` refuses it with a StateError whose field matches, and the
 * env's state is exactly what it was.
 */
export function expectRefusals<S>(target: SnapshotEnv, base: S, cases: ReadonlyArray<[string, (s: S) => void, RegExp]>): void {
  const before = stableStringify(target.getState());
  for (const [what, edit, field] of cases) {
    const bad = JSON.parse(JSON.stringify(base)) as S;
    edit(bad);
    let err: unknown = null;
    try {
      target.setState(bad as never);
    } catch (e) {
      err = e;
    }
    expect(err, what).toBeInstanceOf(StateError);
    expect((err as StateError).field, what).toMatch(field);
    expect(stableStringify(target.getState()), what).toBe(before);
  }
}

/** The paths a family owns in a snapshot: its family state and the world. */
export const familyOwnedPath = (p: JsonPath): boolean => p[0] === "family" || (p[0] === "data" && p[1] === "world");

/** A tool env as the family-state trials drive it. */
export interface SteppableSnapshotEnv extends SnapshotEnv {
  step(a: Action): unknown;
  isDone(): boolean;
  actionSpace: { sample(r: Rng): unknown };
}

/** A family-state trial: `n` mutations of family-owned paths, then up to 3 sampled steps per accepted state. */
export function familyStateTrial(
  target: SteppableSnapshotEnv,
  snapshots: readonly JsonValue[],
  n: number,
  seedName: string,
  replacements: readonly JsonValue[],
): MutationTally {
  return mutationTrial(target, snapshots, {
    n,
    rnd: seedrandom(seedName),
    replacements,
    allowed: familyOwnedPath,
    step: (k) => {
      const rng = new Rng(k).derive("after");
      for (let i = 0; i < 3 && !target.isDone(); i++) target.step(target.actionSpace.sample(rng) as Action);
    },
  });
}
