import type { Action, Env, Policy, PolicyEntry, Rng, ToolObservation } from "../../src/family.js";
import { carefulPolicy } from "./policies/careful.js";
import { naivePolicy } from "./policies/naive.js";
import { oraclePolicy } from "./policies/oracle.js";

/** Uniform over the action space: mostly schema-valid calls to visible tools, sometimes an answer or abort. */
export function randomPolicy(env: Env<ToolObservation, Action>, rng: Rng): Policy<ToolObservation, Action> {
  return { name: "random", act: () => env.actionSpace.sample(rng) as Action };
}

export const FT_POLICIES: Readonly<Record<string, PolicyEntry<ToolObservation, Action>>> = {
  random: {
    description: "samples the action space (schema-valid calls to visible tools, answers, aborts)",
    usesHidden: false,
    create: (env, rng) => randomPolicy(env, rng),
  },
  naive: {
    description: "calls the requested service, trusts every success, never reads back, jumps to offered fallbacks",
    usesHidden: false,
    create: () => naivePolicy(),
  },
  careful: {
    description:
      "reads back writes, checks amounts/totals/ranges/timestamps and stated facts, cancels " +
      "wrong records, repairs arguments, asks before switching a write",
    usesHidden: false,
    create: () => carefulPolicy(),
  },
  oracle: {
    description: "uses info.hidden (truth and fault plan) to take a shortest safe path; proves solvability",
    usesHidden: true,
    create: () => oraclePolicy(),
  },
};

export { carefulPolicy, naivePolicy, oraclePolicy };
