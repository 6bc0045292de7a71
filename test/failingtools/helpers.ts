import "../../envs/failingtools/index.js";
import { make } from "../../src/core/registry.js";
import { Rng } from "../../src/core/rng.js";
import type { Info } from "../../src/core/env.js";
import type { JsonObject } from "../../src/core/json.js";
import { FT_POLICIES } from "../../envs/failingtools/baselines.js";
import type { FailingToolsEnv } from "../../envs/failingtools/env.js";
import type { Action } from "../../src/engine/actions.js";
import type { ToolObservation } from "../../src/engine/observation.js";

export function ftEnv(options: Record<string, unknown> = {}): FailingToolsEnv {
  return make("FailingTools-v0", options) as unknown as FailingToolsEnv;
}

/** Plays one scenario with a registered baseline; returns the final info.metrics. */
export function play(
  env: FailingToolsEnv,
  policy: string,
  scenarioId: string,
  seed = 0,
): { metrics: JsonObject; actions: Action[]; final: Info } {
  const p = FT_POLICIES[policy].create(env as never, new Rng(7));
  let [obs, info] = env.reset({ seed, options: { scenarioId } });
  p.reset?.(obs, info);
  const actions: Action[] = [];
  for (let k = 0; k < 60; k++) {
    const a = p.act(obs, info);
    actions.push(a);
    const [o, , term, trunc, i] = env.step(a);
    obs = o as ToolObservation;
    info = i;
    if (term || trunc) break;
  }
  return { metrics: info.metrics as JsonObject, actions, final: info };
}
