import {
  cloneJson,
  type CorruptionFn,
  type FaultPersistence,
  type FaultSpec,
  type JsonObject,
  type JsonValue,
  toJsonObject,
} from "../../src/family.js";
import type { FailureSource, Scenario } from "./scenarios/schema.js";
import { addDays, type FtState, type FtTool, providerTools, type TaskSpec } from "./world/index.js";

/**
 * The seven failure sources of the Failing Tools paper, expressed as the engine's plain-data fault specs plus the
 * named transforms they refer to. Errors pre-empt the service; `replace` transforms stand in for it (silent no-op,
 * wrong-entity resolution); `corrupt` transforms rewrite a real response or the record a write stored.
 */

const toolCache = new Map<string, FtTool>();
function toolByName(name: string): FtTool {
  let t = toolCache.get(name);
  if (!t) {
    const provider = name.slice(0, name.indexOf("_"));
    for (const x of providerTools(provider)) toolCache.set(x.name, x);
    t = toolCache.get(name);
    if (!t) throw new Error(`unknown Failing Tools tool "${name}"`);
  }
  return t;
}

type PathKey = string | number;
function setPath(root: JsonValue, path: readonly PathKey[], value: JsonValue): JsonValue {
  if (path.length === 0) return value;
  let cur = root as Record<string | number, JsonValue>;
  for (let i = 0; i < path.length - 1; i++) {
    const next = cur?.[path[i]];
    if (next === null || typeof next !== "object") return root;
    cur = next as Record<string | number, JsonValue>;
  }
  cur[path[path.length - 1]] = value;
  return root;
}

function findRecord(state: FtState, provider: string, table: string, idField: string, id: JsonValue): JsonObject | undefined {
  return state.services[provider]?.tables[table]?.find((r) => r[idField] === id);
}

/** The transforms fault specs may name. Each is a deterministic function of the call, the response and the world. */
export const FT_TRANSFORMS: Readonly<Record<string, CorruptionFn<FtState>>> = {
  /** Implicit corruption of a read: the value the user asked about is replaced by an impossible/inconsistent one. */
  set_path: ({ output, params }) => setPath(cloneJson(output), params.path as PathKey[], params.value as JsonValue),
  /** A cached, outdated response: old timestamp and old value; explicit staleness also carries a warning flag. */
  stale: ({ output, params }) => {
    const o = setPath(cloneJson(output), params.keyPath as PathKey[], params.value as JsonValue);
    setPath(o, params.tsPath as PathKey[], params.ts as JsonValue);
    if (params.warning === true && o && typeof o === "object" && !Array.isArray(o)) {
      (o as JsonObject)._stale_warning = `Served from cache; data is ${String(params.ageDays)} days old.`;
      (o as JsonObject).cache_status = "STALE";
    }
    return o;
  },
  /** Silent no-op: the write is simulated on a throw-away copy, so the receipt looks real but nothing is stored. */
  noop_receipt: ({ tool, args, state }) => {
    const scratch = structuredClone(state);
    const out = toolByName(tool).run(args, { state: scratch });
    return out.ok ? out.output : { status: "accepted", message: "Request accepted" };
  },
  /** The write really happens, but the stored record carries a wrong value; the receipt still echoes the request. */
  corrupt_record: ({ output, params, state }) => {
    const id = (output as JsonObject | null)?.[params.idField as string];
    const rec = findRecord(state, params.provider as string, params.table as string, params.recordIdField as string, id ?? null);
    if (rec) rec[params.field as string] = params.value as JsonValue;
    return output;
  },
  /** The service resolves an ambiguous name to a look-alike record and acts on it, reporting success. */
  misresolve: ({ tool, args, params, state }) => {
    const out = toolByName(tool).run({ ...args, [params.arg as string]: params.decoyId as JsonValue }, { state });
    return out.ok ? out.output : { error: toJsonObject(out.error) };
  },
};

export function enginePersistence(p: Scenario["persistence"]): FaultPersistence {
  return p.type === "permanent" ? { type: "permanent" } : { type: "temporary", attempts: p.attempts };
}

/** Everything the fault builders need to know about one scenario. */
export interface FaultPlanInput {
  source: FailureSource;
  persistence: Scenario["persistence"];
  visibility: "explicit" | "implicit";
  task: TaskSpec;
  primary: string;
  primaryLabel: string;
  fallback: string;
  now: string;
  /** Index into the fixed error catalogues, drawn by the generator. */
  variant: number;
  /** The unrepaired argument value and what a precise one looks like (schema mismatch, disambiguation). */
  key?: { arg: string; bare: JsonValue; precise: JsonValue; expected: string };
  decoyId?: JsonValue;
  staleDays: number;
}

const tool = (provider: string, op: string) => `${provider}_${op}`;

/** Fires only while the main call names the record by its bare natural key (a display name), not a precise id. */
function onBareKey(M: string, k: NonNullable<FaultPlanInput["key"]>): FaultSpec["trigger"] {
  return { tools: [M], argMatches: { [k.arg]: k.bare as string | number | boolean | null } };
}

function denial(input: FaultPlanInput, victim: string, id: string): FaultSpec {
  const permanent = input.persistence.type === "permanent";
  const catalogue: { status: number; code: string; message: string; details: JsonObject }[] = permanent
    ? [
        {
          status: 410,
          code: "ENDPOINT_RETIRED",
          message: `${input.primaryLabel} permanently migrated this endpoint; it will not be restored.`,
          details: { migrated: true },
        },
        {
          status: 503,
          code: "SERVICE_OUTAGE",
          message: `${input.primaryLabel} is experiencing a major outage. No estimated recovery time.`,
          details: { retry_after_s: null },
        },
      ]
    : [
        {
          status: 503,
          code: "SERVICE_UNAVAILABLE",
          message: `${input.primaryLabel} is temporarily unavailable. Please retry.`,
          details: { retry_after_s: 2 },
        },
        { status: 429, code: "RATE_LIMITED", message: "Too many requests. Retry shortly.", details: { retry_after_s: 1 } },
        {
          status: 504,
          code: "UPSTREAM_TIMEOUT",
          message: "The upstream service timed out. Retrying usually helps.",
          details: { retry_after_s: 1 },
        },
      ];
  const error = catalogue[input.variant % catalogue.length];
  return {
    id,
    kind: `availability_${error.code.toLowerCase()}`,
    visibility: "explicit",
    persistence: enginePersistence(input.persistence),
    trigger: { tools: [victim] },
    effect: { type: "error", error },
  };
}

function corruption(input: FaultPlanInput, provider: string, id: string): FaultSpec {
  const t = input.task;
  const victim = tool(provider, t.main.op);
  const effect: FaultSpec["effect"] = t.write
    ? {
        type: "corrupt",
        transform: "corrupt_record",
        params: {
          provider,
          table: t.write.table,
          idField: t.write.idField,
          recordIdField: t.write.recordIdField,
          field: t.write.recordKeyField,
          value: t.wrongValue,
        },
      }
    : { type: "corrupt", transform: "set_path", params: { path: t.keyPath, value: t.wrongValue } };
  return {
    id,
    kind: `corrupted_${t.kind}`,
    visibility: "implicit",
    persistence: enginePersistence(input.persistence),
    trigger: { tools: [victim] },
    effect,
  };
}

/** The fault plan of one scenario. */
export function buildFaults(input: FaultPlanInput): FaultSpec[] {
  const t = input.task;
  const M = tool(input.primary, t.main.op);
  const pers = enginePersistence(input.persistence);
  switch (input.source) {
    case "availability_denial":
      return [denial(input, M, "deny-primary")];
    case "data_staleness": {
      if (!t.stale) throw new Error(`${t.template} has no staleness model`);
      return [
        {
          id: "stale-primary",
          kind: "stale_data",
          visibility: input.visibility,
          persistence: pers,
          trigger: { tools: [M] },
          effect: {
            type: "corrupt",
            transform: "stale",
            params: {
              keyPath: t.keyPath,
              value: t.stale.staleValue,
              tsPath: t.stale.tsPath,
              ts: addDays(input.now, -input.staleDays),
              ageDays: input.staleDays,
              warning: input.visibility === "explicit",
            },
          },
        },
      ];
    }
    case "silent_noop":
      return [
        {
          id: "noop-primary",
          kind: "silent_noop",
          visibility: "implicit",
          persistence: pers,
          trigger: { tools: [M] },
          effect: { type: "replace", transform: "noop_receipt" },
        },
      ];
    case "corrupted_state":
      return [corruption(input, input.primary, "corrupt-primary")];
    case "schema_mismatch": {
      const k = input.key;
      if (!k || typeof k.bare === "object") throw new Error(`${t.template} has no schema-drift key`);
      return [
        {
          id: "schema-primary",
          kind: "schema_mismatch",
          visibility: "explicit",
          persistence: pers,
          trigger: onBareKey(M, k),
          effect: {
            type: "error",
            error: {
              status: 400,
              code: "SCHEMA_MISMATCH",
              message: `API v3: "${k.arg}" no longer accepts display names; send ${k.expected}.`,
              details: { field: k.arg, received: k.bare, expected: k.expected, did_you_mean: k.precise },
            },
          },
        },
      ];
    }
    case "disambiguation_failure": {
      const k = input.key;
      if (!k || input.decoyId === undefined) throw new Error(`${t.template} has no look-alike record`);
      return [
        {
          id: "misresolve-primary",
          kind: "wrong_entity_resolution",
          visibility: "implicit",
          persistence: pers,
          trigger: onBareKey(M, k),
          effect: { type: "replace", transform: "misresolve", params: { arg: k.arg, decoyId: input.decoyId } },
        },
      ];
    }
    case "compound_cascade":
      return [denial(input, M, "deny-primary"), corruption(input, input.fallback, "corrupt-fallback")];
  }
}
