/**
 * Baseline agents: `oracle` (the reference §8 oracle), `planner` (observable-only backward
 * search with output-conditioned retrieval) and `random`.
 */
import type { JsonValue } from "../../src/family.js";
import { pystr } from "./compat/pyvalue.js";
import type { PlanBenchRelease, ToolRecord } from "./releaseFormat.js";
import type { PlanBenchHidden } from "./session.js";
import type { PlanBenchAction, PlanBenchObservation, VisibleTool } from "./types.js";

/** An agent: one action per observation (the hidden info is only for the oracle). */
export interface PlanBenchAgent {
  act(obs: PlanBenchObservation, hidden: PlanBenchHidden): PlanBenchAction;
}

/**
 * The oracle of the reference run: for each tool of `one_available_path`, retrieve it with
 * `by_io_info` using exact datatype names, call it with the values held so far, then answer.
 */
export class OracleAgent implements PlanBenchAgent {
  private i = 0;
  private phase: "retrieve" | "call" = "retrieve";
  private values = new Map<string, string | number | boolean | null>();
  private last: string | number | boolean | null = null;
  private started = false;

  constructor(private readonly release: PlanBenchRelease) {}

  act(obs: PlanBenchObservation, h: PlanBenchHidden): PlanBenchAction {
    if (!this.started) {
      this.started = true;
      for (const [k, v] of Object.entries(h.inputValues)) this.values.set(k, v);
    }
    if (obs.lastAction === "call_tool" && obs.toolResult) {
      const t = this.release.toolByName.get(obs.toolResult.name)!;
      this.values.set(t.output_datatype, obs.toolResult.output);
      this.last = obs.toolResult.output;
    }
    if (this.i >= h.onePath.length) return { type: "answer", content: this.last === null ? "" : String(this.last) };
    const tool = this.release.toolByName.get(h.onePath[this.i]!)!;
    if (this.phase === "retrieve") {
      this.phase = "call";
      // by_io_info matches at most two inputs; a 3–5-input tool is only reachable by its output.
      if (tool.input_datatypes.length > 2)
        return { type: "retrieve", meta_tool: "by_output_info", output_information: tool.output_datatype };
      return {
        type: "retrieve",
        meta_tool: "by_io_info",
        output_information: tool.output_datatype,
        input_information: tool.input_datatypes,
      };
    }
    this.phase = "retrieve";
    this.i++;
    const args: Record<string, JsonValue> = {};
    for (const [surface, dt] of Object.entries(tool.surface_argument_to_datatype)) args[surface] = this.values.get(dt) ?? "";
    return { type: "tool_call", name: tool.name, arguments: args };
  }
}

const UNRELIABLE = new RegExp(
  [
    "\\bnot (?:expected|suitable|dependable|appropriate|usable|reliable|authoritative)\\b",
    "\\bnon-authoritative\\b",
    "\\bshould not be (?:relied|used)\\b",
    "\\b(?:rather than|instead of) (?:the|a) (?:authoritative|committed|latest|settled|final|current)\\b",
    "\\blegacy\\b",
    "\\bno longer (?:returns|serves|valid|usable|supported)\\b",
    "\\bis no longer valid\\b|\\bare no longer valid\\b",
    "\\b(?:lagging|stale|outdated|older) cache|\\bcache(?:d)? (?:snapshot|state|historical|value)|\\breads an outdated\\b",
    "\\bmiswired\\b|\\bunstable\\b|\\bunreliable\\b|\\bis noisy\\b",
    "\\b(?:estimated|predicted|preview) value\\b|\\bpreview instead\\b",
    "\\bgated\\b|\\bnarrow set\\b|\\brestricted to rare\\b|\\bspecial (?:\\w+ )?conditions\\b|\\blimited backend condition\\b",
    "\\b(?:drift|slip) (?:onto|to) a related\\b|\\bnearby field\\b|\\bwrong (?:adjacent|field)\\b|\\brelated but wrong\\b",
    "\\bolder (?:workflows|compatibility)\\b|\\bbackward compatibility\\b|\\bendpoint (?:is )?(?:no longer|deprecated)\\b",
  ].join("|"),
  "i",
);

/** Does a description admit that the tool may be unreliable? */
export function admitsUnreliability(description: string): boolean {
  return UNRELIABLE.test(description);
}

/** Values no real record would hold (garbage, negative amounts, impossible dates). */
export function looksSuspicious(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  const s = String(v);
  if (!/[A-Za-z0-9]/.test(s)) return true;
  if (/^-\d/.test(s)) return true;
  if (/^\d{4}-(1[3-9]|[2-9]\d)-/.test(s) || /^\d{4}-\d{2}-(3[2-9]|[4-9]\d)/.test(s) || /T(2[4-9]|[3-9]\d):/.test(s)) return true;
  if (/^(error|unavailable)\b/i.test(s)) return true;
  if (/[#*~^%$]{2,}/.test(s)) return true;
  return false;
}

const HEADS =
  "status|id|ids|number|code|time|timestamp|date|amount|price|name|address|email|phone|type|quantity|total|method|" +
  "reference|color|colour|size|tag|value|token|account|intent|record|label";
const LEAD_STOP = new RegExp(
  "^(what|which|is|was|the|a|an|exact|current|latest|recorded|final|return|give|tell|me|us|and|its|their|that|this|" +
    "of|for|please|find|get|show|actual|linked|associated)$",
  "i",
);

/** The asked-for field: the first "<up to 3 words> <field head>" of the question sentence. */
export function targetPhrase(query: string): string {
  const sentences = query.split(/(?<=[.?!])\s+/);
  const q = [...sentences].reverse().find((s) => s.includes("?")) ?? sentences[sentences.length - 1] ?? query;
  const clean = q.replace(/`[^`]*`/g, " ").replace(/[^A-Za-z0-9 -]/g, " ");
  const m = clean.match(new RegExp(`((?:[A-Za-z-]+\\s+){0,3})((?:${HEADS})(?:\\s+(?:${HEADS}))*)\\b`, "i"));
  if (m) {
    const words = `${m[1] ?? ""}${m[2]}`.trim().split(/\s+/);
    while (words.length > 1 && LEAD_STOP.test(words[0]!)) words.shift();
    return words.join(" ");
  }
  return clean.trim();
}

/** Backticked literals with the few words before each (a description of what the value is). */
export function queryLiterals(query: string): Array<{ value: string; context: string }> {
  const out: Array<{ value: string; context: string }> = [];
  for (const m of query.matchAll(/`([^`]+)`/g)) {
    const before = query
      .slice(0, m.index)
      .replace(/[^A-Za-z0-9 _-]/g, " ")
      .trim()
      .split(/\s+/)
      .slice(-3);
    while (before.length > 1 && /^(the|a|an|is|was|for|of|with|and|to|from|on|in|only|left|reference|id)$/i.test(before[0]!))
      before.shift();
    out.push({ value: m[1]!, context: before.join(" ") });
  }
  return out;
}

interface Goal {
  key: string;
  depth: number;
}

/**
 * Observable-only planner. Datatype identity is approximated by the parameter description text
 * (the same for every tool taking that datatype); producers of a description are found with
 * `by_output_info` on that description. It searches backward from the asked-for field, prefers
 * tools whose descriptions do not admit unreliability, distrusts suspicious values and re-plans
 * (bans the tool) after errors, rejections and empty lookups.
 */
export class PlannerAgent implements PlanBenchAgent {
  private known = new Map<string, string | number | boolean>();
  /** Which tool produced a known value (absent for values from the question). */
  private source = new Map<string, string>();
  private producers = new Map<string, VisibleTool[]>();
  private banned = new Set<string>();
  private pendingInputs: Array<{ value: string; context: string }> = [];
  private awaiting:
    | { kind: "inputs"; value: string }
    | { kind: "producers"; key: string }
    | { kind: "call"; tool: VisibleTool; key: string; used: string[] }
    | null = null;
  private target = "";
  private started = false;
  private answer: string | number | boolean | null = null;
  private failedRetrievals = new Set<string>();

  act(obs: PlanBenchObservation): PlanBenchAction {
    if (!this.started) {
      this.started = true;
      this.target = targetPhrase(obs.query);
      this.pendingInputs = queryLiterals(obs.query);
    }
    this.absorb(obs);
    if (this.answer !== null) return { type: "answer", content: String(this.answer) };
    // 1) Learn which parameter description each literal fills (input-conditioned retrieval).
    const lit = this.pendingInputs.shift();
    if (lit) {
      this.awaiting = { kind: "inputs", value: lit.value };
      return { type: "retrieve", meta_tool: "by_inputs", input_information: [lit.context || lit.value] };
    }
    // 2) Backward search from the target.
    const next = this.plan();
    if (next) return next;
    return { type: "answer", content: "I could not determine the value." };
  }

  private absorb(obs: PlanBenchObservation): void {
    const aw = this.awaiting;
    this.awaiting = null;
    if (!aw) return;
    if (aw.kind === "inputs") {
      for (const t of obs.tools) {
        const props = Object.values(t.parameters.properties);
        if (props.length === 1 && !admitsUnreliability(t.description)) {
          const key = props[0]!.description ?? "";
          if (key && !this.known.has(key)) this.known.set(key, aw.value);
          break;
        }
      }
      return;
    }
    if (aw.kind === "producers") {
      if (obs.lastAction !== "retrieve_tools" || obs.error) {
        this.failedRetrievals.add(aw.key);
        return;
      }
      this.producers.set(aw.key, obs.tools);
      return;
    }
    // A call. A rejected input means one of the values we used came from an untrusted tool:
    // forget the tool-derived inputs and ban their producers, then re-plan.
    const r = obs.toolResult;
    if (obs.error === "untrusted_input_rejected" || obs.error === "missing_required_input") {
      for (const k of aw.used) {
        const src = this.source.get(k);
        if (src === undefined) continue;
        this.banned.add(src);
        this.known.delete(k);
        this.source.delete(k);
      }
      return;
    }
    if (obs.error || !r || !r.success || r.output === null || looksSuspicious(r.output)) {
      this.banned.add(aw.tool.name);
      return;
    }
    if (aw.key === "__target__") this.answer = r.output;
    else {
      this.known.set(aw.key, r.output);
      this.source.set(aw.key, aw.tool.name);
    }
  }

  private trustOrder(tools: VisibleTool[]): VisibleTool[] {
    return tools
      .filter((t) => !this.banned.has(t.name) && !admitsUnreliability(t.description))
      .sort((a, b) => Object.keys(a.parameters.properties).length - Object.keys(b.parameters.properties).length);
  }

  /** One step of iterative-deepening backward search; returns the next action or null. */
  private plan(): PlanBenchAction | null {
    const goals: Goal[] = [{ key: "__target__", depth: 0 }];
    const visited = new Set<string>();
    while (goals.length > 0) {
      const g = goals.shift()!;
      if (visited.has(g.key) || g.depth > 10) continue;
      visited.add(g.key);
      const prods = this.producers.get(g.key);
      if (!prods) {
        if (this.failedRetrievals.has(g.key)) continue;
        this.awaiting = { kind: "producers", key: g.key };
        return { type: "retrieve", meta_tool: "by_output_info", output_information: g.key === "__target__" ? this.target : g.key };
      }
      for (const t of this.trustOrder(prods)) {
        const params = Object.entries(t.parameters.properties);
        const missing = params.filter(([, p]) => !this.known.has(p.description ?? ""));
        if (missing.length === 0) {
          const args: Record<string, JsonValue> = {};
          for (const [name, p] of params) args[name] = this.known.get(p.description ?? "")!;
          this.awaiting = { kind: "call", tool: t, key: g.key, used: params.map(([, p]) => p.description ?? "") };
          return { type: "tool_call", name: t.name, arguments: args };
        }
        for (const [, p] of missing) goals.push({ key: p.description ?? "", depth: g.depth + 1 });
      }
    }
    return null;
  }
}

/** Uniform random over well-formed actions built from what it has seen (seeded by the caller). */
export class RandomAgent implements PlanBenchAgent {
  private seen: VisibleTool[] = [];
  private lastOutput: unknown = null;
  constructor(
    private readonly random: () => number,
    private readonly phrases: readonly string[],
  ) {}

  act(obs: PlanBenchObservation): PlanBenchAction {
    for (const t of obs.tools) if (!this.seen.some((s) => s.name === t.name)) this.seen.push(t);
    if (obs.toolResult?.output !== undefined && obs.toolResult.output !== null) this.lastOutput = obs.toolResult.output;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(this.random() * xs.length)]!;
    const r = this.random();
    if (r < 0.05) return { type: "answer", content: this.lastOutput === null ? "unknown" : pystr(this.lastOutput) };
    if (r < 0.5 || this.seen.length === 0) {
      const mt = pick(["by_output_info", "by_inputs", "by_io_info"] as const);
      return { type: "retrieve", meta_tool: mt, output_information: pick(this.phrases), input_information: [pick(this.phrases)] };
    }
    const t = pick(this.seen);
    const lits = queryLiterals(obs.query).map((l) => l.value);
    const args: Record<string, JsonValue> = {};
    for (const k of Object.keys(t.parameters.properties))
      args[k] = lits.length > 0 && this.random() < 0.5 ? pick(lits) : pystr(this.lastOutput);
    return { type: "tool_call", name: t.name, arguments: args };
  }
}

/** Phrases a random agent may ask for: datatype names and aliases of the world. */
export function randomPhrases(release: PlanBenchRelease): string[] {
  return release.datatypes.flatMap((d) => [d.name, ...d.aliases.slice(0, 2)]);
}

export type { ToolRecord };
