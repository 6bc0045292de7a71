/**
 * The envs the discrete-mode tests cover, with the scripted policy whose action sequence must be expressible as
 * candidates (the oracle where the family has one, else its best observable baseline) and sampled seeds (the full
 * sweeps run in scripts/discrete-reachability.ts).
 */
export interface DiscreteFamilyCase {
  id: string;
  options: Record<string, unknown>;
  policy: string;
  replaySeeds: number[];
  reachSeeds: number[];
}

const range = (from: number, n: number, stride = 1): number[] => Array.from({ length: n }, (_, i) => from + i * stride);

export const DISCRETE_FAMILIES: DiscreteFamilyCase[] = [
  { id: "Demo-v0", options: { fault: "transient" }, policy: "careful", replaySeeds: range(0, 4), reachSeeds: range(0, 10) },
  { id: "Demo-v0", options: { fault: "implicit" }, policy: "careful", replaySeeds: range(0, 3), reachSeeds: range(0, 10) },
  { id: "ToolMaze-v0", options: {}, policy: "oracle", replaySeeds: range(0, 4), reachSeeds: range(0, 40, 50) },
  { id: "ToolMaze-v1", options: {}, policy: "oracle", replaySeeds: range(0, 3), reachSeeds: range(7, 15, 133) },
];
