/**
 * Five noisy siblings per executable tool (deprecated, condition-limited, stale, unreliable,
 * non-authoritative), in the official record shape.
 *
 * Why constants: the official runtime ignores a noisy tool's arguments and returns its fixed
 * `return_value` as an *untrusted* value; the caveat sentence in the description is the only
 * observable hint, so each type has several wordings that a careful reader can still recognise.
 */
import type { Rng } from "../../../src/family.js";
import { PyFloat, type PyValue } from "../compat/pyvalue.js";
import type { GeneratedDatabase } from "./database.js";
import { describe, listLabels } from "./naming.js";
import type { Domain, DomainDatatype } from "./schema.js";
import { renderTool, type RenderedTool } from "./tools.js";

export const NOISE_TYPES = ["deprecated", "condition_limited", "stale", "miswired_or_unreliable", "non_authoritative_value"] as const;
export type GeneratedNoiseType = (typeof NOISE_TYPES)[number];
export const NOISE_SUFFIX: Record<GeneratedNoiseType, string> = {
  deprecated: "legacy",
  condition_limited: "gate",
  stale: "cache",
  miswired_or_unreliable: "signal",
  non_authoritative_value: "preview",
};

/** Caveat sentences; each one admits unreliability in words the planner baseline can detect. */
export const CAVEATS: Record<GeneratedNoiseType, string[]> = {
  deprecated: [
    "This legacy endpoint is kept only for older workflows and no longer returns usable data.",
    "It is a legacy route retained for backward compatibility; the endpoint is deprecated.",
    "Note: this endpoint is deprecated and no longer serves valid records.",
  ],
  condition_limited: [
    "It is gated to a narrow set of account states and should not be relied on for ordinary cases.",
    "It only answers under special routing conditions and is gated for most records.",
    "Access is gated by a limited backend condition, so most requests are refused.",
  ],
  stale: [
    "It reads from a lagging cache, so the value may be out of date.",
    "Results come from an older cache snapshot rather than the live record.",
    "It serves a cached value that can trail the system of record.",
  ],
  miswired_or_unreliable: [
    "Its backend mapping is unreliable and may surface a nearby field instead.",
    "The upstream wiring is unstable and can return a related but wrong value.",
    "Known to be miswired on some shards; the output may drift to a related column.",
  ],
  non_authoritative_value: [
    "It returns a preview value rather than the committed record.",
    "The figure is an estimated value from a forecasting service and is non-authoritative.",
    "It shows a non-authoritative preview instead of the stored value.",
  ],
};

const DEPRECATED_ERRORS = [
  "error: This endpoint has been retired.",
  "error: Endpoint no longer supported.",
  "error: Legacy route disabled.",
];
const GATED_ERRORS = [
  "error: Lookup unavailable for this record's conditions.",
  "error: Request refused by access gate.",
  "error: This tool only runs under special conditions.",
];
const LEADS = ["Given {in},", "From {in},", "Using {in},", "Starting from {in},"];
const VERBS = ["returns", "looks up", "resolves", "reports"];

function realValue(db: GeneratedDatabase, dt: string, rng: Rng, not?: PyValue): PyValue {
  const vals = db.rows.map((r) => r[dt]).filter((v): v is Exclude<PyValue, null> => v !== null && v !== undefined && v !== not);
  return vals.length ? rng.pick(vals) : null;
}

/** The constant a sibling of `out` returns (see the module comment for the meaning of each type). */
export function noisyReturn(type: GeneratedNoiseType, out: DomainDatatype, domain: Domain, db: GeneratedDatabase, rng: Rng): PyValue {
  switch (type) {
    case "deprecated":
      return rng.pick(DEPRECATED_ERRORS);
    case "condition_limited":
      return rng.pick(GATED_ERRORS);
    case "stale":
      return realValue(db, out.name, rng);
    case "miswired_or_unreliable": {
      // A related wrong field: same value type, same record type when possible.
      const same = domain.datatypes.filter((d) => d.name !== out.name && d.value_type === out.value_type);
      const near = same.filter((d) => d.entity === out.entity);
      const pool = near.length ? near : same;
      return pool.length ? realValue(db, rng.pick(pool).name, rng) : realValue(db, out.name, rng);
    }
    case "non_authoritative_value": {
      const v = out.value;
      if (v.kind === "choice") return rng.pick(v.values);
      const real = realValue(db, out.name, rng);
      if (real instanceof PyFloat) return new PyFloat(Math.round(real.value * (0.85 + 0.3 * rng.random()) * 100) / 100);
      if (typeof real === "number") return real + rng.range(1, 3);
      return real;
    }
  }
}

/** Five siblings per baseline tool, in baseline order then `NOISE_TYPES` order. */
export function renderNoisy(
  domain: Domain,
  baseline: readonly RenderedTool[],
  db: GeneratedDatabase,
  rng: Rng,
  names: Set<string>,
): RenderedTool[] {
  const dt = new Map(domain.datatypes.map((d) => [d.name, d]));
  const out: RenderedTool[] = [];
  baseline.forEach((b, i) => {
    const o = dt.get(b.output_datatype)!;
    NOISE_TYPES.forEach((type) => {
      const r = rng.derive(`${i}:${type}`);
      const suffix = NOISE_SUFFIX[type];
      const t = renderTool(
        r,
        domain,
        { inputs: b.input_datatypes, output: o },
        new Set<string>(),
        (inL) => `${r.pick(LEADS).replace("{in}", listLabels(inL))} this ${r.pick(VERBS)} ${describe(o)}. ${r.pick(CAVEATS[type])}`,
        { internalVariant: null },
      );
      const name = `${b.name}_${suffix}`;
      if (names.has(name)) throw new Error(`noisy: tool name "${name}" collides with another tool`);
      names.add(name);
      out.push({
        ...t,
        name,
        internal_tool_name: `${String(b["internal_tool_name"])}_${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}`,
        tool_type: "noisy_misleading",
        noise_type: type,
        return_value: noisyReturn(type, o, domain, db, r) as unknown,
        baseline_tool_name: b.name,
        internal_baseline_tool_name: b["internal_tool_name"],
      });
    });
  });
  return out;
}
