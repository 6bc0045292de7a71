/**
 * An empty plain object for use as a dictionary whose keys are data (fault ids, booking slots, cart ids), not a
 * fixed shape. In JavaScript it is an ordinary `{}` (same prototype, same key order, same JSON). It matters to V8:
 * every key first added to a fresh `{}` becomes a transition of the one map all `{}` literals start from, and that
 * map keeps at most 1,536 transitions. Unbounded key sets (a fault id per task and mode) fill it, after which any
 * object built from `{}` with a key not recorded yet gets a map of its own: property access and enumeration on such
 * objects falls off V8's fast paths everywhere in the process (reward terms, tool outputs, infos). An object that
 * starts in dictionary mode adds keys without transitions, so data keys never reach the shared map.
 */
export function emptyDictionary<T>(): Record<string, T> {
  // Deleting a property other than the last one added switches the object to dictionary mode (it stays there).
  const o: Record<string, unknown> = { a: 0, b: 0 };
  delete o.a;
  delete o.b;
  return o as Record<string, T>;
}
