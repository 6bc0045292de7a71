import type { JsonObject, JsonValue, Rng, ToolSemantics } from "../../../src/family.js";
import { type City, TWIN_STATE } from "./pools.js";
import { asStr, type CategoryId, type DomainId, type FtState, obj, ok, type ProviderState, str, table, type ToolResult } from "./kit.js";

/** A concrete platform (e.g. Venmo). Counterparts share a category, so they offer the same operations. */
export interface ProviderDef {
  id: string;
  label: string;
  /** Short id prefix for records this provider creates (`vm_txn_1001`). */
  idPrefix: string;
}

/** What an operation's simulator sees: its own provider's backend and the episode clock. */
export interface ProviderRuntime {
  prov: ProviderDef;
  st: ProviderState;
  now: string;
  world: FtState;
}

/** A provider-independent operation; each provider exposes it as `<provider>_<op>`. */
export interface OpDef {
  op: string;
  description: string;
  parameters: JsonObject;
  mutates: boolean;
  verifies?: string[];
  /** Documented semantic types of parameters and response fields (the discrete mode matches values by them). */
  semantics?: Pick<ToolSemantics, "parameters" | "outputs">;
  run(args: JsonObject, rt: ProviderRuntime): ToolResult;
}

export type Path = (string | number)[];

/** A concept the agent's message must (or must not) contain; see scorer/concepts.ts for the matching rules. */
export type Concept =
  | { kind: "text"; id: string; synonyms: string[] }
  | { kind: "number"; id: string; value: number; tolerance: number }
  | { kind: "date"; id: string; iso: string };

/**
 * A provider-agnostic task built from a template: what the user asks, the one call that does it, where the value
 * the user cares about lives in that call's output, and (for writes) how to read the result back and undo it.
 */
export interface TaskSpec {
  template: string;
  kind: "read" | "write";
  /** `{provider}` is replaced by the primary provider's label. */
  request: string;
  main: { op: string; args: JsonObject };
  /** Facts the user stated that a careful agent can compare against receipts and read-backs. */
  stated: JsonObject;
  keyPath: Path;
  keyValue: JsonValue;
  /** What corrupted state shows instead (e.g. 15 instead of 150). */
  wrongValue: JsonValue;
  /** How corruption is described in labels and docs. */
  corruption: string;
  /** A value the agent must not report as fact when it is the corrupted/stale one. */
  answer: Concept[];
  wrongConcept: Concept;
  /** Reads only: where the response's freshness timestamp lives, and what an outdated response says. */
  stale?: { tsPath: Path; staleValue: JsonValue; staleConcept: Concept };
  write?: {
    idField: string;
    table: string;
    recordIdField: string;
    recordKeyField: string;
    /** Fields every correct stored record has (natural keys, so counterpart providers match too). */
    match: JsonObject;
    verify: { op: string; idArg?: string; args?: JsonObject };
    cancel: { op: string; idArg: string };
  };
  /**
   * The natural-key argument of the main call and how to name the intended record precisely (its id in the
   * provider's table, or an explicit precise value such as an email address). Schema-mismatch faults demand it.
   */
  key?: { arg: string; table?: string; idField?: string; truth?: JsonObject; precise?: JsonValue };
  /** Multi-step tasks: the calls around the main one (see TaskChain). */
  chain?: TaskChain;
  /** The natural-key argument and a look-alike record that a faulty resolver may pick instead. */
  ambiguity?: {
    arg: string;
    table: string;
    idField: string;
    /** The look-alike row (without its id; each provider assigns one). */
    decoy: JsonObject;
    /** Fields that pick the intended row out of the table; the precise argument is that row's id. */
    truth: JsonObject;
    /** Where the resolved record's distinguishing value appears in the main output, and the decoy's value. */
    shownPath: Path;
    decoyShown: JsonValue;
  };
}

/** The part of a write task that two templates of one category can share: the call, its facts, its check and undo. */
export type WriteTaskCore = Pick<
  TaskSpec,
  "main" | "stated" | "keyPath" | "keyValue" | "wrongValue" | "corruption" | "answer" | "wrongConcept" | "write"
>;

/**
 * An argument of a chained call taken from an earlier call's output: the first object (depth-first) in the output
 * of plan step `from` whose fields equal `where` (strings compared case-insensitively), field `field`. `where`
 * holds only facts from the request text, so a careful agent can make the same pick.
 */
export interface ChainBind {
  arg: string;
  from: number;
  field: string;
  where?: JsonObject;
}

/** One call of a multi-step task other than the main (faulted) one. */
export interface ChainStep {
  op: string;
  args: JsonObject;
  bind?: ChainBind[];
  /** What the step is for, in the scenario's checkpoint text ("look up the recipient", "track the order"). */
  purpose: string;
}

/**
 * A multi-step task: `before` calls (lookups whose output names the record the main call acts on) and `after`
 * calls (tracking, read-back) around the main call, which is where the injected failure hits. Plan indices:
 * before steps 0..k-1, the main call k, after steps k+1... (`mainBind` binds main-call arguments).
 */
export interface TaskChain {
  before: ChainStep[];
  mainBind: ChainBind[];
  after: ChainStep[];
}

export interface TaskTemplate<W> {
  name: string;
  kind: "read" | "write";
  build(rng: Rng, world: W, now: string): TaskSpec;
}

export interface CategoryDef<W = unknown> {
  id: CategoryId;
  domain: DomainId;
  title: string;
  providers: ProviderDef[];
  ops: OpDef[];
  /** Entities shared by all providers of the category (the same restaurants exist on UberEats and DoorDash). */
  world(rng: Rng, now: string): W;
  tables(world: W, prov: ProviderDef, now: string): Record<string, JsonObject[]>;
  /** Provider-level scalars (balances, cash) kept next to the tables. */
  extras?(world: W, prov: ProviderDef): Record<string, JsonValue>;
  templates: TaskTemplate<W>[];
}

/** Erases the world type so categories of different shapes fit one registry. */
export function defineCategory<W>(def: CategoryDef<W>): CategoryDef<unknown> {
  return def as unknown as CategoryDef<unknown>;
}

/** `get_<thing>(id)`: the read-back half of a write, returning the record exactly as stored. */
export function getOp(op: string, tbl: string, idField: string, what: string, verifies: string[]): OpDef {
  return {
    op,
    description: `Read a ${what} by ${idField}, exactly as the service stored it.`,
    parameters: {
      type: "object",
      properties: { [idField]: { type: "string", description: `${what} id` } },
      required: [idField],
      additionalProperties: false,
    },
    mutates: false,
    verifies,
    run: (a, rt) => {
      const rec = (rt.st.tables[tbl] ?? []).find((r) => r[idField] === a[idField]);
      return rec
        ? { ok: true, output: { ...rec } }
        : {
            ok: false,
            error: {
              status: 404,
              code: `${what.toUpperCase().replace(/ /g, "_")}_NOT_FOUND`,
              message: `No ${what} ${String(a[idField])}.`,
            },
          };
    },
  };
}

/** `cancel_<thing>(id)`: undo a write whose record is still `active` (sets status to `cancelled`). */
export function cancelOp(op: string, tbl: string, idField: string, what: string, active: string): OpDef {
  return {
    op,
    description: `Cancel a ${what} that is still ${active}.`,
    parameters: {
      type: "object",
      properties: { [idField]: { type: "string", description: `${what} id` } },
      required: [idField],
      additionalProperties: false,
    },
    mutates: true,
    run: (a, rt) => {
      const rec = (rt.st.tables[tbl] ?? []).find((r) => r[idField] === a[idField]);
      if (!rec) return { ok: false, error: { status: 404, code: "NOT_FOUND", message: `No ${what} ${String(a[idField])}.` } };
      if (rec.status !== active)
        return { ok: false, error: { status: 409, code: "NOT_CANCELLABLE", message: `The ${what} is ${String(rec.status)}.` } };
      rec.status = "cancelled";
      return { ok: true, output: { [idField]: rec[idField] as string, status: "cancelled" } };
    },
  };
}

/**
 * `search_<things>(query)`: the records of `tbl` with any of `fields` containing the query (case-insensitive),
 * under `outKey`; `withCount` adds the hit count. Searches with other matching rules stay hand-written.
 */
export function searchOp(
  op: string,
  description: string,
  queryDescription: string,
  spec: { tbl: string; outKey: string; fields: string[]; view?: (r: JsonObject) => JsonObject; withCount?: boolean },
): OpDef {
  const view = spec.view ?? ((r: JsonObject): JsonObject => ({ ...r }));
  return {
    op,
    description,
    parameters: obj({ query: str(queryDescription) }, ["query"]),
    mutates: false,
    run: (a, rt) => {
      const q = asStr(a.query).toLowerCase();
      const rows = table(rt.st, spec.tbl).filter((r) => spec.fields.some((f) => asStr(r[f]).toLowerCase().includes(q)));
      return ok(spec.withCount ? { [spec.outKey]: rows.map(view), count: rows.length } : { [spec.outKey]: rows.map(view) });
    },
  };
}

/**
 * The usual `write` block of a task: the stored record is addressed by `idField`, read back by `verifyOp(id)`
 * (or, given `verifyArgs`, by a call with those fixed arguments) and undone by `cancelOp(id)`.
 */
export function recordWrite(
  tbl: string,
  idField: string,
  recordKeyField: string,
  match: JsonObject,
  ops: { verify: string; cancel: string; verifyArgs?: JsonObject },
): NonNullable<TaskSpec["write"]> {
  return {
    idField,
    table: tbl,
    recordIdField: idField,
    recordKeyField,
    match,
    verify: ops.verifyArgs ? { op: ops.verify, args: ops.verifyArgs } : { op: ops.verify, idArg: idField },
    cancel: { op: ops.cancel, idArg: idField },
  };
}

/**
 * The look-alike most categories plant: a record of the same name in the same-named city of another state
 * (`TWIN_STATE`), told apart only by its `region`, which the main call's output shows.
 */
export function twinCityAmbiguity(
  arg: string,
  tbl: string,
  idField: string,
  name: string,
  city: City,
  decoyFields: JsonObject,
): NonNullable<TaskSpec["ambiguity"]> {
  const twin = TWIN_STATE[city.name];
  return {
    arg,
    table: tbl,
    idField,
    decoy: { name, city: city.name, region: twin, ...decoyFields },
    truth: { name, region: city.state },
    shownPath: ["region"],
    decoyShown: twin,
  };
}
