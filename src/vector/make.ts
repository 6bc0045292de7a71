import type { Env } from "../core/env.js";
import { OptionsError } from "../core/errors.js";
import { make, parseEnvOptions } from "../core/registry.js";
import { AsyncVectorEnv } from "./async.js";
import { SyncVectorEnv } from "./sync.js";
import { parseVectorEnvOptions, type VectorEnv, type VectorEnvOptions } from "./vectorEnv.js";

/**
 * Makes a vector env of `numEnvs` copies (sync by default; `{ mode: "async" }` for worker threads). Env options and
 * vector options (`mode`, `autoresetMode`, `workers`, `modules`, `infoKeys`) are validated; errors name the field. Like
 * `make`, the type parameters name the observation and action types the caller expects (not checked at run time).
 */
export function makeVec<Obs = unknown, Act = unknown>(
  id: string,
  numEnvs: number,
  options: Record<string, unknown> = {},
  vectorOptions: VectorEnvOptions = {},
): VectorEnv<Obs, Act> {
  if (!Number.isInteger(numEnvs) || numEnvs < 1) throw new OptionsError("numEnvs", `numEnvs must be a positive integer, got ${numEnvs}`);
  parseEnvOptions(id, options);
  const parsed = parseVectorEnvOptions(vectorOptions);
  const env =
    parsed.mode === "async"
      ? new AsyncVectorEnv(id, numEnvs, options, parsed)
      : new SyncVectorEnv(
          Array.from({ length: numEnvs }, () => () => make(id, options) as Env<unknown, unknown>),
          parsed.autoresetMode,
          parsed.infoKeys,
        );
  return env as VectorEnv<Obs, Act>;
}
