/**
 * The backend of the built-in world: flat case records (one purchase story per case), keyed by
 * every datatype, as in the official `database.json`.
 *
 * Why flat cases with shared pools: customers, products, variants and saved cards recur across
 * cases while per-case records (cart, order, payment, shipment, ...) are fresh, which is exactly
 * what makes some lookups functional (order -> customer) and others not (customer -> order); the
 * tool generator keeps only the functional ones.
 */
import type { Rng } from "../../../src/family.js";
import { PyFloat, pystr, type PyValue } from "../compat/pyvalue.js";
import type { Domain, DomainDatatype, Entity, ValueSpec } from "./schema.js";

export type CaseRow = Record<string, PyValue>;

export interface GeneratedDatabase {
  /** Case ids in order (`case_0001`, ...). */
  ids: string[];
  rows: CaseRow[];
}

const MONEY_CENTS = [0.99, 0.49, 0.95, 0.5, 0.25, 0.75];

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** ISO UTC minute timestamp, computed without the wall clock (pure arithmetic on the epoch). */
export function isoMinutes(epochIso: string, minutes: number): string {
  const d = new Date(Date.parse(epochIso) + minutes * 60_000);
  const date = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  return `${date}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:00Z`;
}

function minutesOf(epochIso: string, iso: string): number {
  return Math.round((Date.parse(iso) - Date.parse(epochIso)) / 60_000);
}

class ValueFactory {
  private readonly used = new Map<string, Set<string>>();
  private readonly poolLeft = new Map<string, string[]>();
  constructor(
    private readonly domain: Domain,
    private readonly rng: Rng,
  ) {}

  private unique(dt: string, make: () => string): string {
    let set = this.used.get(dt);
    if (!set) this.used.set(dt, (set = new Set()));
    for (let i = 0; i < 10_000; i++) {
      const v = make();
      if (!set.has(v)) {
        set.add(v);
        return v;
      }
    }
    throw new Error(`database: cannot draw a fresh value for "${dt}" (value space exhausted)`);
  }

  make(dt: DomainDatatype, ctx: CaseRow): PyValue {
    const r = this.rng;
    const spec: ValueSpec = dt.value;
    const pools = this.domain.pools;
    const must = dt.unique === true;
    switch (spec.kind) {
      case "id": {
        const lo = 10 ** (spec.digits - 1);
        return this.unique(dt.name, () => `${spec.prefix}${lo + r.int(9 * lo)}`);
      }
      case "person":
        return this.unique(dt.name, () => `${r.pick(pools["first"]!)} ${r.pick(pools["last"]!)}`);
      case "email": {
        const name = String(ctx[spec.of] ?? "user");
        const base = name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, ".")
          .replace(/^\.|\.$/g, "");
        return this.unique(dt.name, () => `${base}${r.range(2, 98)}@example.net`);
      }
      case "phone":
        return this.unique(dt.name, () => `+1-${r.range(201, 989)}-555-${String(r.int(10000)).padStart(4, "0")}`);
      case "address":
        return `${r.range(12, 9870)} ${r.pick(pools["street"]!)}, ${r.pick(pools["city"]!)}`;
      case "choice":
        return must ? this.unique(dt.name, () => r.pick(spec.values)) : r.pick(spec.values);
      case "pool": {
        const pool = pools[spec.pool]!;
        if (!spec.distinct) return r.pick(pool);
        let left = this.poolLeft.get(dt.name);
        if (!left) this.poolLeft.set(dt.name, (left = r.shuffle(pool)));
        const v = left.pop();
        if (v === undefined) throw new Error(`database: pool "${spec.pool}" of "${dt.name}" is exhausted (distinct values requested)`);
        return v;
      }
      case "money":
        // Never a whole amount: the answer string then reads the same in Python and JS ("79.99").
        return new PyFloat(Math.round((r.range(Math.ceil(spec.min), Math.floor(spec.max) - 1) + r.pick(MONEY_CENTS)) * 100) / 100);
      case "int":
        return r.range(spec.min, spec.max);
      case "digits":
        return Array.from({ length: spec.length }, () => String(r.int(10))).join("");
      case "code": {
        const alpha = spec.alphabet ?? "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        return this.unique(dt.name, () => spec.prefix + Array.from({ length: spec.length }, () => alpha[r.int(alpha.length)]).join(""));
      }
      case "time": {
        const epoch = this.domain.database.epoch;
        const prev = spec.after !== undefined ? ctx[spec.after] : undefined;
        return this.unique(dt.name, () => {
          if (typeof prev === "string")
            return isoMinutes(epoch, minutesOf(epoch, prev) + r.range(spec.minMinutes ?? 1, spec.maxMinutes ?? 600));
          return isoMinutes(epoch, r.int(this.domain.database.windowDays * 24 * 60));
        });
      }
      case "copy":
        return ctx[spec.from] ?? null;
      case "mul": {
        const a = ctx[spec.of[0]];
        const b = ctx[spec.of[1]];
        const num = (x: PyValue | undefined): number => (x instanceof PyFloat ? x.value : typeof x === "number" ? x : NaN);
        const v = Math.round(num(a) * num(b) * 100) / 100;
        return Number.isFinite(v) ? new PyFloat(v) : null;
      }
    }
  }
}

/**
 * Keeps the schema's composite keys functional. A key (e.g. product + colour + size -> sku) declares that its
 * inputs identify the output's record; independent draws can repeat an input tuple for two records (two variants
 * of one product both "Navy / S"), which made the key tool non-functional, so the generator dropped it and, with
 * it, every composite built around it (the tool count then depended on the seed). A record whose key tuple is
 * already taken is redrawn; a record that draws no collision consumes exactly the draws it did before.
 */
class KeyGuard {
  private readonly byEntity = new Map<string, Array<{ index: number; inputs: readonly string[]; seen: Set<string> }>>();
  constructor(private readonly domain: Domain) {
    const entityOfId = new Map(domain.entities.map((e) => [e.id, e.name]));
    domain.keys.forEach((k, index) => {
      const owner = entityOfId.get(k.output);
      if (owner === undefined) return;
      const list = this.byEntity.get(owner) ?? [];
      list.push({ index, inputs: k.inputs, seen: new Set() });
      this.byEntity.set(owner, list);
    });
  }

  /** Draw a record of `entity` (given the values already set in `ctx`) whose key tuples are all unseen. */
  fresh(entity: string, ctx: CaseRow, draw: () => CaseRow): CaseRow {
    const keys = this.byEntity.get(entity);
    if (!keys) return draw();
    for (let attempt = 0; attempt < 1000; attempt++) {
      const vals = draw();
      const all = { ...ctx, ...vals };
      // A key whose inputs are not all set yet (a later entity's field, a null group) is not checkable here.
      const tuples = keys.map((k) =>
        k.inputs.every((d) => all[d] !== null && all[d] !== undefined) ? JSON.stringify(k.inputs.map((d) => pystr(all[d]!))) : null,
      );
      if (keys.some((k, i) => tuples[i] !== null && k.seen.has(tuples[i]!))) continue;
      keys.forEach((k, i) => tuples[i] !== null && k.seen.add(tuples[i]!));
      return vals;
    }
    const k = keys[0]!;
    throw new Error(
      `database: cannot draw a record of "${entity}" with a fresh key (${k.inputs.join(", ")}) ` +
        `-> ${this.domain.keys[k.index]!.output}; widen the value spaces of keys.${k.index} in the ` +
        `domain file`,
    );
  }
}

interface Instance {
  parent: number | null;
  values: CaseRow;
}

/** Generate the case table. Deterministic in `rng` (named sub-streams per phase). */
export function generateDatabase(domain: Domain, rng: Rng): GeneratedDatabase {
  const values = new ValueFactory(domain, rng.derive("values"));
  const byEntity = new Map<string, DomainDatatype[]>();
  for (const e of domain.entities) byEntity.set(e.name, []);
  for (const d of domain.datatypes) byEntity.get(d.entity)!.push(d);

  const keys = new KeyGuard(domain);
  // Shared pools first (parents before children, as the schema guarantees).
  const pools = new Map<string, Instance[]>();
  const poolRng = rng.derive("pools");
  for (const e of domain.entities) {
    if (e.scope !== "shared") continue;
    const list: Instance[] = [];
    const fill = (parent: number | null, ctx: CaseRow): void => {
      const vals = keys.fresh(e.name, ctx, () => {
        const v: CaseRow = {};
        for (const d of byEntity.get(e.name)!) v[d.name] = values.make(d, { ...ctx, ...v });
        return v;
      });
      list.push({ parent, values: vals });
    };
    if (e.parents.length === 0) for (let i = 0; i < e.count!; i++) fill(null, {});
    else {
      const parents = pools.get(e.parents[0]!)!;
      parents.forEach((p, pi) => {
        const n = poolRng.range(e.perParent![0], e.perParent![1]);
        for (let k = 0; k < n; k++) fill(pi, p.values);
      });
    }
    pools.set(e.name, list);
  }

  const caseRng = rng.derive("cases");
  const ids: string[] = [];
  const rows: CaseRow[] = [];
  const width = Math.max(4, String(domain.database.cases).length);
  for (let c = 0; c < domain.database.cases; c++) {
    const cr = caseRng.derive(c);
    const off = new Set(domain.nullGroups.filter((g) => cr.derive(`null:${g.name}`).bool(g.rate)).map((g) => g.name));
    const chosen = new Map<string, number>();
    const nulled = new Set<string>();
    const row: CaseRow = {};
    for (const e of domain.entities) {
      const dts = byEntity.get(e.name)!;
      if (e.scope === "shared") {
        const pool = pools.get(e.name)!;
        const parent = e.parents[0];
        const cands = pool.map((_, i) => i).filter((i) => parent === undefined || pool[i]!.parent === chosen.get(parent));
        const pick = cr.derive(`pick:${e.name}`).pick(cands);
        chosen.set(e.name, pick);
        Object.assign(row, pool[pick]!.values);
        continue;
      }
      if ((e.nullGroup !== undefined && off.has(e.nullGroup)) || e.parents.some((p) => nulled.has(p))) {
        nulled.add(e.name);
        for (const d of dts) row[d.name] = null;
        continue;
      }
      const vals = keys.fresh(e.name, row, () => {
        const v: CaseRow = {};
        for (const d of dts) v[d.name] = values.make(d, { ...row, ...v });
        return v;
      });
      Object.assign(row, vals);
    }
    const ordered: CaseRow = {};
    for (const d of domain.datatypes) ordered[d.name] = row[d.name] ?? null;
    ids.push(`${domain.database.casePrefix}${String(c + 1).padStart(width, "0")}`);
    rows.push(ordered);
  }
  return { ids, rows };
}

/** Entity of every datatype, and the entity records by name (helpers for the tool generator). */
export function entityIndex(domain: Domain): { entityOf: Map<string, Entity>; entity: Map<string, Entity> } {
  const entity = new Map(domain.entities.map((e) => [e.name, e]));
  const entityOf = new Map(domain.datatypes.map((d) => [d.name, entity.get(d.entity)!]));
  return { entityOf, entity };
}
