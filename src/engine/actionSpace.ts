import type { z } from "zod";
import { ActionError, describeZodIssues } from "../core/errors.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../core/json.js";
import type { Rng } from "../core/rng.js";
import { Space, type SpaceJson } from "../core/spaces/space.js";
import { sampleArguments, type ToolCallSpace } from "../core/spaces/toolCall.js";
import { type Action, CORE_ACTION_SCHEMAS } from "./actions.js";
import type { ObservableEpisode } from "./discrete/source.js";
import { ToolCallOf } from "./plainRecords.js";

function isPlainJson(v: JsonValue, depth: number): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (depth > 32 || typeof v !== "object") return false;
  if (Array.isArray(v)) return v.every((e) => isPlainJson(e, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v) if (!isPlainJson((v as JsonObject)[k], depth + 1)) return false;
  return true;
}

/** Weights of `ToolActionSpace.sample`'s kinds with their sum, taken once. */
interface KindWeights {
  readonly weights: readonly number[];
  readonly total: number;
}

function kindWeights(weights: number[]): KindWeights {
  let total = 0;
  for (const w of weights) total += w; // left to right from 0, as Rng.weighted sums
  return { weights, total };
}

/** `rng.weighted(weights)`, draw for draw, with the sum taken once instead of on every call. */
function pickWeighted({ weights, total }: KindWeights, rng: Rng): number {
  let r = rng.random() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  return weights.length - 1;
}

/** A family's extra action kind: its zod schema and an optional sampler for random policies. */
export interface ActionKind {
  schema: z.ZodType<Action>;
  sample?: (rng: Rng) => Action;
  /** Relative frequency in `sample()`; default 0 (never sampled) so random policies stay mostly tool calls. */
  weight?: number;
  /**
   * The discrete mode's candidates of this kind, when its fields are structured (a retrieval request) rather than
   * values to bind: a pure function of the observable episode, at most `cap`, in a fixed order. Without it the
   * mode binds the kind's fields from the task's parameters (docs/DISCRETE.md).
   */
  candidates?: (ep: ObservableEpisode, cap: number) => Action[];
  /**
   * The discrete mode's family features of one candidate of this kind (values in [0, 1], at most
   * `FAMILY_CANDIDATE_FEATURES.length`): what tells one structured request from another (PlanBench-XL: whether a
   * retrieval asks for a datatype still needed). A pure function of the observable episode.
   */
  features?: (ep: ObservableEpisode, action: Action) => readonly number[];
}

/**
 * The action space of every tool env: a tagged union (`tool_call`, `answer`, `abort`, plus family kinds).
 * `contains` checks the shape only; whether a well-shaped call is *right* (tool visible, arguments valid) is the
 * episode's business, reported as an in-episode error, because that mistake is what the agent must learn from.
 */
export class ToolActionSpace extends Space<Action> {
  private readonly kinds: Record<string, z.ZodType<Action>>;
  constructor(
    readonly toolCalls: ToolCallSpace,
    readonly extraKinds: Record<string, ActionKind> = {},
    readonly sampleWeights: { tool_call: number; answer: number; abort: number } = { tool_call: 0.9, answer: 0.05, abort: 0.05 },
    /** Maps a family's alternative wire format (e.g. ToolMisuseBench's `{tool_name, args}`) onto the union; may throw ActionError. */
    private readonly normalize?: (x: unknown) => unknown,
  ) {
    super();
    this.kinds = { ...CORE_ACTION_SCHEMAS };
    for (const [name, kind] of Object.entries(extraKinds)) this.kinds[name] = kind.schema;
  }

  /**
   * Hand-checked fast path for the three core kinds in their canonical shape (the hot path of every step); anything
   * else, including every malformed action, goes through zod for a precise error.
   */
  private fastParse(x: JsonObject): Action | null {
    let n = 0;
    for (const _ in x) n++;
    if (x.type === "tool_call") {
      const args = x.arguments;
      if (n === 3 && typeof x.name === "string" && x.name.length > 0 && isJsonObject(args) && isPlainJson(args, 0))
        return new ToolCallOf(x.name, args); // a plain object that stays young (see plainRecords.ts)
      return null;
    }
    if (x.type === "answer") return n === 2 && typeof x.content === "string" ? { type: "answer", content: x.content } : null;
    if (x.type === "abort")
      return n === 1 ? { type: "abort" } : n === 2 && typeof x.reason === "string" ? { type: "abort", reason: x.reason } : null;
    return null;
  }

  /** Validates and normalises an action, or throws an `ActionError` naming the field. */
  parse(input: unknown): Action {
    const x = this.normalize ? this.normalize(input) : input;
    if (!isJsonObject(x))
      throw new ActionError("action", `action must be an object with a "type" field, got ${JSON.stringify(x)?.slice(0, 80)}`);
    const fast = this.fastParse(x);
    if (fast) return fast;
    const type = x.type;
    const schema = typeof type === "string" ? this.kinds[type] : undefined;
    if (!schema) {
      throw new ActionError(
        "action.type",
        `action.type must be one of ${Object.keys(this.kinds).join(", ")} (got ${JSON.stringify(type)})`,
      );
    }
    const res = schema.safeParse(x);
    if (!res.success) {
      const { field, message } = describeZodIssues(res.error.issues, x, "action");
      throw new ActionError(field, message);
    }
    return res.data;
  }

  contains(x: unknown): x is Action {
    try {
      this.parse(x);
      return true;
    } catch {
      return false;
    }
  }

  /** `sample`'s kinds and their weights with and without visible tools, built once (kinds are fixed per space). */
  private sampling: { names: string[]; withTools: KindWeights; withoutTools: KindWeights } | null = null;

  sample(rng: Rng = this.stream()): Action {
    let s = this.sampling;
    if (s === null) {
      const extra = Object.values(this.extraKinds).map((k) => (k.sample ? (k.weight ?? 0) : 0));
      const { tool_call, answer, abort } = this.sampleWeights;
      s = this.sampling = {
        names: ["tool_call", "answer", "abort", ...Object.keys(this.extraKinds)],
        withTools: kindWeights([tool_call, answer, abort, ...extra]),
        withoutTools: kindWeights([0, answer, abort, ...extra]),
      };
    }
    const tools = this.toolCalls.tools();
    const kind = s.names[pickWeighted(tools.length > 0 ? s.withTools : s.withoutTools, rng)];
    if (kind === "tool_call") {
      // ToolCallSpace.sample's draws (tool, then arguments), without its intermediate call object.
      const tool = rng.pick(tools);
      return { type: "tool_call", name: tool.name, arguments: sampleArguments(tool.parameters, rng) };
    }
    if (kind === "answer") return { type: "answer", content: `answer-${rng.int(1000)}` };
    if (kind === "abort") return { type: "abort", reason: "random" };
    const extra = this.extraKinds[kind];
    return extra.sample ? extra.sample(rng) : { type: "abort", reason: "random" };
  }

  toJSON(): SpaceJson {
    return { type: "tool_action", kinds: Object.keys(this.kinds), tool_call: this.toolCalls.toJSON() };
  }
}
