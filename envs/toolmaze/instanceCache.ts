/**
 * What episodes of one canonical instance share, computed once: its fault profile (a pure function of the task and
 * the perturbation, drawn from the stream `CANONICAL_SEED/<task id>/<P>`), the engine fault specs, the initial
 * potential, the hidden ground truth, and the tools the agent sees (distractors and order, a pure function of the
 * base task and the `distractors` option). Random play resets every ~10 steps, so rebuilding these per reset was a
 * large share of an env step. Everything cached is treated as immutable; what an episode hands out to callers
 * (the hidden ground truth) is deep-frozen and shared, so a caller cannot corrupt the cache by editing `info.hidden`.
 * The caches are bounded by the canonical suite (2,000 instances); sampled tasks are never cached.
 */
import { type JsonObject, Rng, type FaultSpec, type TaskParameter, type ToolDefinition } from "../../src/family.js";
import { buildProfile, type FaultProfile, type SlotFault } from "./faults.js";
import { faultIndex, initialPotential, isUnsolvable } from "./scorer.js";
import { Memo } from "./task/memo.js";
import { CANONICAL_INSTANCES, canonicalInstance, PERTURBATIONS, type Perturbation, stratifiedInstanceIndex, type Task } from "./tasks.js";
import { type ToolMazeVersion, versionProfile } from "./version.js";
import { decoyDefinition, distractorPool, faultSpecs, isDecoy, toolDefinition } from "./wiring.js";
import { corpus } from "./world/corpus.js";
import type { WorldState } from "./world/state.js";

/** A canonical task's profiles, indexed by perturbation (`PERTURBATIONS` order); a task belongs to one version. */
const profiles = new Memo<Task, (FaultProfile | undefined)[]>("canonicalProfiles");
/** NP profiles have no fault and draw nothing: their stream is never built (its path alone is a string per visit). */
const NO_DRAWS = new Rng("toolmaze/np-profile-never-draws");
/** The fault profile of a canonical instance (the same object for every episode of it). */
export function canonicalProfile(task: Task, perturbation: Perturbation, version: ToolMazeVersion = "v0"): FaultProfile {
  let byMode = profiles.get(task);
  if (!byMode) profiles.set(task, (byMode = [undefined, undefined, undefined, undefined, undefined]));
  const mode = PERTURBATIONS.indexOf(perturbation);
  let profile = byMode[mode];
  if (!profile) {
    const vp = versionProfile(version);
    const rng = perturbation === "NP" ? NO_DRAWS : new Rng(`${vp.canonicalSeed}/${task.id}/${perturbation}`);
    profile = byMode[mode] = buildProfile(task, perturbation, rng, vp);
  }
  return profile;
}

/** Per-profile values that only depend on (task, profile). */
export interface ProfileFacts {
  readonly unsolvable: boolean;
  readonly faultById: ReadonlyMap<string, SlotFault>;
  /** Φ(s_0): minus the optimal number of calls from the empty state. */
  readonly phi0: number;
  /** Engine fault specs, shared by the profile's episodes (explicit faults copy their responses per episode). */
  readonly faults: readonly FaultSpec[];
  /** Whether some fault corrupts a response (else no call ever has a corrupted field: see `CallAnalysis`). */
  readonly corruptible: boolean;
}
/** A fact of the profile, not a WeakMap entry per profile (every episode's call tracking reads it at reset). */
function corrupts(profile: FaultProfile): boolean {
  for (const f of profile.faults) if (f.corruption !== undefined) return true;
  return false;
}
// Sampled profiles too (one per sampled reset): a Memo, not a WeakMap (see task/memo.ts).
const facts = new Memo<FaultProfile, ProfileFacts>("profileFacts");
/** Unsolvable flag, fault lookup, initial potential and engine fault specs of a profile (cached on its identity). */
export function profileFacts(task: Task, profile: FaultProfile): ProfileFacts {
  let f = facts.get(profile);
  if (!f) {
    f = {
      unsolvable: isUnsolvable(task, profile),
      faultById: faultIndex(profile),
      phi0: initialPotential(task, profile),
      faults: faultSpecs(profile),
      corruptible: corrupts(profile),
    };
    facts.set(profile, f);
  }
  return f;
}

/** The tools an episode shows, in order, and their engine definitions. */
export interface TaskView {
  readonly visible: readonly string[];
  readonly tools: readonly ToolDefinition<WorldState>[];
}

/** Own tools plus `distractors` distractors, shuffled, drawn from `viewRng` (see ToolMazeEnv.createEpisode). */
export function buildView(task: Task, viewRng: Rng, distractors: number, version: ToolMazeVersion = "v0"): TaskView {
  const c = corpus();
  const own = task.positions.flatMap((p) => p.members);
  const decoys = versionProfile(version).decoys;
  const shuffled = viewRng.derive("distractors").shuffle(distractorPool(task, decoys));
  // v1 shows at least one decoy when the domain has one (a type-valid detour is the point of showing distractors).
  const decoy = decoys ? shuffled.find((t) => isDecoy(task, t)) : undefined;
  const picked = (decoy === undefined ? shuffled : [decoy, ...shuffled.filter((t) => t !== decoy)]).slice(0, distractors);
  if (!decoys) {
    const visible = viewRng.derive("visible").shuffle([...own, ...picked]);
    return { visible, tools: visible.map((n) => toolDefinition(c.tool(n))) };
  }
  // v1: about half of the Source/Processor steps of s* get a decoy twin (drawn from the base task, not the fault, so
  // a twin says nothing about where the fault lands).
  const r = viewRng.derive("decoys");
  const twins = task.positions
    .filter((p) => p.category !== "action")
    .flatMap((p) => p.members.filter((m) => task.sStar.includes(m)))
    .filter(() => r.bool(0.5))
    .map((m) => decoyDefinition(c.tool(m)));
  const defs = new Map([...own, ...picked].map((n) => [n, toolDefinition(c.tool(n))]));
  for (const d of twins) defs.set(d.name, d);
  const visible = viewRng.derive("visible").shuffle([...defs.keys()]);
  return { visible, tools: visible.map((n) => defs.get(n)!) };
}

const views = new Map<string, TaskView>();
/** The view of a canonical base task (its stream is `Rng(base)`), cached per (base, distractors). */
export function canonicalView(task: Task, base: number, distractors: number, version: ToolMazeVersion = "v0"): TaskView {
  const key = `${version}/${base}/${distractors}`;
  let view = views.get(key);
  if (!view) {
    // Frozen: every episode of the base task shares the lists, and the engine caches its tool index on frozen ones.
    const built = buildView(task, new Rng(base), distractors, version);
    view = { visible: Object.freeze(built.visible), tools: Object.freeze(built.tools) };
    views.set(key, view);
  }
  return view;
}

// On the profile (a Memo): its facts have given it a memo slot already, where a WeakMap entry is a hash insert.
const hiddenTemplates = new Memo<FaultProfile, JsonObject>("canonicalHidden");
/**
 * The hidden ground truth of a canonical instance: built once (deep-frozen by `hiddenTruth`), then the same read-only
 * object for every episode of the instance (it reaches callers through `info.hidden`; `structuredClone` it to edit a
 * copy).
 */
export function canonicalHidden(profile: FaultProfile, build: () => JsonObject): JsonObject {
  let h = hiddenTemplates.get(profile);
  if (!h) {
    h = build();
    hiddenTemplates.set(profile, h);
  }
  return h;
}

const candidateLists = new Map<string, readonly number[]>();
/**
 * Canonical instance indices matching the option filters, in the stratified order (levels and perturbations
 * interleaved, see `stratifiedInstanceIndex`), so any run of consecutive seeds is stratified. A pure function of
 * the filters, shared by every env with the same ones (a vector env makes hundreds).
 */
export function canonicalCandidates(
  o: { complexity?: string; perturbation?: string; domain?: string },
  version: ToolMazeVersion = "v0",
): readonly number[] {
  const key = `${version}/${o.complexity ?? ""}/${o.perturbation ?? ""}/${o.domain ?? ""}`;
  let list = candidateLists.get(key);
  if (!list) {
    const found: number[] = [];
    for (let rank = 0; rank < CANONICAL_INSTANCES; rank++) {
      const i = stratifiedInstanceIndex(rank);
      const inst = canonicalInstance(i, version);
      if (o.complexity && inst.task.complexity !== o.complexity) continue;
      if (o.perturbation && inst.perturbation !== o.perturbation) continue;
      if (o.domain && inst.task.domain !== o.domain) continue;
      found.push(i);
    }
    list = found;
    candidateLists.set(key, list);
  }
  return list;
}

/**
 * What every episode of one canonical instance hands the engine, for one (version, distractors, hint): its task,
 * profile and facts, tool view, task id, prompt and parameters, plus its hidden truth once asked for. A reset then
 * reads one array slot instead of a lookup per part (a profile WeakMap, a view key string, a parameter WeakMap, the
 * hidden-truth WeakMap) and rebuilding the id and prompt strings: random play resets every ~10 env-steps.
 */
export interface CanonicalEpisode {
  readonly index: number;
  readonly task: Task;
  readonly perturbation: Perturbation;
  readonly profile: FaultProfile;
  readonly facts: ProfileFacts;
  readonly view: TaskView;
  readonly taskId: string;
  readonly prompt: string;
  /** Shared, like the rest: the engine only reads an episode's parameters. */
  readonly parameters: readonly TaskParameter[];
  /** The deep-frozen hidden truth (`canonicalHidden`), filled on the first reset that reports it. */
  hidden: JsonObject | null;
}

const episodeTables = new Map<string, (CanonicalEpisode | undefined)[]>();
/**
 * The canonical instances' entries for one (version, distractors, hint), indexed by instance (filled on first visit
 * by the env, which owns the prompt and parameters). Bounded like the other caches: 2,000 entries per table.
 */
export function canonicalEpisodeTable(version: ToolMazeVersion, distractors: number, hint: boolean): (CanonicalEpisode | undefined)[] {
  const key = `${version}/${distractors}/${hint}`;
  let table = episodeTables.get(key);
  if (!table) episodeTables.set(key, (table = new Array<CanonicalEpisode | undefined>(CANONICAL_INSTANCES).fill(undefined)));
  return table;
}
