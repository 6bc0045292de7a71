import type { z } from "zod";
import type { Env, EnvSpec, Info } from "./env.js";
import { describeZodIssues, OptionsError, UnknownEnvError } from "./errors.js";
import { loadFamilies } from "./families.js";
import type { JsonObject } from "./json.js";
import { LIBRARY_VERSION } from "./version.js";
import type { Rng } from "./rng.js";
import type { Trajectory } from "./trajectory.js";

/** A policy acting on observations (and, for oracles only, on `info.hidden`). */
export interface Policy<Obs = unknown, Act = unknown> {
  readonly name: string;
  /** Called on reset; `info` is the reset info. */
  reset?(obs: Obs, info: Info): void;
  act(obs: Obs, info: Info): Act;
}

export interface PolicyEntry<Obs = unknown, Act = unknown> {
  description: string;
  /** Oracles read ground truth; everything else must use observations only. */
  usesHidden: boolean;
  create(env: Env<Obs, Act>, rng: Rng): Policy<Obs, Act>;
}

/** Per-episode result as collected by rollouts: the final info plus return and length. */
export interface EpisodeResult {
  seed: number;
  taskId: string;
  return: number;
  length: number;
  success: boolean;
  terminationReason: string;
  metrics: JsonObject;
}

/** One breakdown table of an aggregate; `percentColumns` names the columns whose numbers are percentages. */
export interface BreakdownTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  percentColumns?: readonly string[];
}

/**
 * A family's aggregate: headline metrics keyed as in the paper, and breakdown tables. A family whose paper reports
 * percentages may keep them here (they appear as such in human tables) but must list them in `percentMetrics` /
 * `percentColumns`: JSON and CSV outputs carry every rate as a fraction (src/metrics/units.ts, docs/METRICS.md).
 */
export interface AggregateReport {
  metrics: Record<string, number>;
  breakdown: BreakdownTable[];
  percentMetrics?: readonly string[];
}

export interface EnvEntry {
  id: string;
  description: string;
  family: string;
  /** Validates and fills defaults for `make()` options. */
  optionsSchema: z.ZodType<JsonObject>;
  /** One line per option, for `recovery-gym list` and the bridge's `list_envs`. */
  optionDocs: Readonly<Record<string, string>>;
  maxEpisodeSteps: number | null;
  factory(options: JsonObject, spec: EnvSpec): Env<unknown, unknown>;
  policies: Readonly<Record<string, PolicyEntry>>;
  /** The family's careful observable-only baseline: the bar that reward-hacking adversaries must stay below. */
  carefulPolicy?: string;
  aggregate?(results: readonly EpisodeResult[]): AggregateReport;
  /** Per-episode analyses for collected trajectories (failure category, blocker follow-up, ...). */
  analyzeTrajectory?(trajectory: Trajectory): JsonObject;
  /**
   * How to turn the family's faults off with everything else equal (`recovery-gym pairs --contrast fault`): options
   * deep-merged into the env's options to get the same-seed, no-fault counterfactual; or a function of the faulty
   * episode's options and reset info returning the complete no-fault options, when the counterpart depends on the
   * episode (ToolMaze pins the unperturbed instance of the same base task).
   */
  noFaultOptions?: JsonObject | ((options: JsonObject, resetInfo: Info) => JsonObject);
  /**
   * The discrete action mode's default K (`maxCandidates`) on this env, when its steps list more candidates than
   * the engine's default allows (documented in docs/DISCRETE.md).
   */
  discreteCandidates?: number;
}

const REGISTRY = new Map<string, EnvEntry>();

/**
 * Registers an env id. Ids are versioned (`Name-vN`); re-registering an id replaces it. Either one entry object,
 * or Gymnasium's shape `register(id, factory, defaults)`.
 */
export function register(entry: EnvEntry): void;
export function register(id: string, factory: EnvEntry["factory"], defaults: Omit<EnvEntry, "id" | "factory">): void;
export function register(idOrEntry: string | EnvEntry, factory?: EnvEntry["factory"], defaults?: Omit<EnvEntry, "id" | "factory">): void {
  const entry: EnvEntry =
    typeof idOrEntry === "string"
      ? { ...(defaults as Omit<EnvEntry, "id" | "factory">), id: idOrEntry, factory: factory as EnvEntry["factory"] }
      : idOrEntry;
  if (typeof entry.factory !== "function") throw new OptionsError("factory", `register(${entry.id}): factory must be a function`);
  if (!/^[A-Za-z][A-Za-z0-9_.]*-v\d+$/.test(entry.id)) throw new OptionsError("id", `env id "${entry.id}" must look like Name-v0`);
  loadFamilies(entry.id); // a built-in family loaded later must not replace the caller's entry
  REGISTRY.set(entry.id, entry);
}

export function registryEntry(id: string): EnvEntry {
  let entry = REGISTRY.get(id);
  if (!entry) {
    loadFamilies(id);
    entry = REGISTRY.get(id);
  }
  if (!entry) {
    loadFamilies(); // a family may register ids its pattern does not claim; and the error lists every id
    entry = REGISTRY.get(id);
  }
  if (!entry) throw new UnknownEnvError(id, [...REGISTRY.keys()].sort());
  return entry;
}

/** A copy of every registered entry (built-in families loaded first), for `restoreRegistry`. */
export function registrySnapshot(): ReadonlyMap<string, EnvEntry> {
  loadFamilies();
  return new Map(REGISTRY);
}

/**
 * Puts the registry back as `registrySnapshot` saw it: ids registered since are removed, replaced entries come back.
 * For test suites that register envs of their own and share one module instance across files.
 */
export function restoreRegistry(snapshot: ReadonlyMap<string, EnvEntry>): void {
  for (const id of [...REGISTRY.keys()]) if (!snapshot.has(id)) REGISTRY.delete(id);
  for (const [id, entry] of snapshot) REGISTRY.set(id, entry);
}

export interface EnvListing {
  id: string;
  family: string;
  description: string;
  maxEpisodeSteps: number | null;
  options: Readonly<Record<string, string>>;
  policies: string[];
}

function layerDocs(docs: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (LAYERS.length === 0) return docs;
  const out: Record<string, string> = { ...docs };
  for (const l of LAYERS) Object.assign(out, l.docs);
  return out;
}

export function listEnvs(): EnvListing[] {
  loadFamilies();
  return [...REGISTRY.values()]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((e) => ({
      id: e.id,
      family: e.family,
      description: e.description,
      maxEpisodeSteps: e.maxEpisodeSteps,
      options: layerDocs(e.optionDocs),
      policies: Object.keys(e.policies),
    }));
}

/**
 * An option layer: `make()` options valid on every env id (the discrete action mode's `actionMode`, chat mode's
 * `obsFormat`), parsed by the layer's own schema and applied after the family's factory. The family never sees them,
 * so its env is made as without them (up to the defaults `familyDefaults` sets); the layer wraps it. Layers live above
 * `src/core` and register themselves here.
 */
export interface MakeLayer {
  /** The option keys the layer owns (on every env id). */
  readonly keys: readonly string[];
  /** Parses the layer's keys (only called when at least one of them is given); fills the layer's defaults. */
  readonly schema: z.ZodType<JsonObject>;
  /** One line per option, merged into `listEnvs()` for every env. */
  readonly docs: Readonly<Record<string, string>>;
  /**
   * Family options the layer defaults when the caller left them out (chat mode: `invalidAction: "penalize"`, since a
   * model's mistake is an episode event there). Only applied when the layer is active for these options.
   */
  familyDefaults?(options: JsonObject): Readonly<Record<string, unknown>>;
  /**
   * Wraps the env the family made. `options` are the layer's parsed options, `given` the family options exactly as
   * the caller gave them, `spec` the outer spec (its entryOptions include the layer's options).
   */
  apply(env: Env<unknown, unknown>, options: JsonObject, spec: EnvSpec, given: Readonly<Record<string, unknown>>): Env<unknown, unknown>;
}

const LAYERS: MakeLayer[] = [];

/** Registers an option layer (see MakeLayer); its keys must not collide with another layer's. */
export function registerMakeLayer(layer: MakeLayer): void {
  for (const k of layer.keys) {
    if (LAYERS.some((l) => l.keys.includes(k))) throw new OptionsError(k, `option "${k}" is already owned by another make layer`);
  }
  LAYERS.push(layer);
}

/** Splits options into the family's part and each layer's part (layers whose keys are all absent are left out). */
type LayerPart = [MakeLayer, Record<string, unknown>];
function splitOptions(options: Record<string, unknown>): { family: Record<string, unknown>; layers: LayerPart[] } {
  if (LAYERS.length === 0) return { family: options, layers: [] };
  const family: Record<string, unknown> = {};
  const layers: LayerPart[] = [];
  for (const k of Object.keys(options)) if (!LAYERS.some((l) => l.keys.includes(k))) family[k] = options[k];
  for (const l of LAYERS) {
    const own: Record<string, unknown> = {};
    let any = false;
    for (const k of l.keys) {
      if (!Object.hasOwn(options, k)) continue;
      own[k] = options[k];
      any = true;
    }
    if (any) layers.push([l, own]);
  }
  return { family, layers };
}

function parseLayer(id: string, layer: MakeLayer, own: Record<string, unknown>): JsonObject {
  const res = layer.schema.safeParse(own);
  if (!res.success) {
    const { field, message } = describeZodIssues(res.error.issues, own);
    throw new OptionsError(field, `${id}: invalid option ${message}`, { id });
  }
  return res.data;
}

/** Validates options against the env's schema; errors name the field, the value and what was expected. */
export function parseEnvOptions(id: string, options: unknown): JsonObject {
  return parseLayered(id, options).parsed;
}

interface LayeredOptions {
  /** The family's options and every active layer's, parsed. */
  parsed: JsonObject;
  /** The family's part, parsed (what its factory receives). */
  family: JsonObject;
  /** The family's part as given (before layer defaults and parsing). */
  given: Record<string, unknown>;
  layers: [MakeLayer, JsonObject][];
}

function parseLayered(id: string, options: unknown): LayeredOptions {
  const entry = registryEntry(id);
  const isObject = typeof options === "object" && options !== null && !Array.isArray(options);
  const split = isObject ? splitOptions(options as Record<string, unknown>) : { family: options, layers: [] };
  const given = (split.family ?? {}) as Record<string, unknown>;
  const layers = split.layers.map(([layer, own]): [MakeLayer, JsonObject] => [layer, parseLayer(id, layer, own)]);
  let withDefaults = given;
  for (const [layer, own] of layers) {
    const defaults = layer.familyDefaults?.(own) ?? {};
    for (const [k, v] of Object.entries(defaults)) if (withDefaults[k] === undefined) withDefaults = { ...withDefaults, [k]: v };
  }
  const res = entry.optionsSchema.safeParse(withDefaults);
  if (!res.success) {
    const { field, message } = describeZodIssues(res.error.issues, withDefaults);
    throw new OptionsError(field, `${id}: invalid option ${message}`, { id });
  }
  const parsed: JsonObject = { ...res.data };
  for (const [, own] of layers) Object.assign(parsed, own);
  return { parsed, family: res.data, given, layers };
}

/**
 * Makes an env: `make("ToolMaze-v0", { complexity: "C2" })`. The type parameters name the observation, action and
 * info types the caller expects (`make<ToolObservation, Action, ToolStepInfo, ToolResetInfo>(...)` for the tool
 * envs); they are not checked at run time. `wrapInner` (e.g. a trajectory recorder) wraps the family's env, under any
 * option layer (so a chat-mode session records the family's own steps).
 */
export function make<Obs = unknown, Act = unknown, StepInfo extends Info = Info, ResetInfo extends Info = Info>(
  id: string,
  options: Record<string, unknown> = {},
  wrapInner?: (env: Env<unknown, unknown>) => Env<unknown, unknown>,
): Env<Obs, Act, StepInfo, ResetInfo> {
  const entry = registryEntry(id);
  const { parsed, family, given, layers } = parseLayered(id, options);
  const maxEpisodeSteps = (parsed.maxSteps as number | undefined) ?? entry.maxEpisodeSteps;
  const spec: EnvSpec = { id, entryOptions: family, maxEpisodeSteps, libraryVersion: LIBRARY_VERSION };
  let env = entry.factory(family, spec);
  if (wrapInner) env = wrapInner(env);
  if (layers.length > 0) {
    const outer: EnvSpec = { ...spec, entryOptions: parsed };
    for (const [layer, own] of layers) env = layer.apply(env, own, outer, given);
  }
  return env as Env<Obs, Act, StepInfo, ResetInfo>;
}
