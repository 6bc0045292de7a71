/**
 * Task generator: builds domain-coherent, type-checked DAG tasks for a complexity level.
 * C1 linear chain; C2 a chain where one position exposes its 1-to-N substitutes; C3 an alternative
 * sub-graph (route) between a prefix and an Action suffix, with substitutes inside routes (many-to-many);
 * C4 2–3 independent parallel slots, each a C2 or C3 pattern on disjoint capabilities.
 */
import type { CapSpec, Domain, RouteSpec } from "../world/catalog.js";
import { corpus } from "../world/corpus.js";
import { fieldType, type Scalar } from "../world/types.js";
import type { Stratum } from "../version.js";
import type { Binding, Complexity, Position, RngLike, SlotInfo, Task } from "./model.js";
import { backwardChain, forwardChain, isLiteralType, outputSets, outputsType, type Step } from "./chains.js";
import { rememberSlotSolutions } from "./facts.js";
import { enumerateSolutions } from "./solve.js";
import { validateTask } from "./validate.js";
import { capFits } from "./strata.js";
import { composeText } from "./text.js";

/** Shape parameters of generated tasks (see `VersionProfile`); the defaults are v0's. */
export interface GenOptions {
  /** Chain length bounds of linear slots: C1 (no substitutes) and C2 (also C4's substitute slots). */
  readonly chain: { readonly C1: readonly [number, number]; readonly C2: readonly [number, number] };
  /** Length bounds of a C3 route's Action suffix, counting the route as one step. */
  readonly suffix: readonly [number, number];
  /** Every route branch but the shortest is at least this long. */
  readonly minAlternativeRoute: number;
  /** Chains of non-General tasks may borrow General-domain Processors and Actions. */
  readonly crossDomain: boolean;
  /** Per slot, the stratum its fault must be able to meet (v1). */
  readonly strata?: readonly Stratum[];
}
export const V0_GEN: GenOptions = { chain: { C1: [2, 4], C2: [2, 4] }, suffix: [2, 4], minAlternativeRoute: 1, crossDomain: false };

export class TaskGenerationError extends Error {
  constructor(message: string) {
    super(`toolmaze task generator: ${message}`);
    this.name = "TaskGenerationError";
  }
}
/** Mutable builder of positions with per-slot literal values (one value per type, distinct when repeated). */
class Builder {
  readonly positions: Position[] = [];
  readonly slots: SlotInfo[] = [];
  readonly used = new Set<string>();
  constructor(
    readonly rng: RngLike,
    readonly gen: GenOptions = V0_GEN,
  ) {}

  literal(slotLits: Map<string, Scalar>, type: string, nth: number): Scalar {
    const key = `${type}#${nth}`;
    if (!slotLits.has(key)) {
      const pool = fieldType(type).literals!;
      // A Set and loops rather than `.filter().map()` and `includes`: the values are strings for some types and numbers
      // for others, so arrays of them change elements kind from call to call (see `enumerateSlot` in solve.ts).
      const taken = new Set<Scalar>();
      for (const [k, v] of slotLits) if (k.startsWith(`${type}#`)) taken.add(v);
      const free: Scalar[] = [];
      for (const v of pool) if (!taken.has(v)) free.push(v);
      slotLits.set(key, this.rng.pick(free.length > 0 ? free : pool));
    }
    return slotLits.get(key)!;
  }

  members(c: CapSpec, expose: boolean): string[] {
    // Loops, not `.map`, for arrays other functions read (see `enumerateSlot` in solve.ts for why).
    const all: string[] = [];
    for (const t of corpus().groups.get(c.id)!) all.push(t.name);
    return expose ? this.rng.shuffle(all) : [this.rng.pick(all)];
  }

  /** Add steps as positions; `fromOverride` maps a step's primary param to provider positions (route joins). */
  addSteps(
    steps: readonly Step[],
    slot: number,
    lits: Map<string, Scalar>,
    expose: ReadonlySet<number>,
    stepPos: number[],
    extra: { route?: { id: string; branch: number }; join?: { param: string; from: number[] } } = {},
  ): number[] {
    const mine: number[] = [];
    steps.forEach((s, k) => {
      const bindings: Record<string, Binding> = {};
      const typeCount = new Map<string, number>();
      for (const [param, type] of Object.entries(s.cap.params)) {
        const nth = typeCount.get(type) ?? 0;
        typeCount.set(type, nth + 1);
        const src = s.bind[param]!;
        if (k === 0 && extra.join && extra.join.param === param) bindings[param] = { kind: "bound", type, from: extra.join.from };
        else if (src === "literal") bindings[param] = { kind: "literal", value: this.literal(lits, type, nth) };
        else if (stepPos[src] === -1 && extra.join) bindings[param] = { kind: "bound", type, from: extra.join.from };
        else bindings[param] = { kind: "bound", type, from: [stepPos[src]!] };
      }
      const index = this.positions.length;
      this.positions.push({
        index,
        cap: s.cap.id,
        category: s.cap.category,
        members: this.members(s.cap, expose.has(k)),
        bindings,
        slot,
        ...(extra.route ? { route: extra.route } : {}),
      });
      this.used.add(s.cap.id);
      stepPos.push(index);
      mine.push(index);
    });
    return mine;
  }
}

function linearSlot(b: Builder, domain: Domain, slot: number, substitute: boolean): boolean {
  const [min, max] = substitute ? b.gen.chain.C2 : b.gen.chain.C1;
  const steps = forwardChain(b.rng, domain, b.used, min, max, undefined, b.gen.crossDomain);
  if (!steps) return false;
  const expose = new Set<number>();
  const stratum = b.gen.strata?.[slot];
  if (stratum) {
    // The substitutable step (C2) or the victim (C1) must be able to carry the slot's stratum.
    const fits = steps.flatMap((s, k) => (capFits(s.cap, stratum) ? [k] : []));
    if (fits.length === 0) return false;
    if (substitute) expose.add(b.rng.pick(fits));
  } else if (substitute) expose.add(b.rng.int(steps.length));
  const pos = b.addSteps(steps, slot, new Map(), expose, []);
  b.slots.push({ slot, goal: pos[pos.length - 1]!, pattern: substitute ? "substitute" : "linear" });
  return true;
}

function routeSlot(b: Builder, domain: Domain, slot: number): boolean {
  // Alternatives of a route cost at least `minAlternativeRoute` calls (every branch but the shortest).
  const longEnough = (r: RouteSpec) => {
    const lens: number[] = [];
    for (const ch of r.routes) lens.push(ch.length);
    return lens
      .sort((x, y) => x - y)
      .slice(1)
      .every((n) => n >= b.gen.minAlternativeRoute);
  };
  const routes = b.rng.shuffle(
    corpus().routes.filter((r) => r.domain === domain && r.routes.every((ch) => ch.every((id) => !b.used.has(id))) && longEnough(r)),
  );
  for (const r of routes) if (tryRoute(b, r, slot)) return true;
  return false;
}

function tryRoute(b: Builder, r: RouteSpec, slot: number): boolean {
  const c = corpus();
  const routeCaps = new Set(r.routes.flat());
  const blocked = new Set([...b.used, ...routeCaps]);
  // v1 also looks a quotable input up when a Source provides it (the airport of "my home city"), so C3 paths are
  // longer than C2's and more varied; v0 quotes it.
  const prefix = !isLiteralType(r.from)
    ? backwardChain(b.rng, r.domain, blocked, r.from)
    : b.gen.strata
      ? (backwardChain(b.rng, r.domain, blocked, r.from, 2) ?? [])
      : [];
  if (!prefix) return false;
  // Suffix: the route output feeds an Action chain of 1–2 steps.
  const fake: Step = { cap: { ...c.caps.get(r.routes[0]![r.routes[0]!.length - 1]!)!, outputs: { out: r.to } }, bind: {} };
  outputSets().set(fake.cap, new Set([r.to]));
  const suffixSeed = [...prefix, fake];
  const [minSuffix, maxSuffix] = b.gen.suffix;
  // `prefix` is an empty literal or a chain: two elements kinds, so no `.map` over it (see `enumerateSlot`).
  const suffixUsed = new Set(blocked);
  for (const s of prefix) suffixUsed.add(s.cap.id);
  // A route whose output feeds no chain of the preferred length (Financial's sentiment) takes a shorter suffix.
  const withSuffix =
    forwardChain(b.rng, r.domain, suffixUsed, minSuffix, maxSuffix, suffixSeed, b.gen.crossDomain) ??
    (minSuffix > 2 ? forwardChain(b.rng, r.domain, suffixUsed, 2, maxSuffix, suffixSeed, b.gen.crossDomain) : undefined);
  if (!withSuffix) return false;
  const suffix = withSuffix.slice(suffixSeed.length);
  // v1: a Source/Processor stratum puts the victim on the shortest branch, which then exposes no substitute, so the
  // way around it is another route (an adapter step at least); when no capability there fits the stratum (and for
  // Actions), the victim is a suffix step that exposes its group.
  const stratum = b.gen.strata?.[slot];
  const shortest = stratum ? r.routes.reduce((best, ch, i) => (ch.length < r.routes[best]!.length ? i : best), 0) : -1;
  const onRoute =
    stratum !== undefined && stratum.category !== "action" && r.routes[shortest]!.some((id) => capFits(c.caps.get(id)!, stratum));
  const chainFits = stratum && !onRoute ? [...prefix, ...suffix].flatMap((s, k) => (capFits(s.cap, stratum) ? [k] : [])) : [];
  if (stratum && !onRoute && chainFits.length === 0) return false;
  const exposed = chainFits.length > 0 ? b.rng.pick(chainFits) : -1;
  const lits = new Map<string, Scalar>();
  const prefixPos = b.addSteps(prefix, slot, lits, new Set(exposed >= 0 && exposed < prefix.length ? [exposed] : []), []);
  // Route branches: each cap chain becomes positions; at least one route position exposes substitutes.
  let total = 0;
  for (const ch of r.routes) total += ch.length;
  const forced = b.rng.int(total);
  let flat = 0;
  const lastOfBranch: number[] = [];
  r.routes.forEach((chain, branch) => {
    const steps: Step[] = [];
    const expose = new Set<number>();
    chain.forEach((id, k) => {
      const capSpec = c.caps.get(id)!;
      const bind: Step["bind"] = {};
      for (const [param, type] of Object.entries(capSpec.params)) {
        if (k > 0 && outputsType(steps[k - 1]!.cap, type) && !Object.values(bind).includes(k - 1)) bind[param] = k - 1;
        else bind[param] = "literal";
      }
      steps.push({ cap: capSpec, bind });
      if (branch === shortest && onRoute) {
        /* the victim's branch: no same-schema way out */
      }
      // v1 leaves substitutes inside routes to chance (the other route is the alternative), so tasks on one route share
      // fewer tools; v0 forces one.
      else if ((flat === forced && !b.gen.strata) || b.rng.bool(b.gen.strata ? 0.2 : 0.4)) expose.add(k);
      flat++;
    });
    const fromParam = Object.entries(steps[0]!.cap.params).find(([, t]) => t === r.from)?.[0];
    const join = prefix.length > 0 && fromParam ? { param: fromParam, from: [prefixPos[prefixPos.length - 1]!] } : undefined;
    const pos = b.addSteps(steps, slot, lits, expose, [], { route: { id: r.id, branch }, ...(join ? { join } : {}) });
    lastOfBranch.push(pos[pos.length - 1]!);
  });
  // Suffix: its first step's route-typed param joins all branch ends (OR); other bindings map to prefix/suffix.
  const stepPos: number[] = [...prefixPos, -1];
  const firstParam = Object.entries(suffix[0]!.cap.params).find(([p]) => suffix[0]!.bind[p] === prefix.length)?.[0];
  if (!firstParam) return false;
  const sufExpose = new Set(exposed >= prefix.length ? [exposed - prefix.length] : []);
  const sufPos = b.addSteps(suffix, slot, lits, sufExpose, stepPos, { join: { param: firstParam, from: lastOfBranch } });
  b.slots.push({ slot, goal: sufPos[sufPos.length - 1]!, pattern: "multipath" });
  return true;
}

/** Generate one task. Throws TaskGenerationError if the domain cannot host the requested pattern. */
export function generateTask(rng: RngLike, complexity: Complexity, domain: Domain, id: string, gen: GenOptions = V0_GEN): Task {
  const attempts = 20;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const b = new Builder(rng.derive(`attempt${attempt}`), gen);
    let ok: boolean;
    if (complexity === "C1") ok = linearSlot(b, domain, 0, false);
    else if (complexity === "C2") ok = linearSlot(b, domain, 0, true);
    else if (complexity === "C3") ok = routeSlot(b, domain, 0);
    else {
      const n = b.rng.bool(0.5) ? 3 : 2;
      ok = true;
      for (let s = 0; s < n && ok; s++) {
        const wantRoute = s === 0 ? true : b.rng.bool(0.5);
        ok = (wantRoute && routeSlot(b, domain, s)) || linearSlot(b, domain, s, true);
      }
      if (ok && b.slots.length < 2) ok = false;
    }
    if (!ok) continue;
    const problems = validateTask(b, gen.crossDomain ? domain : undefined);
    if (problems.length > 0) throw new TaskGenerationError(`invalid task ${id}: ${problems.join("; ")}`);
    const goals: number[] = [];
    const slotsPositions: Position[][] = [];
    for (const s of b.slots) {
      goals.push(s.goal);
      slotsPositions.push(b.positions.filter((p) => p.slot === s.slot));
    }
    const { all, perSlot } = enumerateSolutions(b.positions, goals);
    const task: Task = {
      id,
      complexity,
      domain,
      text: composeText(b.rng.derive("text"), slotsPositions),
      positions: b.positions,
      slots: b.slots,
      solutions: all,
      sStar: all[0]!,
      ...(gen.strata ? { strata: gen.strata.slice(0, b.slots.length) } : {}),
    };
    rememberSlotSolutions(task, perSlot);
    return task;
  }
  throw new TaskGenerationError(`could not build a ${complexity} task in ${domain}`);
}
