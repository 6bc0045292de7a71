/**
 * The generator's capability chains: random forward walks from a Source to an Action and backward chains to a Source,
 * each step's parameters bound to earlier outputs or task literals, over memoised per-corpus capability facts.
 */
import type { CapSpec, Domain } from "../world/catalog.js";
import { corpus } from "../world/corpus.js";
import { fieldType } from "../world/types.js";
import type { RngLike } from "./model.js";

export interface Step {
  cap: CapSpec;
  /** param -> index of an earlier step in this chain, or "literal" */
  bind: Record<string, number | "literal">;
}

// Both are pure functions of the corpus, called in the generator's innermost loops (v1 draws many tasks), so memoised.
const literalTypes = new Map<string, boolean>();
export const isLiteralType = (type: string): boolean => {
  let v = literalTypes.get(type);
  if (v === undefined) literalTypes.set(type, (v = fieldType(type).literals !== undefined));
  return v;
};
const capsByDomain = new Map<string, readonly CapSpec[]>();
const domainCaps = (domain: Domain, cross = false): readonly CapSpec[] => {
  const key = `${domain}/${cross}`;
  let caps = capsByDomain.get(key);
  if (!caps) {
    caps = [...corpus().caps.values()].filter((c) => c.domain === domain || (cross && c.domain === "General" && c.category !== "source"));
    capsByDomain.set(key, caps);
  }
  return caps;
};
let outputTypeSets: WeakMap<CapSpec, ReadonlySet<string>> | undefined;
/** Does the capability output `type`? (The generator's hottest check, so each capability's type set is kept.) */
export const outputsType = (c: CapSpec, type: string): boolean => {
  const sets = outputSets();
  let types = sets.get(c);
  if (!types) sets.set(c, (types = new Set(Object.values(c.outputs))));
  return types.has(type);
};
export function outputSets(): WeakMap<CapSpec, ReadonlySet<string>> {
  if (!outputTypeSets) {
    // Every corpus capability at once (route joins' stand-ins are registered by `tryRoute`): filled lazily, the
    // `Object.values` above met a new `outputs` shape after `outputsType` and `bindParams` were optimized, and both
    // deoptimized.
    outputTypeSets = new WeakMap();
    for (const cap of corpus().caps.values()) outputTypeSets.set(cap, new Set(Object.values(cap.outputs)));
  }
  return outputTypeSets;
}

const paramLists = new WeakMap<CapSpec, readonly (readonly [string, string])[]>();
/** `Object.entries(c.params)`, once per capability of the corpus (every sampled reset binds dozens). */
function paramEntries(c: CapSpec): readonly (readonly [string, string])[] {
  let e = paramLists.get(c);
  if (!e) paramLists.set(c, (e = Object.entries(c.params)));
  return e;
}

/** Bind params of `c` after `steps`: `primary` param to the last step, others to earlier producers or literals. */
function bindParams(c: CapSpec, steps: readonly Step[], primaryFrom: number | undefined): Step["bind"] | undefined {
  const bind: Step["bind"] = {};
  let primaryDone = primaryFrom === undefined;
  // The producers bound so far (the numeric values of `bind`), kept apart instead of reading Object.values per probe.
  const taken: number[] = [];
  for (const [param, type] of paramEntries(c)) {
    if (!primaryDone && outputsType(steps[primaryFrom!]!.cap, type)) {
      bind[param] = primaryFrom!;
      taken.push(primaryFrom!);
      primaryDone = true;
      continue;
    }
    let producer = -1;
    for (let i = steps.length - 1; i >= 0; i--) {
      if (outputsType(steps[i]!.cap, type) && !taken.includes(i)) {
        producer = i;
        break;
      }
    }
    if (producer >= 0) {
      bind[param] = producer;
      taken.push(producer);
    } else if (isLiteralType(type)) bind[param] = "literal";
    else return undefined;
  }
  return primaryDone ? bind : undefined;
}

/** Random forward walk from a Source to an Action, `minLen..maxLen` steps, capabilities not in `used`. */
export function forwardChain(
  rng: RngLike,
  domain: Domain,
  used: ReadonlySet<string>,
  minLen: number,
  maxLen: number,
  seed?: Step[],
  cross = false,
): Step[] | undefined {
  const caps = domainCaps(domain, cross).filter((c) => !used.has(c.id));
  const sources = caps.filter((c) => c.category === "source" && c.domain === domain && Object.values(c.params).every(isLiteralType));
  for (let attempt = 0; attempt < 60; attempt++) {
    const steps: Step[] = seed ? [...seed] : [];
    if (steps.length === 0) {
      if (sources.length === 0) return undefined;
      const s = rng.pick(sources);
      steps.push({ cap: s, bind: Object.fromEntries(Object.keys(s.params).map((p) => [p, "literal" as const])) });
    }
    for (;;) {
      const last = steps[steps.length - 1]!;
      const n = steps.length - (seed?.length ?? 0) + (seed ? 1 : 0);
      if (last.cap.category === "action" && n >= minLen && (n >= maxLen || rng.bool(0.55))) return steps;
      if (n >= maxLen) break;
      const inChain = new Set(steps.map((s) => s.cap.id));
      const cands: Step[] = [];
      for (const c of caps) {
        if (inChain.has(c.id) || c.category === "source") continue;
        const bind = bindParams(c, steps, steps.length - 1);
        if (bind) cands.push({ cap: c, bind });
      }
      if (cands.length === 0) break;
      // A borrowed General step (translate, e-mail, shorten…) now and then, as the paper's cross-domain tasks do.
      const home = cross ? cands.filter((x) => x.cap.domain === domain) : cands;
      const away = cross ? cands.filter((x) => x.cap.domain !== domain) : [];
      steps.push(away.length > 0 && (home.length === 0 || rng.bool(0.25)) ? rng.pick(away) : rng.pick(home));
    }
  }
  return undefined;
}

/** Backward chain ending in a capability that outputs `type`, starting at a Source (length 1..3). */
export function backwardChain(rng: RngLike, domain: Domain, used: ReadonlySet<string>, type: string, depth = 3): Step[] | undefined {
  if (depth === 0) return undefined;
  const producers = rng.shuffle(domainCaps(domain).filter((c) => !used.has(c.id) && outputsType(c, type)));
  for (const c of producers) {
    const nonLiteral = Object.entries(c.params).filter(([, t]) => !isLiteralType(t));
    if (nonLiteral.length === 0 && c.category === "source") {
      return [{ cap: c, bind: Object.fromEntries(Object.keys(c.params).map((p) => [p, "literal" as const])) }];
    }
    if (nonLiteral.length !== 1) continue;
    const inner = backwardChain(rng, domain, new Set([...used, c.id]), nonLiteral[0]![1], depth - 1);
    if (!inner) continue;
    const bind = bindParams(c, inner, inner.length - 1);
    if (bind) return [...inner, { cap: c, bind }];
  }
  return undefined;
}
