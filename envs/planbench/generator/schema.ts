/**
 * Domain schema of the built-in PlanBench-XL world generator (zod-validated JSON).
 *
 * Why a schema file: everything domain-specific (record types, fields, aliases, value generators,
 * composite keys, phrasing) lives in data, so another domain (travel, banking, ...) is one JSON file
 * away and the generator code stays domain-agnostic.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, CONFIGS_DIR, resolveOptionPath } from "../../../src/family.js";
import { z } from "zod";

const ident = z.string().regex(/^[a-z][a-z0-9_]*$/, "must be snake_case (a-z, 0-9, _)");

export const ValueSpecSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("id"), prefix: z.string().min(1), digits: z.number().int().min(3).max(9) }).strict(),
  z.object({ kind: z.literal("person") }).strict(),
  z.object({ kind: z.literal("email"), of: ident }).strict(),
  z.object({ kind: z.literal("phone") }).strict(),
  z.object({ kind: z.literal("address") }).strict(),
  z.object({ kind: z.literal("choice"), values: z.array(z.string().min(1)).min(2) }).strict(),
  z.object({ kind: z.literal("pool"), pool: z.string().min(1), distinct: z.boolean().optional() }).strict(),
  z.object({ kind: z.literal("money"), min: z.number().positive(), max: z.number().positive() }).strict(),
  z.object({ kind: z.literal("int"), min: z.number().int(), max: z.number().int() }).strict(),
  z.object({ kind: z.literal("digits"), length: z.number().int().min(1).max(12) }).strict(),
  z
    .object({
      kind: z.literal("code"),
      prefix: z.string(),
      length: z.number().int().min(3).max(16),
      alphabet: z.string().min(2).optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal("time"),
      after: ident.optional(),
      minMinutes: z.number().int().nonnegative().optional(),
      maxMinutes: z.number().int().positive().optional(),
    })
    .strict(),
  z.object({ kind: z.literal("copy"), from: ident }).strict(),
  z.object({ kind: z.literal("mul"), of: z.tuple([ident, ident]) }).strict(),
]);
export type ValueSpec = z.infer<typeof ValueSpecSchema>;

export const EntitySchema = z
  .object({
    name: ident,
    category: z.string().min(1),
    /** `shared`: a pool reused across cases (customers, products); `case`: one fresh record per case. */
    scope: z.enum(["shared", "case"]),
    /** Pool size of a shared entity without parents. */
    count: z.number().int().positive().optional(),
    /** Children per parent instance of a shared entity with a parent, [min, max]. */
    perParent: z.tuple([z.number().int().positive(), z.number().int().positive()]).optional(),
    parents: z.array(ident),
    id: ident,
    /** Per-case child reachable from its per-case parent (one-to-one); false for line items. */
    reverse: z.boolean().optional(),
    nullGroup: z.string().optional(),
  })
  .strict();
export type Entity = z.infer<typeof EntitySchema>;

export const DomainDatatypeSchema = z
  .object({
    name: ident,
    entity: ident,
    value_type: z.enum(["string", "number", "timestamp"]),
    value: ValueSpecSchema,
    /** The value identifies its record (a lookup tool `value -> entity id` is generated). */
    unique: z.boolean().optional(),
    description: z.string().min(1),
    aliases: z.array(z.string().min(1)).min(5).max(10),
  })
  .strict();
export type DomainDatatype = z.infer<typeof DomainDatatypeSchema>;

export const GenerationSchema = z
  .object({
    baselineTools: z.number().int().positive(),
    compositeTools: z.number().int().nonnegative(),
    tasks: z.number().int().positive(),
    singleInputTasks: z.number().int().nonnegative(),
    minSteps: z.number().int().positive(),
    maxSteps: z.number().int().positive(),
    /** Tasks whose complete catalog would exceed this many path sets are dropped (not truncated). */
    maxPathSets: z.number().int().positive(),
    /** Search nodes allowed per task before the task is dropped as intractable (never truncated). */
    searchBudget: z.number().int().positive(),
    minInfoGainBits: z.number().nonnegative(),
    maxAnswerShare: z.number().positive().max(1),
  })
  .strict();

export const DomainSchema = z
  .object({
    domain: ident,
    description: z.string(),
    database: z
      .object({
        rootKey: z.literal("order_cases"),
        casePrefix: z.string().min(1),
        cases: z.number().int().min(2).max(10000),
        epoch: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, "must be an ISO UTC timestamp"),
        windowDays: z.number().int().positive(),
      })
      .strict(),
    nullGroups: z.array(z.object({ name: z.string().min(1), rate: z.number().min(0).max(1) }).strict()),
    pools: z.record(z.string(), z.array(z.string().min(1)).min(1)),
    entities: z.array(EntitySchema).min(1),
    datatypes: z.array(DomainDatatypeSchema).min(2),
    keys: z.array(z.object({ inputs: z.array(ident).min(2).max(5), output: ident }).strict()),
    generation: GenerationSchema,
    variants: z.array(z.string().regex(/^[a-z0-9]+$/)).min(6),
    decoys: z.object({ suffixes: z.array(ident).min(3), systems: z.array(z.string().min(1)).min(2) }).strict(),
    phrasing: z
      .object({
        openings: z.array(z.string().min(1)).min(1),
        clueOne: z.array(z.string().includes("{va}")).min(1),
        clueTwo: z.array(z.string().includes("{vb}")).min(1),
        motivations: z.array(z.string().min(1)).min(1),
        questions: z.array(z.string().includes("{t}")).min(1),
      })
      .strict(),
  })
  .strict();
export type Domain = z.infer<typeof DomainSchema>;

/** A domain file failed validation: names the file, the field path and the reason (a typed `ConfigError`). */
export class DomainSchemaError extends ConfigError {
  constructor(
    readonly file: string,
    field: string | null,
    readonly reason: string,
  ) {
    super(field ?? "(file)", `${file}${field ? `: field '${field}'` : ""}: ${reason}`, { file });
  }
}

/** Cross-references zod cannot express: entities, parents, ids, pools and keys must resolve. */
function crossCheck(d: Domain, file: string): void {
  const fail = (field: string, reason: string): never => {
    throw new DomainSchemaError(file, field, reason);
  };
  const ents = new Map<string, number>();
  d.entities.forEach((e, i) => {
    if (ents.has(e.name)) fail(`entities.${i}.name`, `duplicate entity "${e.name}"`);
    e.parents.forEach((p, k) => {
      if (!ents.has(p)) fail(`entities.${i}.parents.${k}`, `parent "${p}" must be an entity declared earlier`);
    });
    if (e.scope === "shared" && e.parents.length > 1) fail(`entities.${i}.parents`, "a shared entity has at most one parent");
    if (e.scope === "shared" && e.parents.length === 0 && e.count === undefined)
      fail(`entities.${i}.count`, "required for a shared entity without parent");
    if (e.scope === "shared" && e.parents.length === 1 && e.perParent === undefined)
      fail(`entities.${i}.perParent`, "required for a shared entity with a parent");
    if (e.scope === "shared" && e.parents.some((p) => d.entities[ents.get(p)!]!.scope !== "shared"))
      fail(`entities.${i}.parents`, "a shared entity cannot have a per-case parent");
    if (e.nullGroup !== undefined && !d.nullGroups.some((g) => g.name === e.nullGroup))
      fail(`entities.${i}.nullGroup`, `unknown null group "${e.nullGroup}"`);
    ents.set(e.name, i);
  });
  const dts = new Map<string, number>();
  const aliasOwner = new Map<string, string>();
  d.datatypes.forEach((t, i) => {
    if (dts.has(t.name)) fail(`datatypes.${i}.name`, `duplicate datatype "${t.name}"`);
    if (!ents.has(t.entity)) fail(`datatypes.${i}.entity`, `unknown entity "${t.entity}"`);
    for (const [k, a] of t.aliases.entries()) {
      const key = a.toLowerCase().replace(/\s+/g, " ").trim();
      const other = aliasOwner.get(key);
      if (other !== undefined && other !== t.name) fail(`datatypes.${i}.aliases.${k}`, `alias "${a}" is also used by "${other}"`);
      aliasOwner.set(key, t.name);
    }
    dts.set(t.name, i);
  });
  d.entities.forEach((e, i) => {
    const idx = dts.get(e.id);
    if (idx === undefined || d.datatypes[idx]!.entity !== e.name)
      fail(`entities.${i}.id`, `"${e.id}" must be a datatype of entity "${e.name}"`);
    if (d.datatypes[idx!]!.value.kind !== "id") fail(`entities.${i}.id`, `"${e.id}" must have value kind "id"`);
  });
  d.datatypes.forEach((t, i) => {
    const v = t.value;
    const refs =
      v.kind === "email"
        ? [v.of]
        : v.kind === "copy"
          ? [v.from]
          : v.kind === "mul"
            ? [...v.of]
            : v.kind === "time" && v.after
              ? [v.after]
              : [];
    refs.forEach((r) => {
      if (!dts.has(r)) fail(`datatypes.${i}.value`, `refers to unknown datatype "${r}"`);
    });
    if (v.kind === "pool" && !(v.pool in d.pools)) fail(`datatypes.${i}.value.pool`, `unknown pool "${v.pool}"`);
    if (v.kind === "money" && v.max <= v.min) fail(`datatypes.${i}.value.max`, "must exceed min");
    if (v.kind === "int" && v.max < v.min) fail(`datatypes.${i}.value.max`, "must be >= min");
    if ((v.kind === "id" || v.kind === "phone" || v.kind === "code") && t.value_type !== "string")
      fail(`datatypes.${i}.value_type`, `value kind "${v.kind}" needs value_type string`);
  });
  for (const p of ["first", "last", "street", "city"])
    if (d.datatypes.some((t) => t.value.kind === "person" || t.value.kind === "address") && !(p in d.pools))
      fail(`pools.${p}`, "required by person/address values");
  d.keys.forEach((k, i) => {
    [...k.inputs, k.output].forEach((n, j) => {
      if (!dts.has(n)) fail(`keys.${i}.${j < k.inputs.length ? `inputs.${j}` : "output"}`, `unknown datatype "${n}"`);
    });
  });
  if (d.generation.maxSteps < d.generation.minSteps) fail("generation.maxSteps", "must be >= minSteps");
}

/** Parse and cross-check a domain object. */
export function parseDomain(raw: unknown, file = "<domain>"): Domain {
  const r = DomainSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new DomainSchemaError(file, issue.path.length ? issue.path.map(String).join(".") : null, issue.message);
  }
  crossCheck(r.data, file);
  return r.data;
}

/** Directory of the shipped domain files. */
export const DOMAINS_DIR = path.join(CONFIGS_DIR, "planbench", "domains");

/** Names of the shipped domains (the JSON files in configs/planbench/domains). */
export function listDomains(): string[] {
  return existsSync(DOMAINS_DIR)
    ? readdirSync(DOMAINS_DIR)
        .filter((f) => f.endsWith(".json"))
        .map((f) => f.slice(0, -5))
        .sort()
    : [];
}

/** Is `s` a path to a domain file rather than a shipped domain's name? */
export function isDomainPath(s: string): boolean {
  return s.endsWith(".json") || s.includes("/") || s.includes(path.sep);
}

/**
 * The domain file for a shipped name or a path to a JSON file. An unknown name is an error listing the known
 * ones; a missing path is an error naming the file.
 */
export function domainFile(nameOrPath: string): string {
  if (isDomainPath(nameOrPath)) {
    const file = resolveOptionPath("domain", nameOrPath);
    if (!existsSync(file)) throw new DomainSchemaError(file, null, "domain file not found");
    return file;
  }
  const known = listDomains();
  if (!known.includes(nameOrPath))
    throw new DomainSchemaError(
      nameOrPath,
      null,
      `unknown domain "${nameOrPath}"; known domains: ${known.join(", ") || "(none)"} (or give a path to a domain .json file)`,
    );
  return path.join(DOMAINS_DIR, `${nameOrPath}.json`);
}

/** Load a domain by name (a shipped file) or by path to a JSON file. */
export function loadDomain(nameOrPath = "retail"): Domain {
  return readDomainFile(domainFile(nameOrPath));
}

/**
 * Load the domain file `domainFile` returned. Its path is already resolved (and, for a path the user named, checked by
 * the option-path policy): passing it back through `loadDomain` would check a shipped file as if a user had named it.
 */
export function readDomainFile(file: string): Domain {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new DomainSchemaError(file, null, `invalid JSON (${(e as Error).message})`);
  }
  return parseDomain(raw, path.basename(file));
}
