import { OptionsError } from "../core/errors.js";
import { make } from "../core/registry.js";
import { ToolEnv } from "../engine/toolEnv.js";

/**
 * Makes a registered env that must be a ToolEnv (the reward-analysis commands read its term catalog, snapshots and
 * fork state); any other env is an OptionsError on --env naming the command.
 */
export function makeToolEnv(envId: string, options: Record<string, unknown>, command: string): ToolEnv<unknown> {
  const env = make(envId, options);
  if (env instanceof ToolEnv) return env;
  env.close();
  throw new OptionsError("--env", `${command}: ${envId} is not a tool env (no reward terms, getState or fork)`);
}
