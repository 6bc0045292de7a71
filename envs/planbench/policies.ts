/** Registered policies: adapters from the engine's observation to the baseline agents. */
import type { Action, Env, Info, JsonObject, Policy, PolicyEntry, Rng, ToolObservation, ToolSchema } from "../../src/family.js";
import { OracleAgent, PlannerAgent, RandomAgent, randomPhrases, type PlanBenchAgent } from "./baselines.js";
import type { PlanBenchEnv } from "./env.js";
import type { PlanBenchHidden } from "./session.js";
import type { PlanBenchAction, PlanBenchObservation, VisibleTool } from "./types.js";

/** Rebuilds the family observation from the engine's (schemas arrive once, in `newTools`). */
class ObservationAdapter {
  private schemas = new Map<string, ToolSchema>();
  reset(): void {
    this.schemas.clear();
  }
  convert(obs: ToolObservation, maxSteps: number): PlanBenchObservation {
    for (const t of obs.newTools) this.schemas.set(t.name, t);
    const r = (obs.response ?? {}) as JsonObject;
    const listed = Array.isArray(r["listed"]) ? (r["listed"] as string[]) : [];
    const tools: VisibleTool[] = listed.map((n) => {
      const s = this.schemas.get(n)!;
      return { type: "function", name: s.name, description: s.description, strict: true, parameters: s.parameters as unknown as VisibleTool["parameters"] };
    });
    const tr = r["toolResult"] as { name: string; success: boolean; output: string | number | boolean | null } | undefined;
    const err = typeof r["error"] === "string" ? (r["error"] as string) : null;
    const lastAction = (obs.step === 0 ? "none" : String(r["action"] ?? "others")) as PlanBenchObservation["lastAction"];
    return { query: obs.task, step: obs.step, stepsLeft: obs.budget.steps ?? maxSteps - obs.step, lastAction, feedback: String(r["feedback"] ?? ""), tools, toolResult: tr ?? null, error: err };
  }
}

function wrap(name: string, env: PlanBenchEnv, make: () => PlanBenchAgent): Policy<ToolObservation, Action> {
  const adapter = new ObservationAdapter();
  let agent = make();
  let hidden: PlanBenchHidden | null = null;
  return {
    name,
    reset(_obs: ToolObservation, info: Info) {
      adapter.reset();
      agent = make();
      hidden = (info["hidden"] as PlanBenchHidden | undefined) ?? env.session!.hidden();
    },
    act(obs: ToolObservation): Action {
      const a: PlanBenchAction = agent.act(adapter.convert(obs, env.maxSteps), hidden ?? env.session!.hidden());
      return a as unknown as Action;
    },
  };
}

type PEnv = Env<unknown, unknown>;
export const PLANBENCH_POLICIES: Record<string, PolicyEntry> = {
  oracle: {
    description: "Reference-run oracle: retrieve each tool of one_available_path by by_io_info with exact datatype names, call it, answer",
    usesHidden: true,
    create: (env: PEnv) => wrap("oracle", env as unknown as PlanBenchEnv, () => new OracleAgent((env as unknown as PlanBenchEnv).release)) as unknown as Policy,
  },
  planner: {
    description: "Observable-only backward search with output-conditioned retrieval; avoids self-declared unreliable tools, distrusts suspicious values, re-plans after failures",
    usesHidden: false,
    create: (env: PEnv) => wrap("planner", env as unknown as PlanBenchEnv, () => new PlannerAgent()) as unknown as Policy,
  },
  random: {
    description: "Random well-formed retrievals and calls over what it has seen; answers the last value with 5% probability",
    usesHidden: false,
    create: (env: PEnv, rng: Rng) => {
      const e = env as unknown as PlanBenchEnv;
      let ep = 0;
      const phrases = randomPhrases(e.release);
      // One derived stream per episode, so episodes do not depend on each other's lengths.
      const policy = wrap("random", e, () => {
        const r = rng.derive(`episode:${ep++}`);
        return new RandomAgent(() => r.random(), phrases);
      });
      return policy as unknown as Policy;
    },
  },
};
