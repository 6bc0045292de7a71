/** Registered policies: adapters from the engine's observation to the baseline agents. */
import type { Action, Env, Info, JsonObject, Policy, PolicyEntry, Rng, ToolObservation, ToolSchema } from "../../src/family.js";
import { OracleAgent, PlannerAgent, RandomAgent, randomPhrases, type PlanBenchAgent } from "./baselines.js";
import { PlanBenchEnv } from "./env.js";
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
      const p = s.parameters;
      const parameters: VisibleTool["parameters"] = {
        type: "object",
        properties: p.properties ?? {},
        ...(p.required ? { required: [...p.required] } : {}),
      };
      return { type: "function", name: s.name, description: s.description, strict: true, parameters };
    });
    const tr = r["toolResult"] as { name: string; success: boolean; output: string | number | boolean | null } | undefined;
    const err = typeof r["error"] === "string" ? (r["error"] as string) : null;
    const lastAction = (obs.step === 0 ? "none" : String(r["action"] ?? "others")) as PlanBenchObservation["lastAction"];
    return {
      query: obs.task,
      step: obs.step,
      stepsLeft: obs.budget.steps ?? maxSteps - obs.step,
      lastAction,
      feedback: String(r["feedback"] ?? ""),
      tools,
      toolResult: tr ?? null,
      error: err,
    };
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
      return a;
    },
  };
}

/** The PlanBench-XL env under whatever wrappers a caller added (the agents read its release and session). */
function planBenchEnv(env: Env<unknown, unknown>): PlanBenchEnv {
  const base = env.unwrapped;
  if (base instanceof PlanBenchEnv) return base;
  throw new TypeError(`PlanBench-XL policies run on PlanBenchXL-v0, not on ${base.spec?.id ?? "another env"}`);
}

export const PLANBENCH_POLICIES: Record<string, PolicyEntry> = {
  oracle: {
    description: "Reference-run oracle: retrieve each tool of one_available_path by by_io_info with exact datatype names, call it, answer",
    usesHidden: true,
    create: (env) => {
      const e = planBenchEnv(env);
      return wrap("oracle", e, () => new OracleAgent(e.release));
    },
  },
  planner: {
    description:
      "Observable-only backward search with output-conditioned retrieval; avoids self-declared " +
      "unreliable tools, distrusts suspicious values, re-plans after failures",
    usesHidden: false,
    create: (env) => wrap("planner", planBenchEnv(env), () => new PlannerAgent()),
  },
  random: {
    description: "Random well-formed retrievals and calls over what it has seen; answers the last value with 5% probability",
    usesHidden: false,
    create: (env, rng: Rng) => {
      const e = planBenchEnv(env);
      let ep = 0;
      const phrases = randomPhrases(e.release);
      // One derived stream per episode, so episodes do not depend on each other's lengths.
      return wrap("random", e, () => {
        const r = rng.derive(`episode:${ep++}`);
        return new RandomAgent(() => r.random(), phrases);
      });
    },
  },
};
