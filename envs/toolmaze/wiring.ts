/**
 * How ToolMaze plugs into the tool-episode engine: corpus tools as engine tool definitions (errors in the provider's
 * own body), fault profiles as engine fault specs, the synthetic response of implicit faults, the distractor pool
 * and the per-solution ordering counts of `info.hidden`. Pure functions of the corpus and the task (cached).
 */
import type { JsonObject, CorruptionFn, FaultSpec, ToolDefinition, ToolErrorPayload } from "../../src/family.js";
import { corruptValue, type CorruptionSpec, type ExplicitPayload, type FaultProfile } from "./faults.js";
import type { CorruptionClass } from "./task/strata.js";
import { Memo } from "./task/memo.js";
import { countOrderings } from "./task/orderings.js";
import type { Task } from "./tasks.js";
import { corpus, type ToolSpec } from "./world/corpus.js";
import { errorBody, type SimError, simulate, simulateValid, statelessOutputs } from "./world/simulate.js";
import type { StateHook } from "./world/catalog.js";
import type { WorldState } from "./world/state.js";
import type { Scalar } from "./world/types.js";

const KIND: Record<CorruptionSpec["cls"], string> = {
  physics: "physics_violation",
  temporal: "temporal_contradiction",
  leakage: "tool_leakage",
  scale: "unit_scale_slip",
};

/**
 * An error as the agent receives it: the provider's own body (`{error:{code,status,message}}`, problem+json,
 * `{errors:[…]}` or a SOAP-like `{fault:{…}}`, see `errorBody`), not a uniform wrapper, so reading errors means
 * reading four conventions. Code and message still reach the engine's `tool_error` event.
 */
function providerError(e: SimError): ToolErrorPayload {
  return { code: e.code, message: e.message, status: e.status, body: e.details as JsonObject };
}

const definitions = new Map<string, ToolDefinition<WorldState>>();
/** Engine tool definition of a corpus tool (cached: definitions are immutable). */
export function toolDefinition(spec: ToolSpec): ToolDefinition<WorldState> {
  let def = definitions.get(spec.name);
  if (!def) {
    def = {
      name: spec.name,
      description: spec.description,
      parameters: { ...spec.parameters },
      meta: { group: spec.group, category: spec.category, domain: spec.domain, mutates: spec.category === "action" },
      // The documented field types (the description states them too), for binding arguments by meaning; the operation
      // is the capability every provider of it documents with the same summary.
      semantics: { parameters: spec.paramTypes, outputs: spec.outputTypes, operation: spec.group },
      // The engine runs a tool only after checking its arguments against `parameters`, which refuses everything the
      // simulator's own check would (see validateArgs): that check is not run twice.
      run: (args, ctx) => {
        const r = simulateValid(spec, args, ctx.state);
        // A success is already a ToolOutcome (same fields): handed on, not re-wrapped.
        return r.ok ? r : { ok: false, error: providerError(r.error) };
      },
    };
    definitions.set(spec.name, def);
  }
  return def;
}

/** Solutions listed in `info.hidden.solutions` (shortest first); `solutionCount` gives the full number. */
export const HIDDEN_SOLUTIONS = 32;
const orderingCache = new Memo<Task, number[]>("orderingCounts");
/** Legal orderings of each listed solution (pure function of the task, cached on its identity). */
export function orderingCounts(task: Task): number[] {
  let counts = orderingCache.get(task);
  if (!counts) {
    counts = task.solutions.slice(0, HIDDEN_SOLUTIONS).map((s) => countOrderings(task.positions, s));
    orderingCache.set(task, counts);
  }
  return counts;
}

const poolCache = new Map<Task, string[]>();
let routeCapLists: { routes: unknown; caps: readonly (readonly string[])[] } | null = null;
/** Each route's capabilities, flattened once per corpus. */
function routeCaps(routes: readonly { readonly routes: readonly (readonly string[])[] }[]): readonly (readonly string[])[] {
  if (routeCapLists?.routes !== routes) routeCapLists = { routes, caps: routes.map((r) => r.routes.flat()) };
  return routeCapLists.caps;
}
const domainOutputTypes = new WeakMap<readonly ToolSpec[], readonly (readonly string[])[]>();
/** The output types of each tool of a `toolsIn` list, in its order (one lookup per list, not one per tool). */
function outputTypeLists(tools: readonly ToolSpec[]): readonly (readonly string[])[] {
  let l = domainOutputTypes.get(tools);
  if (!l) domainOutputTypes.set(tools, (l = tools.map((t) => Object.values(t.outputTypes))));
  return l;
}

function producesAny(types: readonly string[], consumed: ReadonlySet<string>): boolean {
  for (let i = 0; i < types.length; i++) if (consumed.has(types[i]!)) return true;
  return false;
}

/**
 * Tools that may serve as distractors for a task (a pure function of the task, cached per task object). Distractors
 * never offer a way around a fault: no member of a task group, no cap sharing a route with one. Without `decoys`
 * (v0) no distractor produces a type the task consumes either; with them (v1) some do: a decoy answers with the right
 * type but the wrong content (another capability's value), a type-valid detour the scorer rightly rejects, so an
 * agent must read what a tool does, not only what it returns.
 */
export function distractorPool(task: Task, decoys = false): string[] {
  const hit = poolCache.get(task);
  if (hit) return hit;
  const c = corpus();
  // Sampled tasks build their pool on every reset, so this loops over cached per-route and per-tool lists.
  const taskCaps = new Set<string>();
  for (const p of task.positions) taskCaps.add(p.cap);
  const groups = new Set(taskCaps);
  for (const caps of routeCaps(c.routes)) {
    let shares = false;
    for (let i = 0; i < caps.length && !shares; i++) shares = taskCaps.has(caps[i]!);
    if (shares) for (const id of caps) groups.add(id);
  }
  const consumed = new Set<string>();
  for (const p of task.positions) {
    for (const k in p.bindings) {
      const b = p.bindings[k]!;
      if (b.kind === "bound") consumed.add(b.type);
    }
  }
  const pool: string[] = [];
  const tools = c.toolsIn(task.domain);
  const outputs = outputTypeLists(tools);
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i]!;
    if (groups.has(t.group)) continue;
    if (!decoys && producesAny(outputs[i]!, consumed)) continue;
    pool.push(t.name);
  }
  // Only canonical tasks recur; sampled ones are unique per seed, so the cache stays bounded by the suite.
  if (task.id.startsWith("smp-")) return pool;
  poolCache.set(task, pool);
  return pool;
}

const decoyDefs = new Map<string, ToolDefinition<WorldState>>();
/**
 * v1's decoy twin of a provider: the same typed parameters and response fields, documented as a sample-data
 * endpoint, answering with other content (its responses hash under another group). Calling it is never perturbed and
 * never clean: a value it returns feeds no task step, so a plan through it fails. A reader of the documentation
 * avoids it; a planner that matches types alone takes it for an alternative.
 */
export function decoyDefinition(spec: ToolSpec): ToolDefinition<WorldState> {
  const name = `${spec.name}_sandbox`;
  let def = decoyDefs.get(name);
  if (!def) {
    const returns = / Returns: .*$/.exec(spec.description)?.[0] ?? "";
    const { state: _state, ...stateless } = spec;
    const description = `Sample-data endpoint for integration tests (not live).${returns}`;
    const twin: ToolSpec = { ...stateless, name, group: `${spec.group}~sandbox`, description };
    const meta = { group: twin.group, category: spec.category, domain: spec.domain, mutates: false, decoy: true };
    def = { ...toolDefinition(twin), meta };
    decoyDefs.set(name, def);
  }
  return def;
}

/** Does the tool produce a type the task consumes (a decoy, when it is not one of the task's own tools)? */
export function isDecoy(task: Task, tool: string): boolean {
  const consumed = task.positions.flatMap((p) => Object.values(p.bindings).flatMap((b) => (b.kind === "bound" ? [b.type] : [])));
  return Object.values(corpus().tool(tool).outputTypes).some((t) => consumed.includes(t));
}

// Weak on the payload: a caller's own payload objects (tests, edited profiles) must not pile up in the cache.
const providerErrors = new WeakMap<ExplicitPayload, Map<string, ToolErrorPayload>>();
/**
 * The error a tool answers with under an explicit payload, built once per (payload, tool): payloads are the constant
 * objects of the fault module's pools, so the cache holds at most pools × tools entries, and building the body per member was
 * a fifth of a canonical instance's first visit. Shared like the specs that hold it (the engine copies the response
 * per episode, see `perEpisodeResponse`).
 */
function providerErrorFor(tool: string, p: ExplicitPayload): ToolErrorPayload {
  let byTool = providerErrors.get(p);
  if (!byTool) providerErrors.set(p, (byTool = new Map()));
  let e = byTool.get(tool);
  if (!e) {
    const extra = p.retryAfter !== undefined ? { retry_after: p.retryAfter } : {};
    byTool.set(tool, (e = providerError(errorBody(corpus().tool(tool), p.status, p.message, extra))));
  }
  return e;
}

/**
 * Engine fault specs for a profile (group-bound, first member called becomes the victim). Frozen: the list is shared
 * by every episode of an instance, and the engine keeps per-list data of frozen lists once (see faultStage.ts).
 */
export function faultSpecs(profile: FaultProfile): readonly FaultSpec[] {
  const specs = profile.faults.map((f): FaultSpec => {
    const trigger = { group: f.group, bindFirstInGroup: true } as const;
    const persistence = { type: f.persistence } as const;
    // Literals, not `{ ...base, kind, effect }` (a property after a spread costs ~0.8 µs in this V8); same key order.
    if (f.explicit) {
      const p = f.explicit;
      // Keyed by tool names: a literal would get a new hidden class for each new set of names (most first visits).
      const errorByTool: Record<string, ToolErrorPayload> = Object.create(null);
      for (const m of f.members) errorByTool[m] = providerErrorFor(m, p);
      const first = errorByTool[f.members[0]!]!;
      // Specs are cached per canonical instance: each episode gets its own copy of the response body.
      const effect = { type: "error", error: first, errorByTool, perEpisodeResponse: true } as const;
      const kind = p.status === 504 ? "timeout" : `http_${p.status}`;
      return { id: f.id, visibility: f.visibility, persistence, trigger, kind, effect };
    }
    const k = f.corruption!;
    // A synthetic response in place of the tool (SEEDS §1: the profile names the victim and its synthetic response):
    // `replace`, not `corrupt`, so the real service never runs and an Action victim performs no side effect.
    const effect = { type: "replace", transform: "toolmaze_silent", params: { ...k } } as const;
    return { id: f.id, visibility: f.visibility, persistence, trigger, kind: KIND[k.cls], effect };
  });
  return Object.freeze(specs);
}

/**
 * The `toolmaze_silent` transform of implicit faults: the victim's would-be output, computed on a scratch copy of the
 * world (no side effect, e.g. no e-mail sent and no slot booked), with the consumed field corrupted. If the real call
 * would fail (its stateful checks), the stateless part of the output stands in, so the synthetic answer is always a
 * well-formed success.
 */
const CORRUPTION_CLASSES: readonly string[] = ["physics", "temporal", "leakage", "scale"] satisfies readonly CorruptionClass[];

/** The fault spec's `params` are the CorruptionSpec `implicitSpecs` put there; checked, not cast, on the way back. */
function isCorruptionSpec(p: JsonObject): p is JsonObject & CorruptionSpec {
  const typed = typeof p.field === "string" && typeof p.type === "string" && typeof p.salt === "number";
  return typed && CORRUPTION_CLASSES.includes(String(p.cls));
}

const WRITES: ReadonlySet<StateHook | undefined> = new Set<StateHook>(["calendar_write", "cart_add", "cart_checkout", "thermostat_write"]);

export const silentResponse: CorruptionFn<WorldState> = ({ tool, args, params, state }) => {
  if (!isCorruptionSpec(params)) throw new TypeError(`toolmaze_silent: params are not a corruption spec: ${JSON.stringify(params)}`);
  const spec = params;
  const t = corpus().tool(tool);
  // Only the writing hooks change the world; the others read it, so they need no scratch copy.
  const r = simulate(t, args, WRITES.has(t.state) ? structuredClone(state) : state);
  const out: Record<string, Scalar> = r.ok ? { ...r.output } : statelessOutputs(t, args);
  out[spec.field] = corruptValue(out[spec.field] as Scalar, spec, out);
  return out as JsonObject;
};
