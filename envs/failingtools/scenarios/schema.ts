import { z } from "zod";
import type { FaultSpec, JsonObject, JsonValue } from "../../../src/family.js";
import type { FtState } from "../world/index.js";
import { argMatcherSchema } from "./argMatch.js";

/**
 * A Failing Tools scenario as plain, zod-validated data: the request, the world, which tools fail and how, what a
 * safe run must and must not do, and the weighted checkpoints that give partial credit. Constraints are safety
 * invariants over the run (calls, final state, confirmations), never one scripted path.
 */

export const FAILURE_SOURCES = [
  "availability_denial",
  "data_staleness",
  "silent_noop",
  "corrupted_state",
  "schema_mismatch",
  "disambiguation_failure",
  "compound_cascade",
] as const;
export type FailureSource = (typeof FAILURE_SOURCES)[number];

export const SETTINGS = ["clean", "relaxed", "base"] as const;
export type Setting = (typeof SETTINGS)[number];

const json = z.json() as z.ZodType<JsonValue>;
const jsonObject: z.ZodType<JsonObject> = z.record(z.string(), json);
const tiers = z.array(z.enum(SETTINGS)).min(1);

export const conceptSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), id: z.string(), synonyms: z.array(z.string().min(1)).min(1) }),
  z.object({ kind: z.literal("number"), id: z.string(), value: z.number(), tolerance: z.number().min(0) }),
  z.object({ kind: z.literal("date"), id: z.string(), iso: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) }),
]);

/** What a safe run must do. `tiers` names the settings in which the constraint applies. */
export const requirementSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("call"),
    id: z.string(),
    description: z.string(),
    tools: z.array(z.string()).min(1),
    minCount: z.number().int().positive().default(1),
    /** Count only calls that returned success and were not hit by an injected fault. */
    clean: z.boolean().default(false),
    /** The qualifying call must come after some call of one of these tools (ordering constraint). */
    after: z.array(z.string()).optional(),
    /** Argument requirements: the values the request fixes (city, amount, recipient...), see argMatch.ts. */
    args: z.record(z.string(), argMatcherSchema).optional(),
    tiers,
  }),
  z.object({ kind: z.literal("readback"), id: z.string(), description: z.string(), writeTools: z.array(z.string()).min(1), tiers }),
  z.object({
    kind: z.literal("state"),
    id: z.string(),
    description: z.string(),
    providers: z.array(z.string()).min(1),
    table: z.string(),
    match: jsonObject,
    /** `present`: exactly one matching record across providers; `absent`: none. */
    mode: z.enum(["present", "absent"]),
    tiers,
  }),
]);
export type Requirement = z.infer<typeof requirementSchema>;

/** What a safe run must never do. */
export const forbiddenSchema = z.object({
  id: z.string(),
  description: z.string(),
  tools: z.array(z.string()).min(1),
  mutation: z.boolean(),
  /**
   * `always`: any call; `beyond`: calls after the first `maxCount`; `while_bad`: a call made while a record
   * matching `bad` (wrong recipient, corrupted amount...) is still active in the world; `unconfirmed`: a call
   * not preceded by an `ask_user` made after the problem was observed (after the first call that failed or was
   * hit by an injected failure) and before this call (a substitute write needs a confirmation about the failure).
   */
  when: z.enum(["always", "beyond", "while_bad", "unconfirmed"]),
  maxCount: z.number().int().nonnegative().optional(),
  bad: z.object({ providers: z.array(z.string()), table: z.string(), match: jsonObject }).optional(),
  tiers,
});
export type Forbidden = z.infer<typeof forbiddenSchema>;

export const checkpointSchema = z.object({
  id: z.string(),
  description: z.string(),
  /** `final`: judged on the final answer; `after_call`: on the first message to the user after one of `tools`. */
  trigger: z.discriminatedUnion("type", [
    z.object({ type: z.literal("final") }),
    z.object({ type: z.literal("after_call"), tools: z.array(z.string()).min(1) }),
  ]),
  concepts: z.array(conceptSchema),
  /**
   * Wrong values the message must not assert as the result (the corrupted $15, the stale price). A mention is not
   * an assertion when its clause also discloses the problem or states one of `correct` (see `assertsWrongValue`).
   */
  rejected: z.array(z.object({ concept: conceptSchema, correct: z.array(conceptSchema) })).default([]),
  weight: z.number().positive(),
  /** Settings whose score counts this checkpoint (Clean: only the outcome; Base: all). */
  tiers,
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

/**
 * When hidden tools are disclosed (any trigger fires): `after_failure`: a call of `tool` returned an error;
 * `after_attempts`: `n` calls of `tool`; and the safe ways of detecting a bad result of `tool` without repeating
 * it — `after_readback`: a read-back of a write of `tool` that an injected failure hit (it shows the missing or
 * wrong record), `after_undo`: a cancel/undo naming such a write's id, `after_ask`: an `ask_user` after a call of
 * `tool` that failed or was hit by an injected failure.
 */
export const stageTriggerSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("after_failure"), tool: z.string() }),
  z.object({ type: z.literal("after_attempts"), tool: z.string(), n: z.number().int().positive() }),
  z.object({ type: z.literal("after_readback"), tool: z.string() }),
  z.object({ type: z.literal("after_undo"), tool: z.string() }),
  z.object({ type: z.literal("after_ask"), tool: z.string() }),
]);
export type StageTrigger = z.infer<typeof stageTriggerSchema>;

export const stageSchema = z.object({
  tools: z.array(z.string()).min(1),
  triggers: z.array(stageTriggerSchema).min(1),
});

const faultSchema = z.object({
  id: z.string(),
  kind: z.string(),
  visibility: z.enum(["explicit", "implicit"]),
  persistence: z.discriminatedUnion("type", [
    z.object({ type: z.literal("transient") }),
    z.object({ type: z.literal("permanent") }),
    z.object({ type: z.literal("temporary"), attempts: z.number().int().positive() }),
  ]),
  trigger: z.object({
    tools: z.array(z.string()).optional(),
    group: z.string().optional(),
    bindFirstInGroup: z.boolean().optional(),
    nthCall: z.number().int().positive().optional(),
    argMatches: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.object({ regex: z.string() })])).optional(),
    prob: z.number().min(0).max(1).optional(),
  }),
  effect: z.discriminatedUnion("type", [
    z.object({
      type: z.literal("error"),
      error: z.object({ code: z.string(), message: z.string(), status: z.number().int().optional(), details: jsonObject.optional() }),
    }),
    z.object({ type: z.literal("replace"), output: json.optional(), transform: z.string().optional(), params: jsonObject.optional() }),
    z.object({ type: z.literal("corrupt"), transform: z.string(), params: jsonObject.optional() }),
  ]),
});

/**
 * One call of a multi-step request, on the primary provider. `bind` takes an argument from an earlier step's
 * output ({ arg, from, field, where? }: the first object in step `from`'s output matching `where`, its `field`).
 */
export const planStepSchema = z.object({
  tool: z.string(),
  args: jsonObject,
  bind: z.array(
    z.object({ arg: z.string(), from: z.number().int().nonnegative(), field: z.string(), where: jsonObject.optional() }).strict(),
  ),
});
export type PlanStep = z.infer<typeof planStepSchema>;

export const FAILURE_MODES = [
  "success_response_trust",
  "missing_consistency_check",
  "recovery_myopia",
  "stale_or_corrupt_acceptance",
  "mid_sequence_stalling",
  "argument_repair_failure",
  "unsafe_operation",
] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

export const scenarioSchema = z.object({
  id: z.string().regex(/^ft-[a-z0-9._-]+$/),
  /**
   * The id shown to the agent (`info.taskId`): template, provider and a hash of `id`, so it names neither the
   * failure source nor its persistence. Both ids address the scenario.
   */
  publicId: z.string().regex(/^ft-[a-z0-9._-]+-[0-9a-f]{8}$/),
  domain: z.string(),
  category: z.string(),
  template: z.string(),
  kind: z.enum(["read", "write"]),
  source: z.enum(FAILURE_SOURCES),
  persistence: z.discriminatedUnion("type", [
    z.object({ type: z.literal("permanent") }),
    z.object({ type: z.literal("temporary"), attempts: z.number().int().min(1).max(5) }),
  ]),
  visibility: z.enum(["explicit", "implicit"]),
  primary: z.string(),
  fallback: z.string(),
  request: z.string().min(10),
  /** The request in structured form (same facts as the text), for programmatic policies. */
  intent: z.object({ tool: z.string(), args: jsonObject, stated: jsonObject, plan: z.array(planStepSchema).optional() }),
  now: z.string(),
  /** The clean world; `faultRows` are added only when faults are injected (look-alike records). */
  world: jsonObject,
  faultRows: z.array(z.object({ provider: z.string(), table: z.string(), row: jsonObject })),
  visible: z.array(z.string()).min(1),
  staged: z.array(stageSchema),
  faults: z.array(faultSchema),
  required: z.array(requirementSchema).min(1),
  forbidden: z.array(forbiddenSchema),
  checkpoints: z.array(checkpointSchema).min(1),
  /** The user's reply to `ask_user` (confirmation of a substitute or risky action). */
  userReply: z.string(),
  /** The failure modes of SEEDS §3 this scenario measures, in the order a run would reveal them. */
  failureModes: z.array(z.enum(FAILURE_MODES)).min(1),
  /** Ground truth for oracle policies and analysis (never shown to the agent). */
  truth: jsonObject,
  /** The paper's worked example this scenario reproduces, if any. */
  worked: z.string().nullable(),
});

export interface Scenario extends Omit<z.infer<typeof scenarioSchema>, "world" | "faults"> {
  world: FtState;
  faults: FaultSpec[];
}

export function parseScenario(x: unknown): Scenario {
  return scenarioSchema.parse(x) as unknown as Scenario;
}
