import type { Rng } from "../rng.js";
import { sampleScope, Space, type SpaceJson, type SpaceValue } from "./space.js";

type DictValue<S extends Record<string, Space<unknown>>> = { [K in keyof S]: SpaceValue<S[K]> };

/** A fixed set of named sub-spaces; a value must have exactly those keys. */
export class Dict<S extends Record<string, Space<unknown>>> extends Space<DictValue<S>> {
  readonly keys: readonly (keyof S & string)[];
  constructor(readonly spaces: S) {
    super();
    this.keys = Object.keys(spaces) as (keyof S & string)[];
  }
  contains(x: unknown): x is DictValue<S> {
    if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
    const obj = x as Record<string, unknown>;
    if (Object.keys(obj).length !== this.keys.length) return false;
    return this.keys.every((k) => k in obj && this.spaces[k].contains(obj[k]));
  }
  sample(rng: Rng = this.stream()): DictValue<S> {
    const scope = sampleScope(rng);
    const out = {} as DictValue<S>;
    for (const k of this.keys) out[k] = this.spaces[k].sample(scope.derive(k)) as DictValue<S>[typeof k];
    return out;
  }
  toJSON(): SpaceJson {
    const spaces: Record<string, SpaceJson> = {};
    for (const k of this.keys) spaces[k] = this.spaces[k].toJSON();
    return { type: "dict", spaces };
  }
}

/** A fixed-length ordered product of spaces. */
export class Tuple<T = unknown> extends Space<T[]> {
  constructor(readonly spaces: readonly Space<T>[]) {
    super();
  }
  contains(x: unknown): x is T[] {
    return Array.isArray(x) && x.length === this.spaces.length && this.spaces.every((s, i) => s.contains(x[i]));
  }
  sample(rng: Rng = this.stream()): T[] {
    const scope = sampleScope(rng);
    return this.spaces.map((s, i) => s.sample(scope.derive(i)));
  }
  toJSON(): SpaceJson {
    return { type: "tuple", spaces: this.spaces.map((s) => s.toJSON()) };
  }
}

/** A variable-length list of values from one space (Gymnasium's Sequence), optionally bounded in length. */
export class Sequence<T> extends Space<T[]> {
  constructor(
    readonly feature: Space<T>,
    readonly maxLength: number | null = null,
  ) {
    super();
  }
  contains(x: unknown): x is T[] {
    if (!Array.isArray(x)) return false;
    if (this.maxLength !== null && x.length > this.maxLength) return false;
    return x.every((v) => this.feature.contains(v));
  }
  sample(rng: Rng = this.stream()): T[] {
    const scope = sampleScope(rng);
    const len = scope.derive("length").int(Math.min(this.maxLength ?? 8, 8) + 1);
    return Array.from({ length: len }, (_, i) => this.feature.sample(scope.derive(i)));
  }
  toJSON(): SpaceJson {
    return { type: "sequence", feature: this.feature.toJSON(), max_length: this.maxLength };
  }
}
