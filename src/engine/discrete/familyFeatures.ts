/**
 * Family features of a candidate: a few slots whose meaning the family's action kind defines (`ActionKind.features`).
 * The engine's features describe tool calls by their tool and bound values; a family action whose fields are a
 * structured request (PlanBench-XL's retrieval: which datatype it asks for, from which held ones) would otherwise
 * look the same in every slot, and a per-slot scorer could not prefer one request to another.
 */
import type { Candidate } from "./candidates.js";
import type { ObservableEpisode } from "./source.js";
import type { FeatureGroup, FeatureTarget } from "./featureGroup.js";

/** Per-candidate family features, appended last (docs/DISCRETE.md: each family's table says what they mean). */
export const FAMILY_CANDIDATE_FEATURES = [
  "family_0",
  "family_1",
  "family_2",
  "family_3",
  "family_4",
  "family_5",
  "family_6",
  "family_7",
] as const;

/** Writes each family candidate's features at `slotAt(i)`; values are clamped to [0, 1], extra ones dropped. */
function encodeFamilyFeatures(ep: ObservableEpisode, list: readonly Candidate[], maxCandidates: number, at: FeatureTarget): void {
  const { out, slotAt } = at;
  for (let i = 0; i < list.length && i < maxCandidates; i++) {
    const c = list[i];
    if (c.kind !== "family") continue;
    const features = ep.familyKinds[c.name]?.features;
    if (!features) continue;
    const values = features(ep, c.action);
    const o = slotAt(i);
    const n = Math.min(values.length, FAMILY_CANDIDATE_FEATURES.length);
    for (let j = 0; j < n; j++) {
      const x = values[j];
      out[o + j] = Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
    }
  }
}

/** The group as features.ts appends it. */
export const FAMILY: FeatureGroup = { globals: [], candidates: FAMILY_CANDIDATE_FEATURES, encode: encodeFamilyFeatures };
