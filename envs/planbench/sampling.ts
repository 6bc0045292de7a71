/**
 * The official `query_sample` (`core/sampling.py#sample_sequence`): `random.Random(seed).sample(range(n), size)`
 * picks the indices, and the queries keep their file order. CPython's `sample` is reproduced bit for bit by
 * `PyRandom`, so a run restricted this way plays exactly the queries the official run plays.
 */
import { OptionsError } from "../../src/family.js";
import { PyRandom } from "./compat/index.js";

/** `sample_sequence(items, size, seed)`; `size: null` keeps every item. Errors name `settings.query_sample.size`. */
export function sampleSequence<T>(items: readonly T[], size: number | null, seed: number): T[] {
  if (size === null) return items.slice();
  if (size > items.length) {
    throw new OptionsError("settings.query_sample.size", `query_sample.size ${size} exceeds the ${items.length} queries of the release`);
  }
  const picked = new Set(new PyRandom(seed).sample([...items.keys()], size));
  return items.filter((_, i) => picked.has(i));
}
