/**
 * Names, surface arguments and descriptions of generated tools.
 *
 * Why two names: the visible name is built from *aliases* (`get_<output alias>_from_<input alias>
 * [_<variant>]`), so it never leaks the hidden datatype, while `internal_tool_name` follows the
 * paper's canonical rule `Get_<Output>_From_<Input>[_And_<Input>...][_<Variant>]` over datatype names.
 */
import type { Rng } from "../../../src/family.js";
import type { DomainDatatype } from "./schema.js";

export const MAX_NAME_LENGTH = 64;

/** `"Order placed at"` -> `order_placed_at`. */
export function snake(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

function titleWord(w: string): string {
  return w === "id" ? "ID" : w.charAt(0).toUpperCase() + w.slice(1);
}

/** `customer_id` -> `Customer_ID`. */
export function titleName(dt: string): string {
  return dt.split("_").map(titleWord).join("_");
}

/** The canonical internal name of a tool. */
export function internalName(inputs: readonly string[], output: string, variant: string | null): string {
  const base = `Get_${titleName(output)}_From_${inputs.map(titleName).join("_And_")}`;
  return variant ? `${base}_${titleWord(variant)}` : base;
}

/** Description text used inside tool descriptions: "the full name of ..." (no final period). */
export function describe(dt: DomainDatatype): string {
  let s = dt.description.trim().replace(/\.$/, "");
  s = s.charAt(0).toLowerCase() + s.slice(1);
  return /^(the|a|an|when|what|how|which|whether|number|amount|price|total)\b/.test(s) ? s : `the ${s}`;
}

/** `a`, `a and b`, `a, b, and c` with each label backticked. */
export function listLabels(labels: readonly string[]): string {
  const q = labels.map((l) => `\`${l}\``);
  if (q.length <= 1) return q.join("");
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
}

const LEADS = ["Given {in},", "From {in},", "Using {in},", "With {in} as input,", "Starting from {in},"];
const VERBS = ["returns", "looks up", "resolves", "fetches", "reports", "retrieves"];
const PURPOSES = [
  "Use it when you need {out} for a record you can already identify.",
  "Handy when {out} is the next link in your lookup chain.",
  "Call it when the case needs {out} and you hold the listed reference.",
  "It helps when {out} is what the request is missing.",
];
const COMPOSITE_PURPOSE =
  "Use it when those fields jointly pin down one record and you want the answer in a single " +
  "call instead of walking the intermediate records.";

/** A genuine-sounding description (baseline tools and explicit / implicit blockers). */
export function genuineDescription(rng: Rng, inLabels: readonly string[], out: DomainDatatype, composite: boolean): string {
  const lead = rng.pick(LEADS).replace("{in}", listLabels(inLabels));
  const purpose = composite ? COMPOSITE_PURPOSE : rng.pick(PURPOSES).replace("{out}", out.aliases[0]!);
  return `${lead} this ${rng.pick(VERBS)} ${describe(out)}. ${purpose}`;
}

/**
 * A visible name from aliases: `get_<out>_from_<in>[_and_<in>...][_<variant>]`, at most 64 chars
 * (longer names are cut, as the official data does). `taken` keeps names globally unique.
 */
export function visibleName(
  rng: Rng,
  inputs: readonly DomainDatatype[],
  output: { aliases: readonly string[] },
  variants: readonly string[],
  taken: Set<string>,
  opts: { variantRate?: number; suffix?: string } = {},
): { name: string; outAlias: string; inAliases: string[]; variant: string | null } {
  const suffix = opts.suffix ? `_${opts.suffix}` : "";
  for (let attempt = 0; attempt < 200; attempt++) {
    const short = attempt >= 60;
    const pickAlias = (aliases: readonly string[]): string =>
      short
        ? [...aliases].sort((a, b) => a.length - b.length || (a < b ? -1 : 1))[rng.int(Math.min(2, aliases.length))]!
        : rng.pick(aliases);
    const outAlias = pickAlias(output.aliases);
    const inAliases = inputs.map((d) => pickAlias(d.aliases));
    const variant = attempt >= 20 || rng.bool(opts.variantRate ?? 0.6) ? rng.pick(variants) : null;
    let name = `get_${snake(outAlias)}_from_${inAliases.map(snake).join("_and_")}${variant ? `_${variant}` : ""}`;
    if (name.length + suffix.length > MAX_NAME_LENGTH) {
      if (attempt < 150) continue;
      name = name.slice(0, MAX_NAME_LENGTH - suffix.length).replace(/_+$/, "");
    }
    name += suffix;
    if (taken.has(name)) continue;
    taken.add(name);
    return { name, outAlias, inAliases, variant };
  }
  throw new Error(`naming: no free tool name for output "${output.aliases[0]}" (all 200 attempts collided)`);
}

/** Surface argument names: an alias per input (sometimes the datatype name itself), unique in the tool. */
export function surfaceArguments(rng: Rng, inputs: readonly DomainDatatype[], canonicalRate = 0.15): string[] {
  const used = new Set<string>();
  return inputs.map((d) => {
    for (let i = 0; i < 20; i++) {
      const s = rng.bool(canonicalRate) ? d.name : snake(rng.pick(d.aliases));
      if (!used.has(s)) {
        used.add(s);
        return s;
      }
    }
    used.add(d.name);
    return d.name;
  });
}
