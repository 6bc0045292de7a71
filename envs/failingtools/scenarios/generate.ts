import { hash32, type JsonObject, type JsonValue, Rng, toJsonValue } from "../../../src/family.js";
import { buildFaults } from "../faults.js";
import {
  addDays,
  CATEGORIES,
  type CategoryDef,
  type FtState,
  type ProviderDef,
  providerTools,
  type TaskSpec,
  toolName,
} from "../world/index.js";
import { chainChecks, planOf } from "./chain.js";
import { checkpointsFor } from "./checkpoints.js";
import { argRequirements, type KeyNames } from "./constraints.js";
import type { ScenarioFrame } from "./frame.js";
import { callConstraints } from "./requirements.js";
import { FAILURE_SOURCES, type FailureSource, parseScenario, type Scenario } from "./schema.js";
import { applicable, MODES } from "./sources.js";
import { stagedDisclosure } from "./staging.js";
import { WORKED_EXAMPLES } from "./worked.js";

/**
 * Generates the scenario set from the category templates with a fixed seed: every template × every applicable
 * failure source × {permanent, temporary}, with counterpart providers rotated so every provider is a primary.
 * Each scenario is validated with zod before it is returned. The parts of a scenario are built by their own
 * modules (requirements, chain, checkpoints, staging) from one ScenarioFrame.
 */

export const GENERATOR_SEED = "failingtools-v0";
const BASE_NOW = "2026-06-15T09:00:00Z";

/** The id of the row a natural key should resolve to, in one provider's table. */
function preciseFor(t: TaskSpec, state: FtState, provider: string): JsonValue | undefined {
  const k = t.key ?? t.ambiguity;
  if (!k) return undefined;
  if ("precise" in k && k.precise !== undefined) return k.precise;
  const rows = state.services[provider]?.tables[k.table as string] ?? [];
  const truth = k.truth as JsonObject;
  const row = rows.find((r) => Object.entries(truth).every(([f, v]) => r[f] === v));
  return row ? row[k.idField as string] : undefined;
}

function providerState(cat: CategoryDef, w: unknown, p: ProviderDef, now: string): FtState["services"][string] {
  return { tables: cat.tables(w, p, now), seq: 0, ...(cat.extras?.(w, p) ?? {}) };
}

function buildOne(
  cat: CategoryDef,
  tplIndex: number,
  source: FailureSource,
  pers: "permanent" | "temporary",
  pairIdx: number,
): Scenario | null {
  const tpl = cat.templates[tplIndex];
  const r = new Rng(GENERATOR_SEED).derive(`${tpl.name}/${source}/${pers}`);
  const now = addDays(BASE_NOW, r.int(120));
  const w = cat.world(r.derive("world"), now);
  const worked = WORKED_EXAMPLES.find((x) => x.template === tpl.name && x.source === source && x.persistence === pers) ?? null;
  let task = tpl.build(r.derive("task"), w, now);
  for (let i = 0; worked?.keyValue !== undefined && task.keyValue !== worked.keyValue && i < 200; i++)
    task = tpl.build(r.derive(`task:${i}`), w, now);
  if (!applicable(source, task)) return null;

  const n = cat.providers.length;
  let primary = cat.providers[pairIdx % n];
  let fallback = cat.providers[(pairIdx + 1) % n];
  if (worked?.primary) primary = cat.providers.find((p) => p.id === worked.primary) as ProviderDef;
  if (worked?.fallback) fallback = cat.providers.find((p) => p.id === worked.fallback) as ProviderDef;

  const world: FtState = {
    now,
    services: { [primary.id]: providerState(cat, w, primary, now), [fallback.id]: providerState(cat, w, fallback, now) },
  };
  const persistence: Scenario["persistence"] =
    pers === "permanent" ? { type: "permanent" } : { type: "temporary", attempts: r.range(1, 2) };
  const visibility: "explicit" | "implicit" =
    source === "availability_denial" || source === "schema_mismatch" || source === "compound_cascade"
      ? "explicit"
      : source === "data_staleness"
        ? worked || r.bool(0.5)
          ? "explicit"
          : "implicit"
        : "implicit";

  const M = toolName(primary.id, task.main.op);
  const F = toolName(fallback.id, task.main.op);
  const isWrite = task.kind === "write";
  const wr = task.write;
  const k = task.key ?? task.ambiguity;
  const bare = k ? (task.main.args[k.arg] ?? null) : null;

  // Look-alike record for disambiguation, present only when faults are injected.
  const faultRows: Scenario["faultRows"] = [];
  let decoyId: JsonValue | undefined;
  if (source === "disambiguation_failure" && task.ambiguity) {
    const a = task.ambiguity;
    const row: JsonObject = { ...a.decoy };
    if (row[a.idField] === undefined) row[a.idField] = `${primary.idPrefix}_alt_901`;
    decoyId = row[a.idField];
    faultRows.push({ provider: primary.id, table: a.table, row });
  }
  const precisePrimary = preciseFor(task, world, primary.id);
  const preciseFallback = preciseFor(task, world, fallback.id);
  if (source === "schema_mismatch" && (bare === null || precisePrimary === undefined || bare === precisePrimary)) return null;

  const keyInput =
    k && bare !== null && precisePrimary !== undefined
      ? {
          arg: k.arg,
          bare,
          precise: precisePrimary,
          expected:
            "precise" in k && k.precise !== undefined
              ? "the full email address"
              : `the ${k.idField} of the record (see the search/list tools)`,
        }
      : undefined;
  const faults = buildFaults({
    source,
    persistence,
    visibility,
    task,
    primary: primary.id,
    primaryLabel: primary.label,
    fallback: fallback.id,
    now,
    variant: worked ? 0 : r.int(6),
    key: keyInput,
    decoyId,
    staleDays: r.range(3, 9),
  });

  const staged = stagedDisclosure(
    source,
    M,
    providerTools(fallback.id).map((t) => t.name),
  );
  const request = task.request.replace(/\{provider\}/g, primary.label);
  const keyNames: KeyNames | null =
    k && bare !== null ? { arg: k.arg, bare, ids: [precisePrimary ?? null, preciseFallback ?? null], stated: task.stated } : null;
  const chainMainBound = (task.chain?.mainBind ?? []).map((b) => b.arg);
  const mainArgs = argRequirements(request, task.main.args, chainMainBound, keyNames);

  const permanent = pers === "permanent";
  const refusal = source === "compound_cascade" && permanent;
  const usesFallback =
    permanent &&
    (source === "availability_denial" ||
      source === "silent_noop" ||
      source === "corrupted_state" ||
      source === "data_staleness" ||
      source === "compound_cascade");
  const verifyM = wr ? toolName(primary.id, wr.verify.op) : null;
  const verifyF = wr ? toolName(fallback.id, wr.verify.op) : null;
  const cancelM = wr ? toolName(primary.id, wr.cancel.op) : null;
  const cancelF = wr ? toolName(fallback.id, wr.cancel.op) : null;
  const frame: ScenarioFrame = {
    task,
    source,
    primary,
    fallback,
    M,
    F,
    request,
    mainArgs,
    permanent,
    refusal,
    usesFallback,
    verifyM,
    verifyF,
  };

  const { required, forbidden, badRecords } = callConstraints(frame, decoyId);
  const chain = task.chain;
  const chainParts = chain ? chainChecks(frame, chain) : { required: [], checkpoints: [] };
  required.push(...chainParts.required);
  const checkpoints = checkpointsFor(frame, chainParts.checkpoints);

  const id = `ft-${tpl.name}-${source.replace(/_/g, "-")}-${permanent ? "perm" : "temp"}-${primary.id}`;
  const publicId = `ft-${tpl.name}-${primary.id}-${hash32(id).toString(16).padStart(8, "0")}`;
  const scenario = {
    id,
    publicId,
    domain: cat.domain,
    category: cat.id,
    template: tpl.name,
    kind: task.kind,
    source,
    persistence,
    visibility,
    primary: primary.id,
    fallback: fallback.id,
    request,
    intent: {
      tool: M,
      args: task.main.args,
      stated: task.stated,
      ...(chain ? { plan: planOf(chain, primary.id, M, task.main.args) } : {}),
    },
    now,
    world,
    faultRows,
    visible: providerTools(primary.id).map((t) => t.name),
    staged,
    faults,
    required,
    forbidden,
    checkpoints,
    userReply: isWrite ? `Yes, go ahead — using ${fallback.label} instead is fine if ${primary.label} isn't working.` : "Sure, go ahead.",
    failureModes:
      chain && !MODES[source][task.kind].includes("mid_sequence_stalling")
        ? [...MODES[source][task.kind], "mid_sequence_stalling" as const]
        : MODES[source][task.kind],
    truth: {
      M,
      F,
      primaryLabel: primary.label,
      fallbackLabel: fallback.label,
      keyPath: task.keyPath,
      keyValue: task.keyValue,
      wrongValue: task.wrongValue,
      answer: toJsonValue(task.answer),
      refusal,
      usesFallback,
      bare,
      keyArg: k?.arg ?? null,
      precise: { primary: precisePrimary ?? null, fallback: preciseFallback ?? null },
      decoyId: decoyId ?? null,
      write: wr
        ? {
            idField: wr.idField,
            table: wr.table,
            match: wr.match,
            verify: { M: verifyM, F: verifyF, idArg: wr.verify.idArg ?? null, args: wr.verify.args ?? null },
            cancel: { M: cancelM, F: cancelF, idArg: wr.cancel.idArg },
            recordKeyField: wr.recordKeyField,
          }
        : null,
      badRecords: toJsonValue(badRecords),
      corruption: task.corruption,
    },
    worked: worked?.name ?? null,
  };
  return parseScenario(scenario);
}

let cache: Scenario[] | null = null;

/** All scenarios, in a fixed order (category, template, source, persistence); built once per process. */
export function generateScenarios(): Scenario[] {
  if (!cache) cache = buildScenarios();
  return cache;
}

/** Builds the scenario set afresh (no cache): a pure function of the templates and GENERATOR_SEED. */
export function buildScenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const cat of CATEGORIES) {
    let pairIdx = 0;
    for (let ti = 0; ti < cat.templates.length; ti++) {
      for (const source of FAILURE_SOURCES) {
        for (const pers of ["permanent", "temporary"] as const) {
          const s = buildOne(cat, ti, source, pers, pairIdx);
          if (s) {
            out.push(s);
            pairIdx += 1;
          }
        }
      }
    }
  }
  const ids = new Set<string>();
  for (const s of out) {
    for (const x of [s.id, s.publicId]) {
      if (ids.has(x)) throw new Error(`duplicate scenario id ${x}`);
      ids.add(x);
    }
  }
  return out;
}

/** A scenario by its id or its public id (the one `info.taskId` shows). */
export function scenarioById(id: string): Scenario | undefined {
  return generateScenarios().find((s) => s.id === id || s.publicId === id);
}
