/**
 * ToolMaze task suites. The canonical suite is 400 base tasks (100 per complexity level, domains rotated so
 * they stay balanced) × {NP, P1..P4} = 2,000 instances, generated from a fixed seed and addressable by
 * index; sampled tasks come from any seed. Tool-set diversity is enforced while generating (a base task whose
 * tool set is too similar to an earlier one of its level is re-drawn), and measured by `levelJaccard`.
 */
import { Rng } from "../../src/family.js";
import { DOMAINS, type Domain } from "./world/catalog.js";
import { COMPLEXITIES, type Complexity, type RngLike, type Task, taskTools } from "./task/model.js";
import { type GenOptions, generateTask, TaskGenerationError, V0_GEN } from "./task/generate.js";
import { type Stratum, type ToolMazeVersion, type VersionProfile, versionProfile } from "./version.js";

export { COMPLEXITIES, type Complexity, type Task } from "./task/model.js";
export { type GenOptions, generateTask, TaskGenerationError } from "./task/generate.js";

export const PERTURBATIONS = ["NP", "P1", "P2", "P3", "P4"] as const;
export type Perturbation = (typeof PERTURBATIONS)[number];

export const TASKS_PER_LEVEL = 100;
export const CANONICAL_BASE_TASKS = TASKS_PER_LEVEL * COMPLEXITIES.length;
export const CANONICAL_INSTANCES = CANONICAL_BASE_TASKS * PERTURBATIONS.length;
/** Seed of ToolMaze-v0's canonical suite (v1's is in its `VersionProfile`). */
export const CANONICAL_SEED = "toolmaze-canonical-v1";

/** The generator options of a version; `strataIndex` picks the strata of the base task (v1). */
export function genOptions(vp: VersionProfile, strataIndex: number): GenOptions {
  if (vp.version === "v0") return V0_GEN;
  const { chain, suffix, minAlternativeRoute, crossDomain, strata } = vp;
  // A C4 task's slots take consecutive strata, so each slot position also cycles through all of them.
  const mine = strata ? [0, 1, 2].map((s) => strata[(strataIndex + s) % strata.length]!) : undefined;
  return { chain, suffix, minAlternativeRoute, crossDomain, ...(mine ? { strata: mine } : {}) };
}

/** Max Jaccard similarity allowed between a new base task and any earlier one of the same level. */
const PAIR_JACCARD_CAP = 0.5;

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}

/**
 * Capability structure of a task: its capabilities and which capabilities feed each (providers ignored), as one
 * string, so the number of distinct structures in a suite measures its structural variety.
 */
export function capabilityStructure(t: Task): string {
  return t.positions
    .map(
      (p) =>
        `${p.cap}<${Object.values(p.bindings)
          .flatMap((b) => (b.kind === "bound" ? [b.from.map((f) => t.positions[f]!.cap).join("|")] : []))
          .join(",")}`,
    )
    .sort()
    .join(";");
}

/** Mean pairwise Jaccard similarity of task tool sets. */
export function meanPairwiseJaccard(tasks: readonly Task[]): number {
  const sets = tasks.map((t) => new Set(taskTools(t)));
  let sum = 0;
  let n = 0;
  for (let i = 0; i < sets.length; i++) {
    for (let j = i + 1; j < sets.length; j++) {
      sum += jaccard(sets[i]!, sets[j]!);
      n++;
    }
  }
  return n === 0 ? 0 : sum / n;
}

/** Identity of a task's tool set (order-free), for rejecting exact duplicates. */
function toolSetKey(t: Task): string {
  return [...new Set(taskTools(t))].sort().join(",");
}

/** Draws of one base task before the generator gives up on a diverse, unique one (a corpus-capacity error). */
const MAX_DRAWS = 200;
/** v1: draws under a task's stratum that must all keep the similarity cap, then draws per stratum as in v0. */
const STRICT_DRAWS = 12;
/** The cap of those strict draws (v1 has fewer C3 routes than v0, whose alternatives may be a single call). */
const STRICT_JACCARD_CAP = 0.35;
const STRATUM_DRAWS = 60;
/** Draws after which the pairwise-Jaccard cap is relaxed (duplicates stay forbidden). */
const JACCARD_DRAWS = 24;

/**
 * Generate `count` diverse tasks of one level, rotating domains. A draw is rejected when its tool set equals an
 * earlier one of the level, when its text equals any earlier text in `texts` (shared across levels by the
 * canonical suite), or, for the first draws, when it is too similar (Jaccard > 0.5) to an earlier task.
 */
export function generateLevel(
  rng: RngLike,
  level: Complexity,
  count: number,
  idPrefix: string,
  texts: Set<string> = new Set(),
  vp: VersionProfile = versionProfile("v0"),
): Task[] {
  if (vp.strata) return generateStratifiedLevel(rng, level, count, idPrefix, texts, vp, vp.strata);
  const out: Task[] = [];
  const sets: Set<string>[] = [];
  const keys = new Set<string>();
  for (let i = 0; i < count; i++) {
    const domain: Domain = DOMAINS[i % DOMAINS.length]!;
    let chosen: Task | undefined;
    for (let attempt = 0; attempt < MAX_DRAWS && !chosen; attempt++) {
      const t = generateTask(rng.derive(`${level}/${i}/${attempt}`), level, domain, `${idPrefix}${level}-${String(i).padStart(3, "0")}`);
      const key = toolSetKey(t);
      if (keys.has(key) || texts.has(t.text)) continue;
      const s = new Set(taskTools(t));
      if (attempt < JACCARD_DRAWS && sets.some((o) => jaccard(o, s) > PAIR_JACCARD_CAP)) continue;
      chosen = t;
      sets.push(s);
      keys.add(key);
      texts.add(t.text);
    }
    if (!chosen) throw new TaskGenerationError(`no unique ${level} task in ${domain} after ${MAX_DRAWS} draws (task ${i})`);
    out.push(chosen);
  }
  return out;
}

/**
 * v1: like `generateLevel`, but every level spends the same quota of each stratum (the strata cycled over `count`
 * tasks), so the victim mix is identical in every C × P cell. Not every domain can meet every stratum at every level
 * (Financial's only route feeds straight into an Action, so its C3 has no Processor victim), so strata are assigned
 * before drawing: first which strata each domain can meet (a few probe draws), then, domains with the fewest options
 * first, each task takes the feasible stratum with the most quota left (ties: the cycle's own stratum i mod n).
 * A task then draws under its stratum: first keeping the similarity cap on every draw, then only on the first draws
 * (as v0); only if that fails too does it fall back to another feasible stratum.
 */
function generateStratifiedLevel(
  rng: RngLike,
  level: Complexity,
  count: number,
  idPrefix: string,
  texts: Set<string>,
  vp: VersionProfile,
  strata: readonly Stratum[],
): Task[] {
  const n = strata.length;
  const left = strata.map((_, k) => Math.floor(count / n) + (k < count % n ? 1 : 0));
  const domainOf = (i: number): Domain => DOMAINS[i % DOMAINS.length]!;
  const feasible = new Map(
    DOMAINS.map((d): [Domain, number[]] => [
      d,
      strata
        .map((_, k) => k)
        .filter((k) =>
          [0, 1].some(
            (a) => drawOrSkip(rng.derive(`${level}/feasible/${d}/${k}/${a}`), level, d, "probe", genOptions(vp, k)) !== undefined,
          ),
        ),
    ]),
  );
  const assigned = new Array<number>(count);
  const byScarcity = Array.from({ length: count }, (_, i) => i).sort(
    (a, b) => feasible.get(domainOf(a))!.length - feasible.get(domainOf(b))!.length || a - b,
  );
  for (const i of byScarcity) {
    const options = feasible.get(domainOf(i))!;
    if (options.length === 0) throw new TaskGenerationError(`no ${level} task in ${domainOf(i)} can meet any stratum`);
    const k = options.reduce((best, x) => (left[x]! > left[best]! || (left[x] === left[best] && x === i % n) ? x : best), options[0]!);
    assigned[i] = k;
    left[k]! -= 1;
  }
  const out: Task[] = [];
  const sets: Set<string>[] = [];
  const keys = new Set<string>();
  for (let i = 0; i < count; i++) {
    const domain = domainOf(i);
    const id = `${idPrefix}${level}-${String(i).padStart(3, "0")}`;
    let chosen: Task | undefined;
    const tries: [number, number, number][] = [
      [assigned[i]!, STRICT_DRAWS, STRICT_DRAWS],
      [assigned[i]!, STRATUM_DRAWS, JACCARD_DRAWS],
      ...feasible
        .get(domain)!
        .filter((k) => k !== assigned[i])
        .map((k): [number, number, number] => [k, STRATUM_DRAWS, JACCARD_DRAWS]),
    ];
    for (const [pass, [k, draws, capped]] of tries.entries()) {
      for (let attempt = 0; attempt < draws && !chosen; attempt++) {
        const stream = rng.derive(`${level}/${i}/${k}/${pass === 0 ? "strict/" : ""}${attempt}`);
        const t = drawOrSkip(stream, level, domain, id, genOptions(vp, k));
        if (!t) continue;
        const key = toolSetKey(t);
        if (keys.has(key) || texts.has(t.text)) continue;
        const s = new Set(taskTools(t));
        const cap = pass === 0 ? STRICT_JACCARD_CAP : PAIR_JACCARD_CAP;
        if (attempt < capped && sets.some((o) => jaccard(o, s) > cap)) continue;
        chosen = t;
        sets.push(s);
        keys.add(key);
        texts.add(t.text);
      }
      if (chosen) {
        // A fallback stratum borrows the quota of a later task that can take this task's stratum instead.
        const j =
          k === assigned[i] ? -1 : assigned.findIndex((x, jj) => jj > i && x === k && feasible.get(domainOf(jj))!.includes(assigned[i]!));
        if (j >= 0) assigned[j] = assigned[i]!;
        break;
      }
    }
    if (!chosen) throw new TaskGenerationError(`no unique ${level} task in ${domain} for any stratum (task ${i})`);
    out.push(chosen);
  }
  return out;
}

/**
 * A sampled task of a version (the `suite: "sampled"` option). v1 starts from a stratum drawn from the stream and
 * moves on to the next one while the draw cannot meet it.
 */
export function sampleTask(rng: RngLike, level: Complexity, domain: Domain, id: string, vp: VersionProfile): Task {
  if (!vp.strata) return generateTask(rng, level, domain, id);
  const first = rng.derive("stratum").int(vp.strata.length);
  for (let k = 0; k < vp.strata.length; k++) {
    const t = drawOrSkip(rng.derive(k), level, domain, id, genOptions(vp, (first + k) % vp.strata.length));
    if (t) return t;
  }
  throw new TaskGenerationError(`could not build a ${level} task in ${domain} for any stratum`);
}

/** A v1 draw: a stratum the draw cannot meet is one more rejected draw, not an error. */
function drawOrSkip(rng: RngLike, level: Complexity, domain: Domain, id: string, gen: GenOptions): Task | undefined {
  try {
    return generateTask(rng, level, domain, id, gen);
  } catch (e) {
    if (e instanceof TaskGenerationError) return undefined;
    throw e;
  }
}

export interface Instance {
  readonly index: number;
  readonly task: Task;
  readonly perturbation: Perturbation;
}

const canonical = new Map<ToolMazeVersion, Task[]>();

/** The 400 canonical base tasks of a version (lazy, cached). Index = level * 100 + i. */
export function canonicalTasks(version: ToolMazeVersion = "v0"): readonly Task[] {
  let tasks = canonical.get(version);
  if (!tasks) {
    const vp = versionProfile(version);
    const root = new Rng(vp.canonicalSeed);
    const texts = new Set<string>();
    tasks = COMPLEXITIES.flatMap((level) => generateLevel(root, level, TASKS_PER_LEVEL, vp.idPrefix, texts, vp));
    canonical.set(version, tasks);
  }
  return tasks;
}

/**
 * Canonical instance played at position `rank` of the stratified order: level rank mod 4, perturbation
 * (rank div 4) mod 5, task rank div 20 within its level. A bijection of [0, 2000), so seeds 0..1999 still cover the
 * suite exactly once, and every prefix of 20k seeds holds k instances of each (level, perturbation) cell: a small
 * eval (`--episodes 200`) sees all of C1–C4 × NP–P4 instead of the first C1 tasks.
 */
export function stratifiedInstanceIndex(rank: number): number {
  if (!Number.isInteger(rank) || rank < 0 || rank >= CANONICAL_INSTANCES) {
    throw new RangeError(`toolmaze: stratified rank must be an integer in [0, ${CANONICAL_INSTANCES}), got ${rank}`);
  }
  const levels = COMPLEXITIES.length;
  const modes = PERTURBATIONS.length;
  const level = rank % levels;
  const mode = Math.floor(rank / levels) % modes;
  const task = Math.floor(rank / (levels * modes));
  return (level * TASKS_PER_LEVEL + task) * modes + mode;
}

/** Instance `index` in [0, 2000): base task index * 5 + perturbation index. */
export function canonicalInstance(index: number, version: ToolMazeVersion = "v0"): Instance {
  if (!Number.isInteger(index) || index < 0 || index >= CANONICAL_INSTANCES) {
    throw new RangeError(`toolmaze: taskIndex must be an integer in [0, ${CANONICAL_INSTANCES}), got ${index}`);
  }
  const task = canonicalTasks(version)[Math.floor(index / PERTURBATIONS.length)]!;
  return { index, task, perturbation: PERTURBATIONS[index % PERTURBATIONS.length]! };
}
