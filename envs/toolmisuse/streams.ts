/**
 * The fault streams of an episode, one definition for the env, the runner and the generator:
 * under compat "fixed" each spec's stream is a core `Rng`, under "official" CPython's Mersenne
 * Twister with the same integer seed (`base × 9973 + plan index`), so `prob` triggers draw exactly
 * what the upstream harness draws. The generator validates its tasks with these same factories,
 * so a task whose triggers depend on draws behaves in the env exactly as it did when validated.
 */
import { CoreUniform, type UniformFactory } from "./faults.js";
import { PyMersenne } from "./pyrandom.js";
import type { CompatMode } from "./world/types.js";

const FIXED: UniformFactory = (s) => new CoreUniform(`toolmisuse-fault/${s}`);
const OFFICIAL: UniformFactory = (s) => new PyMersenne(s);

export function faultStreams(compat: CompatMode): UniformFactory {
  return compat === "official" ? OFFICIAL : FIXED;
}
