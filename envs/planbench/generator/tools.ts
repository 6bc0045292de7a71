/**
 * The executable (baseline) tool set: one output, 1–5 inputs, each a *functional* lookup in the
 * generated database ("deterministic dependency" filter).
 *
 * Where tools come from (all domain-agnostic, driven by the schema's record types):
 * attribute reads (id -> field), parent links (child id -> parent id), one-to-one child links of
 * per-case records, lookups by unique fields, the schema's composite keys, one-hop attribute
 * shortcuts (id -> a parent's / child's field), and 3–5-input composite shortcuts that fold a
 * multi-step derivation into one call (they carry `num_inputs`, `steps`, `tool_sequence`).
 */
import type { Rng } from "../../../src/family.js";
import { pystr } from "../compat/pyvalue.js";
import type { CaseRow, GeneratedDatabase } from "./database.js";
import { entityIndex } from "./database.js";
import { genuineDescription, internalName, surfaceArguments, visibleName } from "./naming.js";
import type { Domain, DomainDatatype } from "./schema.js";

export type ToolKind = "attribute" | "parent" | "child" | "lookup" | "key" | "shortcut" | "composite";

/** A tool before rendering. */
export interface ToolSpec {
  inputs: string[];
  output: string;
  kind: ToolKind;
  /** Composite only: the non-composite tools (by signature) it folds, in a legal order. */
  sequence?: ToolSpec[];
}

export const sig = (t: { inputs: readonly string[]; output: string }): string => `${[...t.inputs].sort().join("+")}>${t.output}`;

/** Do the inputs determine the output in every case where all are set? (null fields are skipped) */
export function isFunctional(rows: readonly CaseRow[], inputs: readonly string[], output: string): boolean {
  const seen = new Map<string, string>();
  let hits = 0;
  for (const r of rows) {
    const o = r[output];
    if (o === null || o === undefined) continue;
    if (inputs.some((d) => r[d] === null || r[d] === undefined)) continue;
    const k = inputs.map((d) => pystr(r[d])).join("\u0001");
    const v = pystr(o);
    const prev = seen.get(k);
    if (prev !== undefined && prev !== v) return false;
    seen.set(k, v);
    hits++;
  }
  return hits > 0;
}

/** Forward closure of `start` under tools (a tool fires when all its inputs are held). */
export function closure(start: Iterable<string>, tools: readonly { inputs: readonly string[]; output: string }[]): Set<string> {
  const held = new Set(start);
  let changed = true;
  while (changed) {
    changed = false;
    for (const t of tools)
      if (!held.has(t.output) && t.inputs.every((d) => held.has(d))) {
        held.add(t.output);
        changed = true;
      }
  }
  return held;
}

/** The structural candidates (everything except the sampled shortcuts and composites). */
function structuralTools(domain: Domain): ToolSpec[] {
  const { entity } = entityIndex(domain);
  const out: ToolSpec[] = [];
  const fieldsOf = (e: string): DomainDatatype[] => domain.datatypes.filter((d) => d.entity === e);
  for (const e of domain.entities) {
    for (const d of fieldsOf(e.name)) if (d.name !== e.id) out.push({ inputs: [e.id], output: d.name, kind: "attribute" });
    for (const p of e.parents) out.push({ inputs: [e.id], output: entity.get(p)!.id, kind: "parent" });
    for (const p of e.parents) {
      const pe = entity.get(p)!;
      if (e.scope === "case" && pe.scope === "case" && e.reverse !== false) out.push({ inputs: [pe.id], output: e.id, kind: "child" });
    }
    for (const d of fieldsOf(e.name)) if (d.unique && d.name !== e.id) out.push({ inputs: [d.name], output: e.id, kind: "lookup" });
  }
  for (const k of domain.keys) out.push({ inputs: [...k.inputs], output: k.output, kind: "key" });
  return out;
}

/** One-hop attribute shortcuts: id of E -> a non-id field of a record E links to (parent or one-to-one child). */
function shortcutCandidates(domain: Domain, base: readonly ToolSpec[]): ToolSpec[] {
  const { entity } = entityIndex(domain);
  const have = new Set(base.map(sig));
  const out: ToolSpec[] = [];
  const link = base.filter((t) => t.kind === "parent" || t.kind === "child");
  for (const l of link) {
    const target = domain.datatypes.find((d) => d.name === l.output)!;
    const te = entity.get(target.entity)!;
    for (const d of domain.datatypes) {
      if (d.entity !== te.name || d.name === te.id) continue;
      const t: ToolSpec = { inputs: [...l.inputs], output: d.name, kind: "shortcut" };
      if (t.inputs[0] === t.output || have.has(sig(t))) continue;
      have.add(sig(t));
      out.push(t);
    }
  }
  return out;
}

function topoOrder(tools: readonly ToolSpec[], start: ReadonlySet<string>): ToolSpec[] {
  const held = new Set(start);
  const left = [...tools];
  const order: ToolSpec[] = [];
  while (left.length) {
    const i = left.findIndex((t) => t.inputs.every((d) => held.has(d)));
    if (i < 0) throw new Error("tools: composite derivation is not executable");
    const [t] = left.splice(i, 1);
    order.push(t!);
    held.add(t!.output);
  }
  return order;
}

/** Sample 3–5-input composite shortcuts around the schema's composite keys. */
function composites(domain: Domain, rng: Rng, plain: readonly ToolSpec[], db: GeneratedDatabase, want: number): ToolSpec[] {
  const dt = new Map(domain.datatypes.map((d) => [d.name, d]));
  const keys = plain.filter((t) => t.kind === "key");
  if (keys.length === 0 || want === 0) return [];
  const producers = new Map<string, ToolSpec[]>();
  for (const t of plain) producers.set(t.output, [...(producers.get(t.output) ?? []), t]);
  const from = new Map<string, ToolSpec[]>();
  for (const t of plain) if (t.inputs.length === 1) from.set(t.inputs[0]!, [...(from.get(t.inputs[0]!) ?? []), t]);
  const taken = new Set(plain.map(sig));
  const out: ToolSpec[] = [];
  const canInput = (d: string): boolean => dt.get(d)!.value_type !== "number";
  for (let attempt = 0; attempt < 4000 && out.length < want; attempt++) {
    const r = rng.derive(attempt);
    const used: ToolSpec[] = [r.pick(keys)];
    const leaves: string[] = [];
    const pending = [...used[0]!.inputs];
    while (pending.length) {
      const x = pending.shift()!;
      const prods = (producers.get(x) ?? []).filter((t) => !used.includes(t) && t.inputs.every(canInput) && !t.inputs.includes(x));
      const multi = prods.filter((t) => t.kind === "key");
      const single = prods.filter((t) => t.inputs.length === 1 && (t.kind === "lookup" || t.kind === "parent"));
      if (multi.length && r.bool(0.6)) {
        const t = r.pick(multi);
        used.push(t);
        pending.push(...t.inputs);
      } else if (single.length && r.bool(0.35)) {
        const t = r.pick(single);
        used.push(t);
        pending.push(...t.inputs);
      } else if (!leaves.includes(x)) leaves.push(x);
    }
    let target = used[0]!.output;
    const hops = r.int(3);
    for (let h = 0; h < hops; h++) {
      const next = (from.get(target) ?? []).filter(
        (t) => !used.includes(t) && !leaves.includes(t.output) && !used.some((u) => u.output === t.output),
      );
      if (!next.length) break;
      const t = r.pick(next);
      used.push(t);
      target = t.output;
    }
    if (leaves.length < 3 || leaves.length > 5 || leaves.includes(target) || !leaves.every(canInput)) continue;
    const spec: ToolSpec = { inputs: leaves, output: target, kind: "composite" };
    if (taken.has(sig(spec))) continue;
    if (!closure(leaves, plain).has(target)) continue;
    // Every input must matter: no proper subset reaches the output with the plain tools.
    if (
      leaves.some((l) =>
        closure(
          leaves.filter((x) => x !== l),
          plain,
        ).has(target),
      )
    )
      continue;
    if (!isFunctional(db.rows, leaves, target)) continue;
    spec.sequence = topoOrder(used, new Set(leaves));
    taken.add(sig(spec));
    out.push(spec);
  }
  return out;
}

/** Build the executable tool specs (order: inputs in datatype order, then output, composites last). */
export function buildToolSpecs(domain: Domain, db: GeneratedDatabase, rng: Rng): { specs: ToolSpec[]; dropped: number } {
  const order = new Map(domain.datatypes.map((d, i) => [d.name, i]));
  const base = structuralTools(domain);
  const kept = base.filter((t) => isFunctional(db.rows, t.inputs, t.output));
  const dropped = base.length - kept.length;
  const cands = shortcutCandidates(domain, kept).filter((t) => isFunctional(db.rows, t.inputs, t.output));
  const budget = Math.max(0, domain.generation.baselineTools - domain.generation.compositeTools - kept.length);
  const shortcuts = rng.derive("shortcuts").shuffle(cands).slice(0, budget);
  const plain = [...kept, ...shortcuts];
  const rank = (t: ToolSpec): number[] => [...t.inputs.map((d) => order.get(d)!), -1, order.get(t.output)!];
  const cmp = (a: ToolSpec, b: ToolSpec): number => {
    const x = rank(a);
    const y = rank(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  plain.sort(cmp);
  const comps = composites(domain, rng.derive("composites"), plain, db, domain.generation.compositeTools);
  comps.sort(cmp);
  return { specs: [...plain, ...comps], dropped };
}

/** A rendered tool in the official file format (key order as in the release). */
export type RenderedTool = Record<string, unknown> & { name: string; input_datatypes: string[]; output_datatype: string };

export function surfaceType(d: DomainDatatype): string {
  return d.value_type === "number" ? "number" : "string";
}

/** Render the surface part shared by every tool kind. */
export function renderTool(
  rng: Rng,
  domain: Domain,
  io: { inputs: string[]; output: DomainDatatype; outputName?: string },
  names: Set<string>,
  text: (inLabels: string[], outAlias: string) => string,
  opts: { variantRate?: number; suffix?: string; internalVariant?: string | null; forceVariant?: string | null } = {},
): RenderedTool {
  const dt = new Map(domain.datatypes.map((d) => [d.name, d]));
  const ins = io.inputs.map((n) => dt.get(n)!);
  const named = visibleName(rng, ins, io.output, domain.variants, names, {
    variantRate: opts.variantRate ?? 0.6,
    suffix: opts.suffix ?? "",
  });
  const surf = surfaceArguments(rng, ins);
  const properties: Record<string, unknown> = {};
  surf.forEach((s, i) => {
    properties[s] = { type: "string", description: ins[i]!.description };
  });
  const outName = io.outputName ?? io.output.name;
  const s2d: Record<string, string> = {};
  const d2s: Record<string, string> = {};
  surf.forEach((s, i) => {
    s2d[s] = io.inputs[i]!;
    d2s[io.inputs[i]!] = s;
  });
  const variant = opts.internalVariant !== undefined ? opts.internalVariant : named.variant;
  return {
    type: "function",
    name: named.name,
    description: text(named.inAliases, named.outAlias),
    parameters: { type: "object", properties, required: [...surf], additionalProperties: false },
    strict: true,
    input_datatypes: [...io.inputs],
    output_datatype: outName,
    surface_output: {
      name: snakeOut(named.outAlias),
      label: named.outAlias,
      type: surfaceType(io.output),
      description: io.output.description,
    },
    surface_argument_to_datatype: s2d,
    datatype_to_surface_argument: d2s,
    internal_tool_name: internalName(io.inputs, outName, variant),
  };
}

function snakeOut(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** Render the baseline tools; composite sequences refer to the names of the folded tools. */
export function renderBaseline(domain: Domain, specs: readonly ToolSpec[], rng: Rng, names: Set<string>): RenderedTool[] {
  const dt = new Map(domain.datatypes.map((d) => [d.name, d]));
  const nameBySig = new Map<string, string>();
  return specs.map((s, i) => {
    const r = rng.derive(i);
    const out = dt.get(s.output)!;
    const composite = s.kind === "composite";
    const tool = renderTool(r, domain, { inputs: s.inputs, output: out }, names, (inL) => genuineDescription(r, inL, out, composite), {
      variantRate: composite ? 0.2 : 0.6,
    });
    nameBySig.set(sig(s), tool.name);
    if (composite) {
      tool["num_inputs"] = s.inputs.length;
      tool["steps"] = s.sequence!.length;
      tool["tool_sequence"] = s.sequence!.map((t) => nameBySig.get(sig(t))!);
    }
    return tool;
  });
}
