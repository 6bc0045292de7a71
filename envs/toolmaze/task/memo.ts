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
 *
 * Every memo of a key shares one property (an array indexed by memo), so a key gains one hidden-class transition
 * whichever memos fill in whatever order: code reading `task.positions` elsewhere stays monomorphic.
 */
const MEMO: unique symbol = Symbol("toolmaze.memo");
type Holder = { [MEMO]?: unknown[] };
let memos = 0;

export class Memo<K extends object, V> {
  private readonly index = memos++;

  /** `name` says what the memo holds (for debugging). */
  constructor(readonly name: string) {}

  get(key: K): V | undefined {
    return (key as Holder)[MEMO]?.[this.index] as V | undefined;
  }

  set(key: K, value: V): void {
    let slots = (key as Holder)[MEMO];
    if (slots === undefined) {
      // A frozen (or sealed) key cannot hold a memo: its value is recomputed on every call rather than refused.
      if (!Object.isExtensible(key)) return;
      slots = [];
      // Writable data property (a field, not a constant in the hidden class): every key of a shape shares one map.
      Object.defineProperty(key, MEMO, { value: slots, writable: true, enumerable: false, configurable: false });
    }
    slots[this.index] = value;
  }
}
