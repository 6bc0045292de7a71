/**
 * The exact shape of PlanBenchXL-v0's snapshot state (`getState().data.world` and `.family`; see world/snapshot.ts
 * for the encoding), and the checks of a snapshot's family state against the episode rebuilt from it.
 *
 * Why both: the schema alone admits a well-typed state that names tools the release does not have, points the last
 * outcome at a missing trace entry or says "finished" where the engine says "running"; each of those is accepted by
 * `restore` and fails steps later with a TypeError (or the runtime's "episode is over" error) deep in the runtime.
 */
import { z } from "zod";
import { type CheckedToolEnvState, type JsonValue, StateError } from "../../src/family.js";
import type { PlanBenchRelease, QueryRecord } from "./releaseFormat.js";

const count = z.number().int().min(0);
const RESERVED = ["$f", "$n", "$i", "$esc"];
const special = z.enum(["nan", "inf", "-inf", "-0"]);

/** A runtime value as `encodeValue` writes it: plain JSON, tagged floats and big ints, escaped `$` keys. */
const pyValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number().finite(), z.boolean(), z.null(), z.array(pyValue), taggedValue, pyObject]),
);
const taggedValue = z.union([
  z.strictObject({ $f: z.union([z.number().finite(), special]) }),
  z.strictObject({ $n: special }),
  z.strictObject({ $i: z.string().regex(/^-?\d+$/, "must be an integer's digits") }),
]);
const plainObject = z
  .record(z.string(), pyValue)
  .refine((o) => !RESERVED.some((k) => k in o), { message: `a plain map cannot use the keys ${RESERVED.join(", ")}` });
/** A map (the `$esc` wrapper is what `encodeValue` writes for a map that uses a reserved key). */
const pyObject: z.ZodType<JsonValue> = z.union([plainObject, z.strictObject({ $esc: z.record(z.string(), pyValue) })]);

const names = z.array(z.string());
const toolType = z.enum(["baseline", "noisy_misleading", "blocker_misleading"]);
const provenance = z.enum(["trusted", "untrusted", "none"]);
const untrustedSource = z.enum(["noisy", "blocker"]).nullable();
const failure = z.enum([
  "unevaluated_runtime_error",
  "exceeded_max_label_errors",
  "exceeded_max_retrieval_errors",
  "exceeded_max_tool_call_errors",
  "exceeded_max_steps",
  "target_datatype_not_reached",
  "final_answer_wrong",
]);
const internalError = z.enum(["untrusted_input_rejected", "missing_required_input", "ambiguous_lookup"]);
const step = { step_id: z.number().int().min(1) };

const traceTool = z.strictObject({
  tool_id: z.string().optional(),
  name: z.string(),
  description: z.string(),
  input_datatypes: names,
  output_datatype: z.string(),
  tool_type: toolType,
});

const traceEntry = z.discriminatedUnion("action", [
  z.strictObject({ ...step, action: z.literal("others"), raw_output: z.string() }),
  z.strictObject({
    ...step,
    action: z.literal("retrieve_tools"),
    parse_ok: z.boolean(),
    raw_output: z.string().optional(),
    request: pyObject.optional(),
    matched_information: z
      .strictObject({ output_information: z.string().nullable().optional(), input_information: names.optional() })
      .optional(),
    model_retriever_note: z.string().nullable().optional(),
    retrieval_result: z
      .strictObject({ tool_count: count, tools: z.array(traceTool) })
      .refine((r) => r.tool_count === r.tools.length, { message: "tool_count must equal the number of tools", path: ["tool_count"] })
      .optional(),
    error_kind: z.enum(["invalid_json", "invalid_request"]).optional(),
  }),
  z.strictObject({
    ...step,
    action: z.literal("call_tool"),
    parse_ok: z.boolean(),
    raw_output: z.string().optional(),
    request: pyObject.optional(),
    internal_error_type: internalError.optional(),
    untrusted_input_datatypes: names.optional(),
    missing_input_datatypes: names.optional(),
    tool_result: z
      .strictObject({
        success: z.boolean(),
        output_datatype: z.string(),
        output_value: pyValue,
        tool_type: toolType,
        output_provenance: provenance,
        untrusted_source_type: untrustedSource,
      })
      .optional(),
    error_kind: z.enum(["invalid_json", "not_retrieved", "wrong_arguments", ...internalError.options]).optional(),
  }),
  z.strictObject({
    ...step,
    action: z.literal("final_answer"),
    parse_ok: z.boolean(),
    answer: z.string(),
    answer_correct: z.boolean(),
    target_datatype_reached: z.boolean(),
    matched_untrusted_source_types: names,
    datatype_check_passed: z.boolean(),
    incorrect_final_answer_feedback_sent: z.boolean().optional(),
    incorrect_final_answer_feedback_count: count.optional(),
  }),
]);

const result = z.strictObject({
  query_id: z.string(),
  stop_reason: z.enum(["normal", "runtime_error"]),
  status: z.enum(["success", "failed"]),
  final_answer: z.string().nullable(),
  steps: count,
  // The result shares the episode's trace: the snapshot writes null and restore re-links it.
  trace: z.null(),
  final_state: z.strictObject({
    current_datatypes: names,
    discovered_tool_names: names,
    retrieval_attempt_count: count,
    retrieval_exec_count: count,
    tool_call_attempt_count: count,
    tool_call_exec_count: count,
    incorrect_final_answer_feedback_count: count,
    has_final_answer: z.boolean(),
  }),
  failure_reason_detail: failure.optional(),
});

const store = z.array(z.tuple([z.string(), names]));

const episode = z.strictObject({
  counters: z.strictObject({
    stepCount: count,
    labelErrors: count,
    retrievalErrors: count,
    callErrors: count,
    retrievalAttempts: count,
    retrievalExecs: count,
    callAttempts: count,
    callExecs: count,
    feedbackCount: count,
  }),
  currentDatatypes: names,
  trusted: store,
  untrusted: store,
  untrustedSources: z.array(z.tuple([z.string(), z.array(z.tuple([z.string(), z.array(z.enum(["noisy", "blocker"]))]))])),
  available: names,
  discovered: names,
  trace: z.array(traceEntry),
  result: result.nullable(),
  lastPreShuffle: names,
  toolIds: z
    .array(z.tuple([z.string(), z.string()]))
    .min(1)
    .optional(),
});

const lastOutcome = z.strictObject({
  entry: z.union([z.strictObject({ traceIndex: count }), z.strictObject({ value: traceEntry })]),
  feedback: z.string().nullable(),
  done: z.boolean(),
  listed: names.nullable(),
  execution: z
    .strictObject({
      success: z.boolean(),
      outputDatatype: z.string(),
      outputValue: pyValue,
      toolType: toolType,
      provenance: provenance,
      untrustedSource: untrustedSource,
      ambiguous: z.array(pyValue).optional(),
    })
    .nullable(),
});

/** PlanBench keeps no world in the engine (the runtime holds it all): `data.world` is always null. */
export const PLANBENCH_WORLD_SCHEMA = z.null();

/** `getState().family`: null before the first episode, else the query and the runtime session. */
export const PLANBENCH_FAMILY_STATE_SCHEMA = z
  .strictObject({ queryId: z.string(), session: z.strictObject({ episode, lastOutcome: lastOutcome.nullable() }) })
  .nullable();

type FamilyState = NonNullable<z.output<typeof PLANBENCH_FAMILY_STATE_SCHEMA>>;
type Entry = z.output<typeof traceEntry>;

function fail(field: string, reason: string): never {
  const f = `state.family.${field}`;
  throw new StateError(f, `${f}: ${reason}`);
}

const dup = (xs: readonly string[]): string | undefined => xs.find((x, i) => xs.indexOf(x) !== i);

/** A request's map with `encodeValue`'s `$esc` wrapper taken off (a request may use a reserved key). */
function unescaped(v: JsonValue | undefined): Record<string, JsonValue> | undefined {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === "$esc" ? (v["$esc"] as Record<string, JsonValue>) : v;
}

/**
 * Checks a (schema-checked) snapshot against the episode rebuilt from it: the query, the release's tools and
 * datatypes, the counters against the trace, the last outcome against the trace, the end against the engine's.
 */
export function checkPlanBenchState(s: CheckedToolEnvState, release: PlanBenchRelease, query: QueryRecord): void {
  const fam = s.family as FamilyState | null;
  if (fam === null) return;
  if (fam.queryId !== query.query_id) fail("queryId", `is ${fam.queryId}, the rebuilt episode is ${query.query_id}`);
  const ep = fam.session.episode;
  const at = "session.episode";
  const datatypes = new Set(release.datatypes.map((d) => d.name));
  const tool = (field: string, name: string) => release.toolByName.get(name) ?? fail(field, `unknown tool "${name}"`);
  const datatype = (field: string, name: string) => {
    if (!datatypes.has(name)) fail(field, `unknown datatype "${name}"`);
  };

  for (const key of ["available", "discovered", "lastPreShuffle"] as const) ep[key].forEach((n, i) => tool(`${at}.${key}.${i}`, n));
  const discovered = new Set(ep.discovered);
  if (dup(ep.discovered) !== undefined) fail(`${at}.discovered`, `lists "${dup(ep.discovered)}" twice`);
  ep.available.forEach((n, i) => discovered.has(n) || fail(`${at}.available.${i}`, `"${n}" was never discovered`));
  ep.currentDatatypes.forEach((d, i) => datatype(`${at}.currentDatatypes.${i}`, d));
  for (const d of query.input_datatypes) {
    if (!ep.currentDatatypes.includes(d)) fail(`${at}.currentDatatypes`, `misses the query's input "${d}"`);
  }
  for (const key of ["trusted", "untrusted", "untrustedSources"] as const) {
    ep[key].forEach(([d], i) => datatype(`${at}.${key}.${i}.0`, d));
  }
  ep.toolIds?.forEach(([name, id], i) => {
    tool(`${at}.toolIds.${i}.0`, name);
    // Ids are handed out in first-shown order (T1, T2, ...), so the list is exactly that sequence.
    if (id !== `T${i + 1}`) fail(`${at}.toolIds.${i}.1`, `must be T${i + 1}`);
  });
  if (ep.toolIds && dup(ep.toolIds.map(([n]) => n)) !== undefined) fail(`${at}.toolIds`, "names a tool twice");
  const ids = new Map(ep.toolIds ?? []);

  // One trace entry per runtime step, numbered from 1.
  if (ep.trace.length !== ep.counters.stepCount) {
    fail(`${at}.counters.stepCount`, `is ${ep.counters.stepCount} for ${ep.trace.length} trace entries`);
  }
  ep.trace.forEach((e, i) => checkEntry(`${at}.trace.${i}`, e, i + 1));
  function checkEntry(field: string, e: Entry, stepId: number | null): void {
    if (stepId !== null && e.step_id !== stepId) fail(`${field}.step_id`, `must be ${stepId}`);
    if (e.action === "retrieve_tools") {
      e.retrieval_result?.tools.forEach((t, j) => {
        const f = `${field}.retrieval_result.tools.${j}`;
        const r = tool(`${f}.name`, t.name);
        const same = r.description === t.description && r.output_datatype === t.output_datatype && r.tool_type === t.tool_type;
        if (!same || JSON.stringify(r.input_datatypes) !== JSON.stringify(t.input_datatypes)) {
          fail(f, `does not match the release's tool "${t.name}"`);
        }
        if (t.tool_id !== undefined && ids.get(t.name) !== t.tool_id) fail(`${f}.tool_id`, `is not the id of "${t.name}" in toolIds`);
      });
    }
    if (e.action === "call_tool" && e.tool_result) {
      const name = unescaped(e.request)?.["name"];
      if (typeof name !== "string") fail(`${field}.request.name`, "an executed call names its tool");
      const r = tool(`${field}.request.name`, name);
      if (r.output_datatype !== e.tool_result.output_datatype || r.tool_type !== e.tool_result.tool_type) {
        fail(`${field}.tool_result`, `does not match the release's tool "${name}"`);
      }
    }
  }

  const last = fam.session.lastOutcome;
  if ((last === null) !== (ep.trace.length === 0)) {
    fail("session.lastOutcome", last === null ? "missing after a step" : "present before any step");
  }
  if (last) {
    const ref = last.entry;
    // The last outcome's entry is the trace's last one (written as its index) unless it was a copy.
    if ("traceIndex" in ref && ref.traceIndex !== ep.trace.length - 1) {
      fail("session.lastOutcome.entry.traceIndex", `must be ${ep.trace.length - 1}`);
    }
    if ("value" in ref) checkEntry("session.lastOutcome.entry.value", ref.value, null);
    last.listed?.forEach((n, i) => tool(`session.lastOutcome.listed.${i}`, n));
    if (last.done !== (ep.result !== null)) {
      fail("session.lastOutcome.done", `must be ${ep.result !== null} (the episode's result says so)`);
    }
  }
  if (ep.result) {
    const r = ep.result;
    if (r.query_id !== query.query_id) fail(`${at}.result.query_id`, `must be ${query.query_id}`);
    if (r.steps !== ep.counters.stepCount) fail(`${at}.result.steps`, `must be ${ep.counters.stepCount} (no step follows the result)`);
    // A finished runtime refuses further steps: the engine must have ended the episode too.
    if (!s.done) fail(`${at}.result`, "the runtime's episode is over but state.done is false");
  }
}
