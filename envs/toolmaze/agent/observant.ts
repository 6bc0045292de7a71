/**
 * The `heuristic` baseline: a ToolMaze agent that plans from the observation alone. It reads the request and
 * the visible tool schemas (see `read.ts`), picks for each request the tool that matches its last step (the goal
 * Action), and backward-chains: every parameter is either a value quoted in the request or an output field of the
 * same documented type from another visible tool, preferring tools the request mentions, then the cheapest chain.
 * Tools with the same signature are alternatives. Failures are handled from what it sees: an error that reads as
 * permanent (retired endpoint, outage without ETA) is switched away from at once, other errors and implausible
 * values are retried once; a tool that fails twice is dropped and the plan is rebuilt around it; when no plan is
 * left it aborts. It never reads `info.hidden`.
 */
import type { Info, JsonObject, JsonValue, Policy, Action, ToolObservation } from "../../../src/family.js";
import type { Scalar } from "../world/types.js";
import { foreignVocabulary, looksImplausible, windowContradiction } from "./plausibility.js";
import { matchScores, type Mention, mentions, readError, readTools, type SeenGroup, splitClauses, splitRequests } from "./read.js";

interface Request {
  readonly goal: SeenGroup | null;
  /** Groups the request's clauses describe (best match per clause). */
  readonly mentioned: ReadonlySet<string>;
  /** Clause index of each mentioned group (its last mention). */
  readonly order: ReadonlyMap<string, number>;
  readonly text: string;
  /** Character offset where each clause starts (to tell which step a quoted value belongs to). */
  readonly clauseStarts: readonly number[];
}

type ArgSource = { literal: Scalar } | { from: string; field: string };
interface Step {
  readonly group: SeenGroup;
  readonly args: Readonly<Record<string, ArgSource>>;
}
interface Plan {
  readonly steps: readonly Step[];
  readonly cost: number;
}

const PERMANENT = /retired|deprecated|no ETA|misconfigured|discontinued|not found/i;

export class ObservantPolicy implements Policy<ToolObservation, Action> {
  readonly name = "heuristic";
  private groups: SeenGroup[] = [];
  private requests: Request[] = [];
  private accepted = new Map<string, JsonObject>();
  private bad = new Set<string>();
  private failures = new Map<string, number>();
  private last: { tool: string; args: JsonObject; group: SeenGroup } | null = null;
  private mentionCache = new Map<string, Mention[]>();
  private nowMs = Number.NaN;

  reset(obs: ToolObservation, _info: Info): void {
    // "Current date and time: …" in the prompt anchors the temporal plausibility checks.
    const now = /Current date and time: (\S+)/.exec(obs.task);
    this.nowMs = now ? Date.parse(now[1]!) : Number.NaN;
    this.groups = readTools(obs.newTools);
    this.accepted = new Map();
    this.bad = new Set();
    this.failures = new Map();
    this.last = null;
    this.mentionCache = new Map();
    this.requests = splitRequests(obs.task).map((text) => {
      const order = new Map<string, number>();
      let goal: SeenGroup | null = null;
      const clauses = splitClauses(text);
      const clauseStarts: number[] = [];
      let from = 0;
      for (const c of clauses) {
        const at = text.indexOf(c, from);
        clauseStarts.push(at < 0 ? from : at);
        if (at >= 0) from = at + c.length;
      }
      clauses.forEach((clause, i) => {
        const scores = matchScores(clause, this.groups);
        const top = Math.max(...scores);
        // A clause that describes no tool at all ("When you get a chance") is politeness, not a step.
        if (!(top > 0)) return;
        const best = scores.indexOf(top);
        order.set(this.groups[best]!.key, i);
        goal = this.groups[best]!;
      });
      return { goal, mentioned: new Set(order.keys()), order, text, clauseStarts };
    });
  }

  private lits(req: Request, type: string): Mention[] {
    const key = `${req.text}\u0000${type}`;
    let m = this.mentionCache.get(key);
    if (!m) {
      m = mentions(req.text, type);
      this.mentionCache.set(key, m);
    }
    return m;
  }

  /** The quoted value for a parameter, if the request quotes one of its type ("from X to Y" decides order). */
  private literalFor(req: Request, g: SeenGroup, param: string, type: string, before: number): Scalar | undefined {
    const same = g.params.filter((p) => p.type === type).map((p) => p.name);
    // A tool the request never mentions (an alternative way to feed step `before`) can only use values quoted
    // before that step: later values belong to later steps ("set cam-garage-03 to that set-point").
    const clauseOf = (at: number): number => req.clauseStarts.filter((s) => s <= at).length - 1;
    const found = req.order.has(g.key) ? this.lits(req, type) : this.lits(req, type).filter((m) => clauseOf(m.at) < before);
    if (found.length === 0) return undefined;
    if (found.length >= same.length) return found[same.indexOf(param)]!.value;
    const free = [...same];
    const assigned = new Map<string, Scalar>();
    for (const m of found) {
      const name = m.before === "from" ? free.shift()! : free.pop()!;
      assigned.set(name, m.value);
    }
    return assigned.get(param);
  }

  private groupByKey(key: string): SeenGroup {
    return this.groups.find((g) => g.key === key)!;
  }

  private usable(g: SeenGroup): string[] {
    return g.members.filter((m) => !this.bad.has(m));
  }

  /** Cheapest chain producing `g`'s output for request `r`; null when some parameter cannot be supplied. */
  private solve(r: number, g: SeenGroup, stack: ReadonlySet<string>, at = Number.POSITIVE_INFINITY): Plan | null {
    if (this.accepted.has(g.key)) return { steps: [], cost: 0 };
    if (this.usable(g).length === 0) return null;
    const req = this.requests[r]!;
    const args: Record<string, ArgSource> = {};
    const steps: Step[] = [];
    const inner = new Set([...stack, g.key]);
    // Steps are listed in order: "the summary" is the latest summary mentioned before this step.
    const k = req.order.get(g.key) ?? at;
    for (const p of g.params) {
      const lit = this.literalFor(req, g, p.name, p.type, k);
      if (lit !== undefined) {
        args[p.name] = { literal: lit };
        continue;
      }
      let best: { plan: Plan; producer: SeenGroup; field: string; rank: number } | null = null;
      let nearest = -1;
      for (const [key, j] of req.order) {
        if (j < k && j > nearest && this.groupByKey(key).outputs.some((o) => o.type === p.type)) nearest = j;
      }
      for (const producer of this.groups) {
        if (inner.has(producer.key)) continue;
        const out = producer.outputs.find((o) => o.type === p.type);
        if (!out) continue;
        // Tools another request asks for belong to that request unless this one mentions them too.
        const j = req.order.get(producer.key);
        if (j === undefined && this.requests.some((o, i) => i !== r && o.mentioned.has(producer.key))) continue;
        // Of the mentioned producers only the nearest earlier one; unmentioned ones are alternatives.
        if (j !== undefined && j !== nearest) continue;
        const plan = this.solve(r, producer, inner, k);
        if (!plan) continue;
        const rank = (j !== undefined ? 0 : 1000) + plan.cost;
        if (!best || rank < best.rank) best = { plan, producer, field: out.field, rank };
      }
      if (!best) return null;
      args[p.name] = { from: best.producer.key, field: best.field };
      for (const s of best.plan.steps) if (!steps.some((x) => x.group.key === s.group.key)) steps.push(s);
    }
    steps.push({ group: g, args });
    return { steps, cost: steps.length };
  }

  /** Reads the latest response; returns true when the last call should be repeated as is. */
  private observe(response: JsonValue): boolean {
    const last = this.last;
    if (!last) return false;
    const r = response as JsonObject | null;
    const error = readError(r);
    const types = new Map(last.group.outputs.map((o) => [o.field, o.type]));
    const implausible =
      !error &&
      r !== null &&
      typeof r === "object" &&
      (windowContradiction(r) ||
        Object.entries(r).some(
          ([k, v]) => looksImplausible(k, v, Number.isNaN(this.nowMs) ? undefined : this.nowMs) || foreignVocabulary(types.get(k) ?? "", v),
        ));
    if (!error && !implausible && r !== null) {
      this.accepted.set(last.group.key, r);
      return false;
    }
    const n = (this.failures.get(last.tool) ?? 0) + 1;
    this.failures.set(last.tool, n);
    const permanent = error !== null && (error.status === 404 || error.status === 410 || PERMANENT.test(error.message));
    if (n === 1 && !permanent) return true;
    this.bad.add(last.tool);
    return false;
  }

  act(obs: ToolObservation, _info: Info): Action {
    if (this.observe(obs.response) && this.last) {
      return { type: "tool_call", name: this.last.tool, arguments: this.last.args };
    }
    for (let r = 0; r < this.requests.length; r++) {
      const goal = this.requests[r]!.goal;
      if (!goal) return { type: "abort", reason: "could not tell which tool the request asks for" };
      if (this.accepted.has(goal.key)) continue;
      const plan = this.solve(r, goal, new Set());
      if (!plan) return { type: "abort", reason: `no working way left to ${goal.summary.toLowerCase()}` };
      const step = plan.steps.find((s) => !this.accepted.has(s.group.key))!;
      const args: JsonObject = {};
      for (const [name, src] of Object.entries(step.args)) {
        args[name] = "literal" in src ? src.literal : (this.accepted.get(src.from)![src.field] as JsonValue);
      }
      const tool = this.usable(step.group)[0]!;
      this.last = { tool, args, group: step.group };
      return { type: "tool_call", name: tool, arguments: args };
    }
    return { type: "answer", content: "All requested steps are complete." };
  }
}
