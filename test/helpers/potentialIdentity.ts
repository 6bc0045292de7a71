import { type RecordedEpisode, resolveRewardSpec, returnsUnder } from "../../src/index.js";

/**
 * The potential-shaping identity on recorded episodes: for each, the return under `shaped` minus the return under
 * `shaped-no-potential` (`got`) and what the identity predicts, w·(Φ(s_T) − Φ(s_0)) with γ = 1 (`want`), plus
 * the raw potential change `delta`. Families assert `got ≈ want` with their own episodes and tolerance.
 */
export function potentialShapingGaps(
  family: string,
  terms: readonly string[],
  episodes: readonly RecordedEpisode[],
): { got: number; want: number; delta: number }[] {
  const shaped = resolveRewardSpec("shaped", family, terms);
  const base = resolveRewardSpec("shaped-no-potential", family, terms);
  const w = shaped.terms.potential?.weight ?? 0;
  const a = returnsUnder(shaped, episodes);
  const b = returnsUnder(base, episodes);
  return episodes.map((e, i) => {
    const delta = (e.steps[e.steps.length - 1]?.phi as number) - (e.phi0 as number);
    return { got: a[i]! - b[i]!, want: w * delta, delta };
  });
}
