/**
 * Values derived from an immutable object (a task, its positions, a fault profile), stored on that object under a
 * private symbol instead of in a `WeakMap` keyed by it.
 *
 * Why: V8's scavenger treats the values of a `WeakMap` as live (it cannot tell yet whether an old key is dead), so
 * every value cached for a short-lived key, and everything it references, survives minor GCs and is promoted until a
 * full GC frees it. Sampled tasks live for one episode, and their WeakMap entries made every scavenge of a sampled
 * reset run copy and promote ~1 MB (2–4 ms pauses, the p99 tail of the reset). A property of the key is reachable only
 * through the key, so it dies with it. The property is non-enumerable: spreads, `Object.keys`, JSON and deep
 * equality do not see it, and a copy of the object (`{ ...task }`) starts with an empty memo.
 */
export class Memo<K extends object, V> {
  private readonly slot: symbol;

  constructor(name: string) {
    this.slot = Symbol(name);
  }

  get(key: K): V | undefined {
    return (key as Record<symbol, V | undefined>)[this.slot];
  }

  set(key: K, value: V): void {
    const holder = key as Record<symbol, V | undefined>;
    // Writable data property (a field, not a constant in the hidden class): every key of a shape shares one map.
    if (this.slot in holder) holder[this.slot] = value;
    // A frozen (or sealed) key cannot hold a memo: its value is recomputed on every call rather than refused.
    else if (Object.isExtensible(key))
      Object.defineProperty(key, this.slot, { value, writable: true, enumerable: false, configurable: false });
  }
}
