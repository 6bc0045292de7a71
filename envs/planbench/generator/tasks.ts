/**
 * Tasks, queries and the path catalog of the built-in world.
 *
 * A task is (1 or 2 input datatypes -> target). It is kept only if it passes the paper's filters:
 * - deterministic dependency: the inputs determine the target in the database, and every catalog
 *   set executes (through the runtime's executor) to the same gold answer on the query's case;
 * - no pure-reasoning shortcut: the answer is not in the question text and cannot be read off an
 *   input value (e.g. a name inside an email address);
 * - non-trivial information gain: H(target) - H(target | inputs) over the cases is at least
 *   `minInfoGainBits`, and the gold answer is not a majority value (share <= `maxAnswerShare`);
 * plus the structural ones: shortest solution length L* in [minSteps, maxSteps] and a complete
 * catalog of at most `maxPathSets` minimal sets found within the search budget.
 */
import type { Rng } from "../../../src/family.js";
import { normAns, pystr, type PyValue } from "../compat/pyvalue.js";
import type { ToolRecord } from "../releaseFormat.js";
import { CaseIndex } from "../world/executor.js";
import { legalOrderings, minimalToolSets, type PathSetOut, type ToolGraph } from "./catalog.js";
import type { CaseRow, GeneratedDatabase } from "./database.js";
import type { Domain } from "./schema.js";

export interface GeneratedTask {
  task: Record<string, unknown>;
  query: Record<string, unknown>;
  catalog: PathSetOut[];
}

interface Candidate {
  inputs: string[];
  target: string;
  sets: string[][];
  shortest: number;
}

function entropy(counts: Iterable<number>): number {
  let n = 0;
  const cs = [...counts];
  for (const c of cs) n += c;
  let h = 0;
  for (const c of cs) if (c > 0) h -= (c / n) * Math.log2(c / n);
  return h;
}

/** H(target) - H(target | inputs) over the cases where all are set (bits). */
export function informationGain(rows: readonly CaseRow[], inputs: readonly string[], target: string): number {
  const tCounts = new Map<string, number>();
  const joint = new Map<string, Map<string, number>>();
  let n = 0;
  for (const r of rows) {
    if (r[target] === null || inputs.some((d) => r[d] === null)) continue;
    n++;
    const t = pystr(r[target]);
    tCounts.set(t, (tCounts.get(t) ?? 0) + 1);
    const k = inputs.map((d) => pystr(r[d])).join("\u0001");
    const m = joint.get(k) ?? new Map<string, number>();
    m.set(t, (m.get(t) ?? 0) + 1);
    joint.set(k, m);
  }
  if (n === 0) return 0;
  let hCond = 0;
  for (const m of joint.values()) {
    let s = 0;
    for (const c of m.values()) s += c;
    hCond += (s / n) * entropy(m.values());
  }
  return entropy(tCounts.values()) - hCond;
}

/** The answer string: Python `str()`, except whole floats read as integers ("42" for 42.0). */
export function answerString(v: PyValue): string {
  const s = pystr(v);
  return /^-?\d+\.0$/.test(s) ? s.slice(0, -2) : s;
}

/** Can the answer be read off the inputs without any tool? (every answer token inside an input value) */
export function readableFromInputs(answer: string, inputValues: readonly string[]): boolean {
  const toks = answer.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  if (toks.length === 0) return true;
  return inputValues.some((v) => {
    const vt = new Set(v.toLowerCase().match(/[a-z0-9]+/g) ?? []);
    const vs = v.toLowerCase();
    return toks.every((t) => vt.has(t) || (t.length >= 3 && vs.includes(t)));
  });
}

/** How a two-input task uses its inputs across the catalog (official labels). */
export function usefulness(g: ToolGraph, inputs: readonly string[], sets: readonly string[][]): { usefulness: string; taskType: string } {
  const uses = sets.map((s) => {
    const consumed = new Set<string>();
    for (const n of s) for (const d of g.tools.get(n)!.inputs) consumed.add(d);
    return inputs.filter((d) => consumed.has(d));
  });
  const both = uses.filter((u) => u.length === 2).length;
  const singleSides = new Set(uses.filter((u) => u.length === 1).map((u) => u[0]));
  if (both === sets.length) return { usefulness: "all_both", taskType: "both_inputs_required" };
  if (both > 0) return { usefulness: "both_and_single", taskType: "mixed_both_and_single" };
  if (singleSides.size === 1) return { usefulness: "all_single_one_side", taskType: "single_input_redundant" };
  // Both sides lead to the target on their own: redundant if one input already yields the other.
  const [a, b] = inputs as [string, string];
  const derivable = g.forward([a]).has(b) || g.forward([b]).has(a);
  return { usefulness: "all_single_both_sides", taskType: derivable ? "single_input_redundant" : "single_input_split_paths" };
}

function asToolRecord(g: ToolGraph, name: string): ToolRecord {
  const t = g.tools.get(name)!;
  return {
    type: "function",
    name,
    description: "",
    parameters: { type: "object", properties: {} },
    input_datatypes: [...t.inputs],
    output_datatype: t.output,
    surface_argument_to_datatype: {},
    tool_type: "baseline",
  };
}

/** Execute a legal ordering of a set on one case; the final value, or undefined if any lookup fails. */
export function executeSet(g: ToolGraph, exec: CaseIndex, order: readonly string[], start: Record<string, PyValue>): PyValue | undefined {
  const held: Record<string, PyValue> = { ...start };
  let last: PyValue | undefined;
  for (const n of order) {
    const r = exec.execute(asToolRecord(g, n), held);
    if (r.provenance !== "trusted") return undefined;
    held[r.outputDatatype] = r.outputValue;
    last = r.outputValue;
  }
  return last;
}

function fill(tpl: string, vars: Record<string, string>): string {
  return tpl.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? `{${k}}`);
}

/** The question: opening, the clue(s) with backticked input values, a motivation, the ask. */
export function composeQuery(domain: Domain, r: Rng, inputs: readonly string[], target: string, row: CaseRow): string {
  const ph = domain.phrasing;
  const label = (d: string): string => r.pick(domain.datatypes.find((x) => x.name === d)!.aliases);
  const vars: Record<string, string> = { t: label(target), a: label(inputs[0]!), va: String(row[inputs[0]!]) };
  if (inputs.length === 2) Object.assign(vars, { b: label(inputs[1]!), vb: String(row[inputs[1]!]) });
  return [
    r.pick(ph.openings),
    fill(r.pick(inputs.length === 1 ? ph.clueOne : ph.clueTwo), vars),
    r.pick(ph.motivations),
    fill(r.pick(ph.questions), vars),
  ].join(" ");
}

/** Generate tasks + queries + catalog. `inputCandidates` are the datatypes tasks may start from. */
export function generateTasks(
  domain: Domain,
  g: ToolGraph,
  db: GeneratedDatabase,
  rng: Rng,
): { tasks: GeneratedTask[]; stats: Record<string, number> } {
  const gen = domain.generation;
  const dtOrder = new Map(domain.datatypes.map((d, i) => [d.name, i]));
  const plain = [...g.tools.values()];
  const singleStarts = domain.datatypes
    .filter((d) => d.value_type !== "number" && plain.some((t) => t.inputs.length === 1 && t.inputs[0] === d.name))
    .map((d) => d.name);
  const anyStarts = domain.datatypes
    .filter((d) => d.value_type !== "number" && plain.some((t) => t.inputs.includes(d.name)))
    .map((d) => d.name);
  const exec = new CaseIndex(db.ids.map((id, i) => ({ id, values: db.rows[i]! })));
  const stats: Record<string, number> = {
    searched: 0,
    intractable: 0,
    tooManySets: 0,
    lengthOut: 0,
    lowGain: 0,
    noCase: 0,
    shortcut: 0,
    accepted: 0,
  };

  const singleFrom = new Map<string, string[]>();
  for (const t of plain) if (t.inputs.length === 1) singleFrom.set(t.inputs[0]!, [...(singleFrom.get(t.inputs[0]!) ?? []), t.output]);
  const distCache = new Map<string, Map<string, number>>();
  const forwardCache = new Map<string, Set<string>>();
  const chainDistance = (inputs: readonly string[]): Map<string, number> => {
    const key = inputs.join("+");
    let dist = distCache.get(key);
    if (dist) return dist;
    dist = new Map(inputs.map((d) => [d, 0]));
    const queue = [...inputs];
    while (queue.length) {
      const d = queue.shift()!;
      for (const o of singleFrom.get(d) ?? [])
        if (!dist.has(o)) {
          dist.set(o, dist.get(d)! + 1);
          queue.push(o);
        }
    }
    distCache.set(key, dist);
    return dist;
  };
  const evaluate = (inputs: string[], target: string): Candidate | null => {
    if (inputs.includes(target)) return null;
    const fkey = inputs.join("+");
    let reach = forwardCache.get(fkey);
    if (!reach) forwardCache.set(fkey, (reach = g.forward(inputs)));
    if (!reach.has(target)) return null;
    // Cheap upper bound on L*: a chain of single-input tools is itself a sufficient set.
    const chain = chainDistance(inputs).get(target);
    if (chain !== undefined && chain < gen.minSteps) {
      stats["lengthOut"]!++;
      return null;
    }
    if (informationGain(db.rows, inputs, target) < gen.minInfoGainBits) {
      stats["lowGain"]!++;
      return null;
    }
    stats["searched"]!++;
    const res = minimalToolSets(g, inputs, target, gen.searchBudget, gen.maxPathSets);
    if (res === "too_many") {
      stats["tooManySets"]!++;
      return null;
    }
    if (!res) {
      stats["intractable"]!++;
      return null;
    }
    const shortest = res.sets[0]?.length ?? 0;
    if (shortest < gen.minSteps || shortest > gen.maxSteps) {
      stats["lengthOut"]!++;
      return null;
    }
    if (res.sets.length > gen.maxPathSets) {
      stats["tooManySets"]!++;
      return null;
    }
    return { inputs, target, sets: res.sets, shortest };
  };

  type Accepted = Candidate & { caseIdx: number; answer: string; text: string };
  // Value-level filters on a structurally valid candidate: pick its case, then check the answer.
  const valueFilter = (c: Candidate, key: string): Accepted | null => {
    const r = rng.derive(`case:${key}`);
    const gt = new Set<string>(c.inputs);
    for (const s of c.sets) for (const n of s) gt.add(g.tools.get(n)!.output);
    const ok = db.rows.map((_, i) => i).filter((i) => [...gt].every((d) => db.rows[i]![d] !== null));
    if (!ok.length) {
      stats["noCase"]!++;
      return null;
    }
    const caseIdx = r.pick(ok);
    const row = db.rows[caseIdx]!;
    const answer = answerString(row[c.target]!);
    const setRows = db.rows.filter((x) => x[c.target] !== null);
    const share = setRows.filter((x) => answerString(x[c.target]!) === answer).length / setRows.length;
    const inputValues = c.inputs.map((d) => String(row[d]));
    if (share > gen.maxAnswerShare || readableFromInputs(answer, inputValues)) {
      stats["shortcut"]!++;
      return null;
    }
    // Each literal must be recoverable from the text: no earlier input datatype holds the same string.
    if (c.inputs.some((_, k) => c.inputs.slice(0, k).some((e) => db.rows.some((x) => pystr(x[e]) === inputValues[k])))) {
      stats["shortcut"]!++;
      return null;
    }
    const start: Record<string, PyValue> = {};
    c.inputs.forEach((d) => (start[d] = row[d]!));
    for (const s of c.sets) {
      const out = executeSet(g, exec, legalOrderings(g, c.inputs, s, false).order, start);
      if (out === undefined || answerString(out) !== answer) {
        stats["nonDeterministic"] = (stats["nonDeterministic"] ?? 0) + 1;
        return null;
      }
    }
    const tr = rng.derive(`text:${key}`);
    for (let k = 0; k < 10; k++) {
      const text = composeQuery(domain, tr, c.inputs, c.target, row);
      if (!normAns(text).includes(normAns(answer))) return { ...c, caseIdx, answer, text };
    }
    stats["shortcut"]!++;
    return null;
  };

  // Selection streams over shuffled candidates (so only what is needed gets searched), with a
  // quota of single-input tasks, the rest two-input, and at most 1/12 of the tasks per target.
  const perTarget = new Map<string, number>();
  const cap = Math.max(1, Math.ceil(gen.tasks / 12));
  const chosen: Accepted[] = [];
  // Short solutions dominate naturally; cap the two shortest lengths so long tasks (L* 8–9) are represented.
  const perSteps = new Map<number, number>();
  const stepCap = (steps: number): number =>
    steps === gen.minSteps ? Math.ceil(gen.tasks * 0.4) : steps === gen.minSteps + 1 ? Math.ceil(gen.tasks * 0.3) : gen.tasks;
  const tryAdd = (inputs: string[], target: string): void => {
    if ((perTarget.get(target) ?? 0) >= cap) return;
    const c = evaluate(inputs, target);
    if (!c) return;
    if ((perSteps.get(c.shortest) ?? 0) >= stepCap(c.shortest)) return;
    const a = valueFilter(c, `${inputs.join("+")}>${target}`);
    if (!a) return;
    stats["accepted"]!++;
    perTarget.set(target, (perTarget.get(target) ?? 0) + 1);
    perSteps.set(c.shortest, (perSteps.get(c.shortest) ?? 0) + 1);
    chosen.push(a);
  };
  const singles: [string, string][] = [];
  for (const a of singleStarts) for (const t of domain.datatypes) singles.push([a, t.name]);
  for (const [a, t] of rng.derive("singles").shuffle(singles)) {
    if (chosen.length >= gen.singleInputTasks) break;
    tryAdd([a], t);
  }
  const pairs: [string, string][] = [];
  for (let i = 0; i < anyStarts.length; i++) for (let j = i + 1; j < anyStarts.length; j++) pairs.push([anyStarts[i]!, anyStarts[j]!]);
  const pairRng = rng.derive("pairs");
  const targets = domain.datatypes.map((d) => d.name);
  // Round-robin over pairs (a few targets each pass) so no single pair dominates the set.
  const queue = pairRng.shuffle(pairs).map((p, i) => ({ p, ts: rng.derive(`pair:${i}`).shuffle(targets) }));
  while (chosen.length < gen.tasks && queue.some((q) => q.ts.length)) {
    for (const q of queue) {
      if (chosen.length >= gen.tasks) break;
      for (let k = 0; k < 3 && q.ts.length; k++) tryAdd([...q.p], q.ts.shift()!);
    }
  }
  chosen.sort((x, y) => {
    const kx = [x.inputs.length, ...x.inputs.map((d) => dtOrder.get(d)!), dtOrder.get(x.target)!];
    const ky = [y.inputs.length, ...y.inputs.map((d) => dtOrder.get(d)!), dtOrder.get(y.target)!];
    for (let i = 0; i < Math.min(kx.length, ky.length); i++) if (kx[i] !== ky[i]) return kx[i]! - ky[i]!;
    return kx.length - ky.length;
  });

  const width = Math.max(4, String(chosen.length).length);
  const tasks = chosen.map((c, i): GeneratedTask => {
    const r = rng.derive(`task:${i}`);
    const id = String(i + 1).padStart(width, "0");
    const taskId = `${domain.domain}_task_${id}`;
    const catalog = c.sets.map((s) => {
      const o = legalOrderings(g, c.inputs, s);
      return { tool_set: o.order, steps: s.length, legal_orderings: o.count };
    });
    const shortestSets = catalog.filter((s) => s.steps === c.shortest);
    const friendly = shortestSets.filter((s) => s.tool_set.every((n) => g.tools.get(n)!.inputs.length <= 2));
    const path = r.pick(friendly.length ? friendly : shortestSets).tool_set;
    const text = c.text;
    const task: Record<string, unknown> = {
      input_datatypes: c.inputs,
      num_inputs: c.inputs.length,
      target_datatype: c.target,
      one_available_path: path,
      steps: path.length,
      task_id: taskId,
    };
    let inputType = "single_input";
    if (c.inputs.length === 2) {
      const u = usefulness(g, c.inputs, c.sets);
      task["two_input_usefulness_type"] = u.usefulness;
      task["task_type"] = u.taskType;
      inputType = u.usefulness;
    }
    const query = {
      query_id: `${domain.domain}_query_${id}`,
      task_id: taskId,
      query_text: text,
      correct_answer: c.answer,
      input_datatypes: c.inputs,
      input_type: inputType,
      target_datatype: c.target,
    };
    return { task, query, catalog };
  });
  return { tasks, stats };
}
