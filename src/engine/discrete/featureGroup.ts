import type { Candidate } from "./candidates.js";
import type { ObservableEpisode } from "./source.js";

/** Where a group writes in the observation: its globals from `globalAt`, candidate slot i's features from `slotAt(i)`. */
export interface FeatureTarget {
  out: Float32Array;
  globalAt: number;
  slotAt: (i: number) => number;
}

/**
 * A group of observable features appended to the base set of features.ts: its feature names, in order (the
 * observation layout and docs/DISCRETE.md follow them), and the encoder that writes them for one step.
 */
export interface FeatureGroup {
  readonly globals: readonly string[];
  readonly candidates: readonly string[];
  encode(ep: ObservableEpisode, list: readonly Candidate[], maxCandidates: number, at: FeatureTarget): void;
}
