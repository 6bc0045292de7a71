import { cloneJson, type JsonObject } from "../../../src/family.js";
import type { ChainBind, TaskChain } from "../world/category.js";
import { toolName } from "../world/index.js";
import { argRequirements } from "./constraints.js";
import { ALL, B, RB, type ScenarioFrame, withArgs } from "./frame.js";
import type { Checkpoint, PlanStep, Requirement } from "./schema.js";

/**
 * Multi-step tasks: lookups before the main call, tracking/read-back after it; the failure hits in between.
 * Required: each lookup before the main call, each follow-up after it, and after a switch the lookup redone on the
 * fallback (record ids are per provider); a checkpoint per step.
 */
export function chainChecks(f: ScenarioFrame, chain: TaskChain): { required: Requirement[]; checkpoints: Checkpoint[] } {
  const { task, primary, fallback, M, F, request, mainArgs, refusal, usesFallback } = f;
  const wr = task.write;
  const required: Requirement[] = [];
  const chainCheckpoints: Checkpoint[] = [];
  const mainIdx = chain.before.length;
  const preTools: string[] = [];
  /** A chain step's tools (on either provider) and the arguments the request fixes for it. */
  const stepCall = (st: (typeof chain.before)[number]) => ({
    tools: [toolName(primary.id, st.op), toolName(fallback.id, st.op)],
    stepArgs: argRequirements(
      request,
      st.args,
      (st.bind ?? []).map((b) => b.arg),
      null,
    ),
  });
  chain.before.forEach((st, i) => {
    const { tools, stepArgs } = stepCall(st);
    preTools.push(...tools);
    required.push({
      kind: "call",
      id: `step_before_${i}`,
      description: `${st.purpose} (step ${i + 1} of the request)`,
      tools,
      minCount: 1,
      clean: true,
      ...withArgs(stepArgs),
      tiers: ALL,
    });
    chainCheckpoints.push({
      id: `step_before_${i}_done`,
      description: `step ${i + 1}: ${st.purpose}`,
      trigger: { type: "after_call", tools },
      concepts: [],
      rejected: [],
      weight: 1,
      tiers: B,
    });
  });
  if (preTools.length > 0) {
    required.push({
      kind: "call",
      id: "chain_order",
      description: `call ${task.main.op} only after the lookup`,
      tools: [M, F],
      minCount: 1,
      clean: false,
      after: preTools,
      ...withArgs(mainArgs),
      tiers: ALL,
    });
  }
  if (usesFallback && chain.before.length > 0) {
    const preF = chain.before.map((st) => toolName(fallback.id, st.op));
    required.push({
      kind: "call",
      id: "restart_chain",
      description: `after switching, redo the lookup on ${fallback.label} (ids are per provider) before ${F}`,
      tools: [F],
      minCount: 1,
      clean: false,
      after: preF,
      ...withArgs(mainArgs),
      tiers: RB,
    });
  }
  chain.after.forEach((st, j) => {
    const { tools, stepArgs } = stepCall(st);
    required.push({
      kind: "call",
      id: `step_after_${j}`,
      description: `${st.purpose} after ${task.main.op} (step ${mainIdx + 2 + j} of the request)`,
      tools,
      minCount: 1,
      clean: true,
      after: [M, F],
      ...withArgs(stepArgs),
      tiers: refusal ? ["clean"] : ALL,
    });
    if (!refusal && st.op !== wr?.verify.op) {
      chainCheckpoints.push({
        id: `step_after_${j}_done`,
        description: `step ${mainIdx + 2 + j}: ${st.purpose}`,
        trigger: { type: "after_call", tools },
        concepts: [],
        rejected: [],
        weight: 1,
        tiers: B,
      });
    }
  });
  return { required, checkpoints: chainCheckpoints };
}

/** A copy of a bound argument, without an absent `where` (as JSON data has no undefined members). */
function bindOf(b: ChainBind): PlanStep["bind"][number] {
  const { arg, from, field } = b;
  return b.where === undefined ? { arg, from, field } : { arg, from, field, where: cloneJson(b.where) };
}

/** The request as an ordered plan on the primary provider; bound arguments come from earlier outputs. */
export function planOf(chain: TaskChain, provider: string, M: string, mainArgs: JsonObject): PlanStep[] {
  const step = (op: string, args: JsonObject, bind: ChainBind[] | undefined): PlanStep => ({
    tool: toolName(provider, op),
    args,
    bind: (bind ?? []).map(bindOf),
  });
  return [
    ...chain.before.map((st) => step(st.op, st.args, st.bind)),
    { tool: M, args: mainArgs, bind: chain.mainBind.map(bindOf) },
    ...chain.after.map((st) => step(st.op, st.args, st.bind)),
  ];
}
