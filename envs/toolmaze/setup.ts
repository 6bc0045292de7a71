/**
 * What ToolMaze's episode setup hands the engine besides the instance itself: the prompt, the task's typed parameters,
 * the corruption functions and the hidden ground truth (info.hidden), each built once per task where it can be.
 */
import type { CorruptionFn, EpisodeSetup, FaultSpec, JsonObject, JsonValue, TaskParameter, ToolDefinition } from "../../src/family.js";
import type { FaultProfile } from "./faults.js";
import { requestParameters } from "./requests.js";
import type { Perturbation, Task } from "./tasks.js";
import { Memo } from "./task/memo.js";
import { HIDDEN_SOLUTIONS, orderingCounts, silentResponse } from "./wiring.js";
import { corpus } from "./world/corpus.js";
import type { WorldState } from "./world/state.js";
import { WORLD_NOW } from "./world/types.js";

export const HEADER = `Current date and time: ${WORLD_NOW} (UTC).\n`;
export const HINT =
  "\n\nNote: tools may fail. Errors can be explicit (HTTP errors, timeouts, rate limits) or silent (plausible-looking " +
  "but impossible values, e.g. temperatures below absolute zero, negative counts, timestamps in the past, debug text). " +
  "Recovery strategies: retry a call that failed transiently; switch to an equivalent tool or another way of getting " +
  "the same information when a tool keeps failing; if no alternative exists, stop (abort) instead of acting on bad data.";

/** The prompt of a task: the world's clock, the task text and, with `hint`, the failure-aware note. */
export function taskPrompt(task: Task, hint: boolean): string {
  return HEADER + task.text + (hint ? HINT : "");
}

const parameterCache = new WeakMap<Task, TaskParameter[]>();
/**
 * The literals the task text quotes, as typed data (each position's literal bindings, typed as its tools document
 * the parameter), each request as data (requests.ts), plus the answer the scorer accepts (it judges the calls made,
 * not the answer's wording).
 */
export function taskParameters(task: Task): TaskParameter[] {
  let out = parameterCache.get(task);
  if (out) return out;
  out = [];
  const seen = new Set<string>();
  for (const p of task.positions) {
    const types = corpus().tool(p.members[0]!).paramTypes;
    for (const [name, b] of Object.entries(p.bindings)) {
      if (b.kind !== "literal") continue;
      const key = `${types[name]}\u0000${String(b.value)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ name, type: types[name], value: b.value });
    }
  }
  out.push(...requestParameters(task));
  out.push({ name: "content", target: "answer", value: "All requested steps are complete." });
  if (!task.id.startsWith("smp-")) parameterCache.set(task, out);
  return out;
}

/**
 * Freezes a JSON value and everything in it, in place (an object already frozen is taken as frozen throughout): the
 * hidden truth is handed out as is (a copy per reset was a third of a canonical reset), so an edit throws rather than
 * reaching the cache. For the task-level parts, built once per task; `hiddenTruth` freezes its own nodes as built.
 */
function deepFreezeJson<T extends JsonValue>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreezeJson(value[i]!);
  else for (const k in value) deepFreezeJson((value as JsonObject)[k]!);
  return value;
}

/** The parts of the hidden truth that depend on the task alone, deep-frozen. */
interface TaskTruth {
  readonly sStar: JsonValue;
  readonly solutions: JsonValue;
  readonly orderings: JsonValue;
  readonly slots: JsonValue;
  readonly positions: JsonValue;
}
const taskTruths = new Memo<Task, TaskTruth>("taskTruth");
/**
 * Built once per task and shared by the hidden truth of each of its instances (the five perturbations of a canonical
 * base task): the hidden truth is frozen, so sharing its parts is safe, and building them was most of a first visit.
 */
function taskTruth(t: Task): TaskTruth {
  let tt = taskTruths.get(t);
  if (tt) return tt;
  tt = {
    sStar: deepFreezeJson([...t.sStar]),
    solutions: deepFreezeJson(t.solutions.slice(0, HIDDEN_SOLUTIONS).map((s) => [...s])),
    orderings: deepFreezeJson(orderingCounts(t)),
    slots: deepFreezeJson(t.slots.map((s) => ({ slot: s.slot, goal: s.goal, pattern: s.pattern }))),
    positions: deepFreezeJson(
      t.positions.map((p): JsonObject => {
        // Built per sampled reset: a loop rather than Object.fromEntries over mapped entries (same keys, same order).
        const bindings: JsonObject = {};
        for (const k in p.bindings) {
          const b = p.bindings[k]!;
          bindings[k] = b.kind === "literal" ? { literal: b.value } : { type: b.type, from: [...b.from] };
        }
        return {
          index: p.index,
          group: p.cap,
          category: p.category,
          slot: p.slot,
          members: [...p.members],
          route: p.route ? `${p.route.id}#${p.route.branch}` : null,
          bindings,
        };
      }),
    ),
  };
  taskTruths.set(t, tt);
  return tt;
}
/**
 * One episode's setup. A class, not an object literal: the runtime keeps it for the whole episode, and V8 may
 * allocate a literal's objects straight into the old generation, where a dead setup kept its episode's young world
 * state alive until the next full GC (see src/engine/plainRecords.ts).
 */
export class ToolMazeSetup implements EpisodeSetup<WorldState> {
  constructor(
    readonly taskId: string,
    readonly prompt: string,
    readonly tools: readonly ToolDefinition<WorldState>[],
    readonly visible: readonly string[],
    readonly world: WorldState,
    readonly faults: readonly FaultSpec[],
    readonly corruptions: Readonly<Record<string, CorruptionFn<WorldState>>>,
    readonly parameters: readonly TaskParameter[],
    readonly hidden: JsonObject | undefined,
  ) {}
}

export const CORRUPTIONS: Readonly<Record<string, CorruptionFn<WorldState>>> = Object.freeze({ toolmaze_silent: silentResponse });

/**
 * The hidden ground truth of an instance (index null: a sampled task), deep-frozen as built: callers hand it out as is
 * (`info.hidden`; a canonical instance's is shared by its episodes). Its task-level parts are the task's shared frozen
 * ones; its own nodes are frozen one by one here, as this function knows their shape (a `deepFreezeJson` walk over
 * the result measured +0.55 µs per first visit, 1.35 → 1.92 µs p50, for the same frozen object).
 */
export function hiddenTruth(
  t: Task,
  profile: FaultProfile,
  perturbation: Perturbation,
  index: number | null,
  unsolvable: boolean,
): JsonObject {
  const tt = taskTruth(t);
  return frozen<JsonObject>({
    instanceIndex: index,
    complexity: t.complexity,
    perturbation,
    domain: t.domain,
    unsolvable: unsolvable,
    sStar: tt.sStar,
    solutions: tt.solutions,
    // Legal call orders of each listed solution (the list gives one canonical order per tool set).
    orderings: tt.orderings,
    slots: tt.slots,
    solutionCount: t.solutions.length,
    positions: tt.positions,
    faults: frozen(
      profile.faults.map((f) =>
        frozen<JsonObject>({
          id: f.id,
          slot: f.slot,
          group: f.group,
          position: f.position,
          members: frozen([...f.members]),
          visibility: f.visibility,
          persistence: f.persistence,
          payload: frozen((f.explicit ? { status: f.explicit.status, message: f.explicit.message } : { ...f.corruption! }) as JsonObject),
        }),
      ),
    ),
  });
}

/** Freezes `o` in place (shallow) and returns it with its own type. */
function frozen<T extends object>(o: T): T {
  Object.freeze(o);
  return o;
}
