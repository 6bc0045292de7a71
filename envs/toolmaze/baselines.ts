/**
 * ToolMaze baselines. `random` samples the action space. `heuristic` (agent/observant.ts) plans from the
 * observation alone. `happy-path` and `oracle` are reference followers that share one executor reading the task
 * plan from `info.hidden` (positions/slots at reset), and differ in how they treat failures:
 * - happy-path follows s* and never retries (after an error it stops and answers);
 * - oracle also reads the fault ground truth (per-step `hidden.perturbed/clean` and the fault profile) and
 *   replans with the same minimum-cost function the RC metric uses, so it recovers optimally.
 * The executor's observation-only failure mode ("careful") is kept as an upper reference for the heuristic: same
 * failure handling, but a perfect reading of the task plan.
 */
import type { Info, JsonObject, Rng, Policy, PolicyEntry, Action, ToolObservation } from "../../src/family.js";
import type { Binding, Position, SlotInfo, Task } from "./task/model.js";
import { enumerateSlot, slotCost, type SlotFaultState } from "./task/solve.js";
import { corpus } from "./world/corpus.js";
import type { Scalar } from "./world/types.js";
import { ObservantPolicy } from "./agent/observant.js";
import { looksImplausible, windowContradiction } from "./agent/plausibility.js";
import { readError } from "./agent/read.js";

export { looksImplausible };

interface HiddenPlan {
  positions: {
    index: number;
    group: string;
    category: Position["category"];
    slot: number;
    members: string[];
    route: string | null;
    bindings: Record<string, { literal: Scalar } | { type: string; from: number[] }>;
  }[];
  slots: SlotInfo[];
  sStar: string[];
  faults: { id: string; slot: number; group: string; persistence: "transient" | "permanent" }[];
}

/** Rebuild the task plan from `info.hidden` (the executor never needs the env object, so it works over the bridge). */
function planFrom(hidden: HiddenPlan): Task {
  const positions: Position[] = hidden.positions.map((p) => ({
    index: p.index,
    cap: p.group,
    category: p.category,
    members: p.members,
    slot: p.slot,
    bindings: Object.fromEntries(
      Object.entries(p.bindings).map(
        ([k, b]): [string, Binding] =>
          ["literal" in b ? [k, { kind: "literal", value: b.literal }] : [k, { kind: "bound", type: b.type, from: b.from }]][0] as [
            string,
            Binding,
          ],
      ),
    ),
  }));
  return { id: "plan", complexity: "C1", domain: "General", text: "", positions, slots: hidden.slots, solutions: [], sStar: hidden.sStar };
}

type FailureMode = "happy" | "careful" | "oracle";

/** The shared plan executor; `mode` decides how failures are handled. */
export class PlanExecutor implements Policy<ToolObservation, Action> {
  readonly name: string;
  private task!: Task;
  private slotSols: string[][][] = [];
  private chosen: (readonly string[])[] = [];
  private accepted = new Map<number, Record<string, Scalar>>();
  private done = new Set<string>();
  private bad = new Set<string>();
  private failures = new Map<string, number>();
  private victims = new Map<number, string>();
  private faults: HiddenPlan["faults"] = [];
  private exposed = false;
  private last: { tool: string; args: JsonObject; pos: number } | null = null;
  private gaveUp = false;

  constructor(private readonly mode: FailureMode) {
    this.name = mode === "happy" ? "happy-path" : mode === "careful" ? "plan-careful" : mode;
  }

  reset(_obs: ToolObservation, info: Info): void {
    const hidden = info.hidden as unknown as HiddenPlan | undefined;
    if (!hidden?.positions) throw new Error("toolmaze planners need info.hidden (hiddenInfo: true)");
    this.task = planFrom(hidden);
    this.faults = hidden.faults;
    this.slotSols = this.task.slots.map((s) => enumerateSlot(this.task.positions, s.goal));
    this.chosen = this.task.slots.map(
      (s) => this.slotSols[s.slot]!.find((p) => p.every((t) => hidden.sStar.includes(t))) ?? this.slotSols[s.slot]![0]!,
    );
    this.accepted = new Map();
    this.done = new Set();
    this.bad = new Set();
    this.failures = new Map();
    this.victims = new Map();
    this.exposed = false;
    this.last = null;
    this.gaveUp = false;
  }

  private posOf(tool: string): number {
    return this.task.positions.find((p) => p.members.includes(tool))!.index;
  }

  private observe(obs: ToolObservation, info: Info): "retry" | "replan" | "ok" | "stop" {
    const last = this.last;
    if (!last) return "ok";
    const r = obs.response as JsonObject | null;
    const isError = readError(r) !== null;
    if (this.mode === "oracle") {
      const h = (info.hidden ?? {}) as { perturbed?: boolean; clean?: boolean; faultId?: string | null };
      if (h.perturbed) {
        this.exposed = true;
        const f = this.faults.find((x) => x.id === h.faultId);
        if (f && !this.victims.has(f.slot)) this.victims.set(f.slot, last.tool);
        return "replan";
      }
      if (!isError && h.clean) {
        this.accept(last, r as Record<string, Scalar>);
        return this.exposed ? "replan" : "ok";
      }
      this.bad.add(last.tool);
      return "replan";
    }
    const implausible =
      !isError && (windowContradiction(r as JsonObject) || Object.entries(r as JsonObject).some(([k, v]) => looksImplausible(k, v)));
    if (!isError && (this.mode === "happy" || !implausible)) {
      this.accept(last, r as Record<string, Scalar>);
      return "ok";
    }
    if (this.mode === "happy") return "stop";
    const n = (this.failures.get(last.tool) ?? 0) + 1;
    this.failures.set(last.tool, n);
    if (n === 1) return "retry";
    this.bad.add(last.tool);
    return "replan";
  }

  private accept(last: { tool: string; pos: number }, output: Record<string, Scalar>): void {
    this.accepted.set(last.pos, output);
    this.done.add(last.tool);
  }

  private replan(): boolean {
    for (const s of this.task.slots) {
      const sols = this.slotSols[s.slot]!;
      if (this.mode === "oracle") {
        const f = this.faults.find((x) => x.slot === s.slot);
        const v = this.victims.get(s.slot);
        const state: SlotFaultState | undefined = f
          ? { group: f.group, persistence: f.persistence, ...(v !== undefined ? { victim: v } : {}) }
          : undefined;
        const usable = sols.filter((p) => !p.some((t) => this.bad.has(t)));
        const { path } = slotCost(this.task, usable, this.done, state);
        if (!path) return false;
        this.chosen[s.slot] = path;
      } else {
        const usable = sols.filter((p) => !p.some((t) => this.bad.has(t)));
        if (usable.length === 0) return false;
        // Fewest calls still needed; keep what already worked.
        usable.sort((a, b) => a.filter((t) => !this.done.has(t)).length - b.filter((t) => !this.done.has(t)).length);
        this.chosen[s.slot] = usable[0]!;
      }
    }
    return true;
  }

  private argsFor(tool: string, path: readonly string[]): JsonObject | null {
    const pos = this.task.positions[this.posOf(tool)]!;
    const args: JsonObject = {};
    for (const [param, b] of Object.entries(pos.bindings)) {
      if (b.kind === "literal") {
        args[param] = b.value;
        continue;
      }
      const provider =
        b.from.find((f) => this.accepted.has(f) && this.task.positions[f]!.members.some((m) => path.includes(m) && this.done.has(m))) ??
        b.from.find((f) => this.accepted.has(f));
      if (provider === undefined) return null;
      const out = this.accepted.get(provider)!;
      // Output field types are part of each tool's documented response schema.
      const types = corpus().tool(this.task.positions[provider]!.members.find((m) => this.done.has(m))!).outputTypes;
      const field = Object.keys(out).find((k) => types[k] === b.type);
      if (field === undefined) return null;
      args[param] = out[field]!;
    }
    return args;
  }

  act(obs: ToolObservation, info: Info): Action {
    const verdict = this.observe(obs, info);
    if (verdict === "stop") return { type: "answer", content: "Done." };
    if (verdict === "retry" && this.last) return { type: "tool_call", name: this.last.tool, arguments: this.last.args };
    if (verdict === "replan" && !this.replan()) return { type: "abort", reason: "no working path left" };
    if (this.gaveUp) return { type: "answer", content: "Done." };
    for (const s of this.task.slots) {
      const path = this.chosen[s.slot]!;
      for (const tool of path) {
        if (this.done.has(tool)) continue;
        const args = this.argsFor(tool, path);
        if (!args) {
          this.gaveUp = true;
          return { type: "answer", content: "Done." };
        }
        this.last = { tool, args, pos: this.posOf(tool) };
        return { type: "tool_call", name: tool, arguments: args };
      }
    }
    return { type: "answer", content: "All requested steps are complete." };
  }
}

/** Samples the action space: mostly schema-valid calls to visible tools with random arguments. */
function randomPolicy(env: { actionSpace: { sample(rng: Rng): unknown } }, rng: Rng): Policy<ToolObservation, Action> {
  return { name: "random", act: () => env.actionSpace.sample(rng) as Action };
}

const planner = (mode: FailureMode) => () => new PlanExecutor(mode);

export const TOOLMAZE_POLICIES: Record<string, PolicyEntry<ToolObservation, Action>> = {
  random: { description: "uniform samples from the action space", usesHidden: false, create: (env, rng) => randomPolicy(env, rng) },
  "happy-path": {
    description: "HIDDEN-INFORMED reference: follows s* read from info.hidden, never retries, trusts every response",
    usesHidden: true,
    create: planner("happy"),
  },
  heuristic: {
    description:
      "observation only: plans from the request text and tool schemas (backward chaining by " +
      "documented types), retries once, switches to alternatives, plausibility checks, aborts " +
      "when no way is left",
    usesHidden: false,
    create: () => new ObservantPolicy(),
  },
  "plan-careful": {
    description:
      "HIDDEN-INFORMED reference: the heuristic's failure handling on the true task plan from info.hidden (upper bound for plan reading)",
    usesHidden: true,
    create: planner("careful"),
  },
  oracle: {
    description: "reads fault ground truth and replans with the RC minimum-cost function",
    usesHidden: true,
    create: planner("oracle"),
  },
};
