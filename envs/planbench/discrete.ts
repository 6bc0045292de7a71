/**
 * What PlanBench-XL supplies to the engine's discrete action mode (docs/DISCRETE.md): the query's observable values
 * as task parameters, each tool's documented datatypes as semantics, and the retrieval requests an agent can make.
 *
 * Everything here is observable: the query record's input datatypes and values and its asked-for datatype (which the
 * question states), the tool library's documented input / output datatypes of the tools a retrieval listed, the
 * release's datatype vocabulary (the names the retriever and the tool documentation speak), and the responses the
 * agent received. Never the task's solution path, the blocked tools or the database.
 */
import type { Action, JsonValue, ObservableEpisode, SeenAction, TaskParameter, ToolSemantics } from "../../src/family.js";
import { admitsUnreliability, looksSuspicious } from "./baselines.js";
import type { PlanBenchRelease, QueryRecord, ToolRecord } from "./releaseFormat.js";

/** The response field of a call reply that holds the tool's output (see `replyOf` in calls.ts). */
export const OUTPUT_FIELD = "toolResult.output";

/** A tool's documented datatypes: each surface argument's input datatype and the output's datatype. */
export function toolSemantics(t: ToolRecord): ToolSemantics {
  const documented = { parameters: { ...t.surface_argument_to_datatype }, outputs: { [OUTPUT_FIELD]: t.output_datatype } };
  // The description is what the agent reads; the observable planner skips the tools whose description says this.
  return admitsUnreliability(t.description) ? { ...documented, caveat: true } : documented;
}

/**
 * The observable plausibility check of a response value (`ToolEnvConfig.suspiciousValue`): a tool's typed output that
 * no real record would hold (no letter or digit, a negative amount, an impossible date, an error word, symbol runs),
 * the observable planner's own check. Untyped reply fields (the feedback text) are the env's, not a tool's.
 */
export function suspiciousOutput(_field: string, value: JsonValue, type: string | null): boolean {
  return type !== null && looksSuspicious(value);
}

/**
 * The query's observable values: each input datatype with its value, and the answer's datatype.
 *
 * Why code spans: the official records carry no `input_values`; the release marks each input literal of the query as
 * a code span, in the order the record lists the input datatypes (checked: 207 of the 208 official queries with as
 * many spans as inputs, and every built-in query, pair that way). A record with `input_values` uses them. When fewer
 * spans than inputs are marked (19 official queries quote a price in plain prose), each span is offered for every
 * input datatype, since nothing observable says which input it is; the unmarked value is not a parameter.
 */
export function queryParameters(q: QueryRecord): TaskParameter[] {
  const out: TaskParameter[] = [];
  if (q.input_values) {
    for (const dt of q.input_datatypes) {
      const v = q.input_values[dt];
      if (v !== undefined) out.push({ name: dt, type: dt, value: typeof v === "string" ? v : String(v) });
    }
  } else {
    const spans = Array.from(q.query_text.matchAll(/`([^`]+)`/g), (m) => m[1]!);
    if (spans.length === q.input_datatypes.length) q.input_datatypes.forEach((dt, i) => out.push({ name: dt, type: dt, value: spans[i]! }));
    else for (const dt of q.input_datatypes) for (const s of spans) out.push({ name: dt, type: dt, value: s });
  }
  out.push({ name: "content", type: q.target_datatype, target: "answer" });
  return out;
}

/** Datatypes the agent holds, oldest first: the query's inputs, then the outputs of its successful calls. */
function heldDatatypes(ep: ObservableEpisode): string[] {
  const held: string[] = [];
  const add = (d: string | undefined): void => {
    if (d !== undefined && !held.includes(d)) held.push(d);
  };
  for (const p of ep.parameters) if (p.target === undefined) add(p.type);
  for (const c of ep.calls) if (c.ok) add(ep.semanticsOf(c.tool)?.outputs?.[OUTPUT_FIELD]);
  return held;
}

/**
 * The retrieval requests of a step, in a fixed order, at most `cap`:
 * 1. backward: the asked-for datatype, then the inputs the visible tools document but the agent does not hold — each
 *    by output, then by output and one held input (most recent first);
 * 2. forward, every other datatype of the vocabulary as the output of a tool taking: each of the newest held
 *    datatypes (the query's inputs before any call, else the last call's output); the query's two inputs together,
 *    in either order;
 * 3. every other datatype by output alone (a tool of three or more inputs is found only so);
 * 4. the newest held datatype with each older one (either order; the query's inputs first, then the most recent),
 *    each older one alone, then every other pair.
 */
export function retrieveCandidates(vocabulary: readonly string[]): (ep: ObservableEpisode, cap: number) => Action[] {
  return (ep, cap) => {
    if (ep.done || cap <= 0) return [];
    const held = heldDatatypes(ep);
    const inputs = ep.parameters.filter((p) => p.target === undefined && p.type !== undefined).map((p) => p.type!);
    const given = [...new Set(inputs)];
    const recent = [...held].reverse();
    const newest = held.length > given.length ? [recent[0]!] : given;
    const target = ep.parameters.find((p) => p.target === "answer")?.type;
    const focus: string[] = [];
    const want = (d: string | undefined): void => {
      if (d !== undefined && !held.includes(d) && !focus.includes(d)) focus.push(d);
    };
    want(target);
    for (const t of ep.tools) for (const d of Object.values(t.semantics?.parameters ?? {})) want(d);
    const rest = vocabulary.filter((d) => !held.includes(d) && !focus.includes(d));
    const out: Action[] = [];
    const seen = new Set<string>();
    const push = (output: string, inputs: readonly string[] | null): boolean => {
      const key = `${output}\u0000${inputs?.join("\u0000") ?? ""}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(
          inputs === null
            ? { type: "retrieve", meta_tool: "by_output_info", output_information: output }
            : { type: "retrieve", meta_tool: "by_io_info", output_information: output, input_information: [...inputs] },
        );
      }
      return out.length < cap;
    };
    const run = (): void => {
      for (const d of focus) {
        if (!push(d, null)) return;
        for (const h of recent) if (!push(d, [h])) return;
      }
      for (const h of newest) for (const d of rest) if (!push(d, [h])) return;
      if (given.length === 2) {
        for (const pair of [given, [...given].reverse()]) for (const d of [...focus, ...rest]) if (!push(d, pair)) return;
      }
      for (const d of rest) if (!push(d, null)) return;
      // A two-input tool usually joins the newest datatype with an older one, most often one the query gave.
      const older = recent.slice(1);
      for (const h of [...older.filter((d) => given.includes(d)), ...older.filter((d) => !given.includes(d))]) {
        for (const pair of [
          [recent[0]!, h],
          [h, recent[0]!],
        ])
          for (const d of [...focus, ...rest]) if (!push(d, pair)) return;
      }
      for (const h of recent) for (const d of rest) if (!push(d, [h])) return;
      for (const a of recent) {
        for (const b of recent) {
          if (a === b) continue;
          for (const d of [...focus, ...rest]) if (!push(d, [a, b])) return;
        }
      }
    };
    run();
    return out;
  };
}

/** The release's datatype vocabulary, in file order. */
export function datatypeVocabulary(release: PlanBenchRelease): string[] {
  return release.datatypes.map((d) => d.name);
}

/** The family features of a retrieval, in order (docs/DISCRETE.md, PlanBench-XL's table). */
export const RETRIEVAL_FEATURES = [
  "asks_for_answer",
  "asks_for_needed_input",
  "asks_for_unlisted_need",
  "output_already_held",
  "output_tool_listed",
  "uses_newest_held",
  "times_issued",
  "issued_listed_nothing",
] as const;

interface Request {
  output: string;
  inputs: readonly string[];
}

function requestOf(a: Action): Request | null {
  const r = a as { type?: unknown; output_information?: unknown; input_information?: unknown };
  if (r.type !== "retrieve" || typeof r.output_information !== "string") return null;
  const inputs = Array.isArray(r.input_information) ? r.input_information.filter((x): x is string => typeof x === "string") : [];
  return { output: r.output_information, inputs };
}

const requestKey = (r: Request): string => `${r.output}\u0000${r.inputs.join("\u0000")}`;

/** Per request key: how often it was issued and whether any issue listed a tool. */
const issuedMemo = new WeakMap<readonly SeenAction[], Map<string, { times: number; listed: boolean }>>();
function issued(ep: ObservableEpisode): Map<string, { times: number; listed: boolean }> {
  let m = issuedMemo.get(ep.actions);
  if (!m) {
    m = new Map();
    for (const a of ep.actions) {
      const r = requestOf(a.action);
      if (!r) continue;
      const resp = a.response as { listed?: unknown } | null;
      const listed = resp !== null && typeof resp === "object" && Array.isArray(resp.listed) && resp.listed.length > 0;
      const e = m.get(requestKey(r)) ?? { times: 0, listed: false };
      m.set(requestKey(r), { times: e.times + 1, listed: e.listed || listed });
    }
    issuedMemo.set(ep.actions, m);
  }
  return m;
}

/**
 * Datatypes still needed, backward from the asked-for one over the listed tools: the target while not held, then
 * every input not held of a listed tool that outputs a needed datatype. The target itself is not in the set.
 */
function neededInputs(ep: ObservableEpisode, held: readonly string[], target: string | undefined): Set<string> {
  const needed = new Set<string>();
  if (target === undefined || held.includes(target)) return needed;
  const frontier = [target];
  const seen = new Set(frontier);
  while (frontier.length > 0) {
    const want = frontier.pop()!;
    for (const t of ep.tools) {
      if (t.semantics?.outputs?.[OUTPUT_FIELD] !== want) continue;
      for (const d of Object.values(t.semantics.parameters ?? {})) {
        if (held.includes(d) || seen.has(d)) continue;
        seen.add(d);
        needed.add(d);
        frontier.push(d);
      }
    }
  }
  return needed;
}

/**
 * The family features of a retrieval candidate (`ActionKind.features`): what makes one request differ from another
 * for a per-slot scorer. Observable only: the asked-for datatype, the datatypes held, the listed tools' documented
 * datatypes and the agent's earlier retrievals and what they listed.
 */
export function retrievalFeatures(ep: ObservableEpisode, action: Action): number[] {
  const r = requestOf(action);
  if (!r) return [];
  const held = heldDatatypes(ep);
  const target = ep.parameters.find((p) => p.target === "answer")?.type;
  const given = new Set(ep.parameters.filter((p) => p.target === undefined && p.type !== undefined).map((p) => p.type!));
  const newest = held.length > given.size ? [held[held.length - 1]!] : [...given];
  const listed = ep.tools.some((t) => t.semantics?.outputs?.[OUTPUT_FIELD] === r.output);
  const before = issued(ep).get(requestKey(r));
  const answer = r.output === target && !held.includes(r.output);
  const needed = neededInputs(ep, held, target).has(r.output);
  return [
    answer ? 1 : 0,
    needed ? 1 : 0,
    // The backward chain's frontier: a datatype still needed that no listed tool outputs yet.
    (answer || needed) && !listed ? 1 : 0,
    held.includes(r.output) ? 1 : 0,
    listed ? 1 : 0,
    r.inputs.some((d) => newest.includes(d)) ? 1 : 0,
    before ? Math.min(1, before.times / 2) : 0,
    before && !before.listed ? 1 : 0,
  ];
}
