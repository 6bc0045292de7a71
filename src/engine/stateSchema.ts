/**
 * The schema of a tool-env snapshot (`ToolEnv.getState()`), checked before `setState` changes anything. A snapshot
 * crosses process and trust boundaries (the bridge's `set_state`), so a mutated one must be refused with a typed
 * error naming the field, not accepted and left to fail steps later with a TypeError deep in a simulator.
 *
 * The engine's own fields are checked exactly. A family's world (`data.world`) is checked by its own schema when it
 * declares one (`ToolEnvConfig.worldSchema`), and always against the world the same episode starts from; the
 * family's runtime state (`family`) against its state right after that episode's setup (`checkWorldShape`). Those
 * two checks are structural, not exact, so `setState` also undoes everything if restoring throws.
 */
import { z } from "zod";
import { StateError } from "../core/errors.js";
import { type JsonValue, stableStringify } from "../core/json.js";
import type { Rng } from "../core/rng.js";

/** Bumped when the snapshot's shape changes; `setState` refuses other versions. */
export const TOOL_ENV_STATE_VERSION = 1;

const json: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]),
);
const jsonObject = z.record(z.string(), json);
const count = z.number().int().min(0);
const finite = z.number().finite();

const eventSchema = z.looseObject({ type: z.string().min(1) });

const callRecordSchema = z.strictObject({
  index: z.number().int().min(1),
  step: count,
  tool: z.string(),
  arguments: jsonObject,
  ok: z.boolean(),
  response: json,
  errorSource: z.enum(["unknown_tool", "not_visible", "validation", "fault", "simulator", "budget"]).nullable(),
  overflowed: json.optional(),
  faults: z.array(z.string()),
  taint: z.enum(["clean", "corrupted", "untrusted"]),
  faultPersistence: z.enum(["transient", "temporary", "permanent"]).nullable(),
});

const aleaStateSchema = z.strictObject({ c: finite, s0: finite, s1: finite, s2: finite });

export const toolEnvStateSchema = z
  .strictObject({
    kind: z.literal("recovery-gym/tool-env-state"),
    version: z.literal(TOOL_ENV_STATE_VERSION),
    envId: z.string().min(1),
    options: jsonObject,
    rngPath: z.string().min(1),
    resetOptions: jsonObject,
    stepCount: count,
    done: z.boolean(),
    data: z.strictObject({
      world: json,
      visible: z.array(z.string()),
      calls: z.array(callRecordSchema),
      faultStates: z.record(z.string(), z.strictObject({ victim: z.string().nullable(), hits: count })),
      retries: count,
    }),
    faultRngs: z.record(z.string(), z.strictObject({ path: z.string().min(1), state: aleaStateSchema })),
    reward: z.strictObject({ totals: z.record(z.string(), finite), phi: finite.nullable(), t: count }),
    history: z.array(
      z.strictObject({
        step: z.number().int().min(1),
        action: z.looseObject({ type: z.string().min(1) }),
        response: json,
        events: z.array(eventSchema),
        reward: finite,
      }),
    ),
    lastVisible: z.array(z.string()),
    lastSeed: z.number().int(),
    unseededResets: count,
    family: json,
  })
  .superRefine((s, ctx) => {
    if (s.history.length !== s.stepCount) {
      ctx.addIssue({ code: "custom", path: ["history"], message: `has ${s.history.length} entries for stepCount ${s.stepCount}` });
    }
    s.data.calls.forEach((c, i) => {
      if (c.index !== i + 1) ctx.addIssue({ code: "custom", path: ["data", "calls", i, "index"], message: `must be ${i + 1}` });
    });
  });

export type CheckedToolEnvState = z.output<typeof toolEnvStateSchema>;

/**
 * A part of a parsed snapshot whose type the engine cannot check (the family's world, actions and events): the
 * snapshot schema checked its JSON structure, the family's `worldSchema`/shape checks the rest. The one cast of the
 * snapshot boundary lives here so that every caller names what it trusts.
 */
export function trustedSnapshotPart<T>(value: JsonValue | { readonly type: string }[] | { readonly type: string }): T {
  // The family's types are not expressible to zod here; the structural checks above stand in for them.
  return value as unknown as T;
}

/** Parses a snapshot; a StateError names the first bad field (and how many there were). */
export function parseToolEnvState(state: unknown): CheckedToolEnvState {
  const r = toolEnvStateSchema.safeParse(state);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  const field = ["state", ...first.path.map(String)].join(".");
  const more = r.error.issues.length > 1 ? ` (+${r.error.issues.length - 1} more)` : "";
  throw new StateError(field, `${field}: ${first.message}${more}`);
}

function kindOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/**
 * Refuses a world that does not fit `ref`, the world the same episode starts from (see the module comment): a
 * value present there keeps its JSON kind (and is not nil); a key present there is not missing; list elements
 * follow the reference's elements, or — for a list that starts empty — the list's own first element when it is a
 * map (fields both have keep one kind). Returns quietly when they agree.
 */
export function checkWorldShape(ref: JsonValue, value: JsonValue, field = "state.data.world"): void {
  if (ref === null) return;
  const a = kindOf(ref);
  const b = kindOf(value);
  if (a !== b) throw new StateError(field, `${field}: expected ${article(a)}, got ${article(b)}`);
  if (Array.isArray(ref)) {
    const v = value as JsonValue[];
    if (ref.length > 0) v.forEach((x, i) => checkWorldShape(i < ref.length ? ref[i] : ref[0], x, `${field}.${i}`));
    else if (v.length > 0 && kindOf(v[0]) === "object") v.forEach((x, i) => checkLoose(v[0], x, `${field}.${i}`));
  } else if (a === "object") {
    const r = ref as Record<string, JsonValue>;
    const v = value as Record<string, JsonValue>;
    for (const k of Object.keys(r)) {
      if (!(k in v)) throw new StateError(`${field}.${k}`, `${field}.${k}: missing`);
      checkWorldShape(r[k], v[k], `${field}.${k}`);
    }
  }
}

/** Elements of a list that started empty: same kind as the first one, and shared non-nil fields of the same kind. */
function checkLoose(first: JsonValue, value: JsonValue, field: string, nested = false): void {
  if (nested && (first === null || value === null)) return;
  const a = kindOf(first);
  const b = kindOf(value);
  if (a !== b) throw new StateError(field, `${field}: expected ${article(a)} like the list's first element, got ${article(b)}`);
  if (a === "array") {
    const f = first as JsonValue[];
    if (f.length > 0) (value as JsonValue[]).forEach((x, i) => checkLoose(f[0], x, `${field}.${i}`, true));
    return;
  }
  if (a !== "object") return;
  const f = first as Record<string, JsonValue>;
  const v = value as Record<string, JsonValue>;
  // Keys may differ (lists of records of several kinds); a key both have keeps its kind, all the way down.
  for (const k of Object.keys(f)) if (k in v) checkLoose(f[k], v[k], `${field}.${k}`, true);
}

function article(kind: string): string {
  return kind === "object" ? "a map" : kind === "array" ? "a list" : kind === "null" ? "nil" : `a ${kind}`;
}

/**
 * Checks the world (or, with `at` = "state.family", the family state) against a family's own schema
 * (`ToolEnvConfig.worldSchema` / `familyStateSchema`), naming the first bad field.
 */
export function checkWorldSchema(schema: z.ZodType, world: JsonValue, at = "state.data.world"): void {
  const r = schema.safeParse(world);
  if (r.success) return;
  const first = r.error.issues[0];
  const field = [at, ...first.path.map(String)].join(".");
  throw new StateError(field, `${field}: ${first.message}`);
}

/**
 * Checks a parsed snapshot against the episode it claims (rebuilt from its seed path and reset options): visible
 * tools exist, fault states are exactly the episode's faults, fault streams are theirs, the world keeps its shape.
 */
export function checkStateAgainstEpisode(
  s: CheckedToolEnvState,
  toolNames: readonly string[],
  faultIdList: readonly string[],
  engine: Rng,
  initialWorld: JsonValue,
): void {
  const tools = new Set(toolNames);
  for (const [i, name] of s.data.visible.entries()) {
    if (!tools.has(name)) throw new StateError(`state.data.visible.${i}`, `state.data.visible.${i}: unknown tool "${name}"`);
  }
  const faultIds = [...faultIdList].sort();
  if (stableStringify(Object.keys(s.data.faultStates).sort()) !== stableStringify(faultIds)) {
    const ids = faultIds.join(", ") || "none";
    throw new StateError("state.data.faultStates", `state.data.faultStates: expected one entry per fault of the episode (${ids})`);
  }
  for (const [id, st] of Object.entries(s.faultRngs)) {
    if (!faultIds.includes(id) || st.path !== engine.derive(`fault:${id}`).path) {
      throw new StateError(`state.faultRngs.${id}`, `state.faultRngs.${id}: not a fault stream of this episode`);
    }
  }
  checkWorldShape(initialWorld, s.data.world);
}
