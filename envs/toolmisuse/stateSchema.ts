/**
 * The exact shape of ToolMisuseBench-v0's snapshot state (`getState().data.world` and `.family`), and the checks of
 * the family state against the episode rebuilt from it.
 *
 * Why the world is any JSON map: the simulators follow the official environments, which run on whatever dict a task
 * record starts from (missing or mistyped collections are replaced or ignored, see world/toolsets.ts), so every map
 * is a world they define behaviour for. What must hold is that the engine's world and the session's are one state.
 */
import { z } from "zod";
import { StateError, type JsonValue, type CheckedToolEnvState } from "../../src/family.js";
import { FAULT_TYPES } from "./dataset.js";
import type { SessionSnapshot } from "./session.js";

const json: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number().finite(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]),
);
const jsonObject = z.record(z.string(), json);
const count = z.number().int().min(0);
const index = z.number().int().min(1);

/** The simulators' state: a JSON map (see the module comment). */
export const TOOLMISUSE_WORLD_SCHEMA = jsonObject;

const toolError = z.strictObject({ code: z.string(), message: z.string(), details: jsonObject });

const transcriptEntry = z.strictObject({
  tool_name: z.string(),
  args: jsonObject,
  output: jsonObject.nullable(),
  error: toolError.nullable(),
});

/** A fault stream: the core Rng's (compat "fixed") or CPython's Mersenne Twister (compat "official"). */
const faultStream = z.union([
  z.strictObject({
    path: z.string().min(1),
    state: z.strictObject({ c: z.number().finite(), s0: z.number().finite(), s1: z.number().finite(), s2: z.number().finite() }),
  }),
  z.strictObject({ mt: z.array(z.number().int().min(0).max(0xffffffff)).length(624), index: z.number().int().min(0).max(624) }),
]);

const firedFault = z.strictObject({
  faultType: z.enum(FAULT_TYPES),
  planIndex: count,
  persistence: z.enum(["transient", "persistent"]),
  label: z.string().nullable(),
  severity: z.enum(["soft", "hard"]),
});

const annotation = z.strictObject({
  step: index,
  callIndex: index,
  tool: z.string(),
  ok: z.boolean(),
  errorCode: z.string().nullable(),
  originalErrorCode: z.string().nullable(),
  repeatOfStep: index.nullable(),
  phase: z.enum(["ok", "budget", "injected", "validation", "simulator"]),
  faults: z.array(firedFault),
  invalidCall: z.boolean(),
  policyViolation: z.boolean(),
  progress: z.boolean(),
  newlyMet: z.array(z.string()),
  goldStepsDone: count.nullable(),
});

/** `getState().family`: null before the first episode, else the session snapshot (see session.ts). */
export const TOOLMISUSE_FAMILY_STATE_SCHEMA = z
  .strictObject({
    session: z.strictObject({
      faultStreams: z.array(faultStream),
      tracker: z.strictObject({
        invalidCalls: count,
        policyViolations: count,
        budgetExceeded: z.boolean(),
        faultSeen: z.boolean(),
        firstFaultStep: index.nullable(),
        firstRecoveryStep: index.nullable(),
      }),
      recovered: z.boolean(),
      annotations: z.array(annotation),
    }),
  })
  .nullable();

function fail(field: string, reason: string): never {
  const f = `state.family.session.${field}`;
  throw new StateError(f, `${f}: ${reason}`);
}

/**
 * Checks a (schema-checked) snapshot against the session just rebuilt for its episode (`fresh`, its snapshot):
 * one annotation per recorded call in order, fault streams of the episode's plan, fired faults of plan entries,
 * and every recorded response a transcript entry (the official pipeline records nothing else).
 */
export function checkToolMisuseState(s: CheckedToolEnvState, fresh: SessionSnapshot, plan: readonly { fault_type: string }[]): void {
  const fam = s.family as { session: SessionSnapshot } | null;
  if (fam === null) throw new StateError("state.family", "state.family: missing (the episode has a session)");
  const { faultStreams, annotations } = fam.session;
  const calls = s.data.calls;
  if (faultStreams.length !== fresh.faultStreams.length) {
    fail("faultStreams", `has ${faultStreams.length} streams, the episode's fault plan ${fresh.faultStreams.length}`);
  }
  faultStreams.forEach((st, i) => {
    const ref = fresh.faultStreams[i] as { path?: string; mt?: unknown };
    const got = st as { path?: string; mt?: unknown };
    const same = ref.path !== undefined ? got.path === ref.path : got.mt !== undefined;
    if (!same) fail(`faultStreams.${i}`, "is not this episode's fault stream");
  });
  calls.forEach((c, i) => {
    const r = transcriptEntry.safeParse(c.response);
    if (!r.success) throw new StateError(`state.data.calls.${i}.response`, `state.data.calls.${i}.response: not a transcript entry`);
    if (c.overflowed !== undefined && !transcriptEntry.safeParse(c.overflowed).success) {
      throw new StateError(`state.data.calls.${i}.overflowed`, `state.data.calls.${i}.overflowed: not a transcript entry`);
    }
  });
  if (annotations.length !== calls.length) fail("annotations", `has ${annotations.length} entries for ${calls.length} recorded calls`);
  annotations.forEach((a, i) => {
    if (a.step !== i + 1 || a.callIndex !== i + 1) fail(`annotations.${i}`, `must describe step and call ${i + 1}`);
    if (a.repeatOfStep !== null && a.repeatOfStep > i) fail(`annotations.${i}.repeatOfStep`, `must be an earlier step`);
    a.faults.forEach((f, j) => {
      if (plan[f.planIndex]?.fault_type !== f.faultType) {
        fail(`annotations.${i}.faults.${j}`, "is not an entry of the episode's fault plan");
      }
    });
  });
  const t = fam.session.tracker;
  for (const key of ["firstFaultStep", "firstRecoveryStep"] as const) {
    const v = t[key];
    if (v !== null && v > calls.length) fail(`tracker.${key}`, `is past the last call (${calls.length})`);
  }
}
