import {
  type Action,
  type Info,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  toJsonObject,
  type ToolObservation,
} from "../../../src/family.js";

/** Helpers shared by the heuristic policies: they read tool names, schemas and responses only. */

export interface Intent {
  tool: string;
  args: JsonObject;
  stated: JsonObject;
  /** Multi-step requests only (scenario intents carry it when the request needs several calls). */
  plan?: PlanStep[];
}

export const opOf = (tool: string): string => tool.slice(tool.indexOf("_") + 1);
export const providerOf = (tool: string): string => tool.slice(0, tool.indexOf("_"));

/** `info.intent` of a reset, or null when the env sent none; a TypeError when it is not an intent's shape. */
export function intentFrom(info: Info): Intent | null {
  const i = info.intent;
  if (!i) return null;
  if (!isIntent(i)) throw new TypeError("info.intent: expected { tool, args, stated, plan? }");
  return i;
}

function isIntent(x: unknown): x is Intent {
  if (!isJsonObject(x) || typeof x.tool !== "string" || !isJsonObject(x.args) || !isJsonObject(x.stated)) return false;
  return x.plan === undefined || (Array.isArray(x.plan) && x.plan.every(isPlanStep));
}

function isPlanStep(x: unknown): x is PlanStep {
  if (!isJsonObject(x) || typeof x.tool !== "string" || !isJsonObject(x.args) || !Array.isArray(x.bind)) return false;
  return x.bind.every(
    (b) =>
      isJsonObject(b) &&
      typeof b.arg === "string" &&
      typeof b.from === "number" &&
      typeof b.field === "string" &&
      (b.where === undefined || isJsonObject(b.where)),
  );
}

/** Keeps what the agent has seen of the tools: names and descriptions (for provider labels and parameters). */
export class ToolBook {
  private readonly schemas = new Map<string, JsonObject>();
  visible: string[] = [];
  observe(obs: ToolObservation): void {
    for (const t of obs.newTools) this.schemas.set(t.name, toJsonObject(t));
    this.visible = obs.visibleTools.slice();
  }
  reset(): void {
    this.schemas.clear();
    this.visible = [];
  }
  label(tool: string): string {
    const d = String(this.schemas.get(tool)?.description ?? "");
    return /^\[([^\]]+)\]/.exec(d)?.[1] ?? providerOf(tool);
  }
  params(tool: string): string[] {
    const p = (this.schemas.get(tool)?.parameters as JsonObject | undefined)?.properties as JsonObject | undefined;
    return p ? Object.keys(p) : [];
  }
  paramDescription(tool: string, param: string): string {
    const p = (this.schemas.get(tool)?.parameters as JsonObject | undefined)?.properties as Record<string, JsonObject> | undefined;
    return String(p?.[param]?.description ?? "");
  }
  /** A read tool of the tool's provider that looks records up by a name (`search_*` first, then `find_*`, `list_*`). */
  searcher(tool: string): string | null {
    const prov = providerOf(tool);
    for (const verb of ["search", "find", "list"]) {
      const t = this.visible.find((x) => providerOf(x) === prov && opOf(x).startsWith(`${verb}_`) && this.required(x).length <= 1);
      if (t) return t;
    }
    return null;
  }
  required(tool: string): string[] {
    return ((this.schemas.get(tool)?.parameters as JsonObject | undefined)?.required as string[] | undefined) ?? [];
  }
  /** The same operation on another, now visible provider. */
  counterpart(tool: string): string | null {
    return this.visible.find((t) => t !== tool && opOf(t) === opOf(tool)) ?? null;
  }
  /** A read tool of the same provider taking `idField` (or, failing that, a parameterless list tool). */
  verifier(writeTool: string, idField: string | null): string | null {
    const prov = providerOf(writeTool);
    const same = this.visible.filter((t) => providerOf(t) === prov && /^(get|read|list)_/.test(opOf(t)));
    if (idField) {
      const byId = same.find((t) => this.required(t).length === 1 && this.required(t)[0] === idField);
      if (byId) return byId;
    }
    return same.find((t) => /^list_saved/.test(opOf(t))) ?? null;
  }
  canceller(writeTool: string, idField: string): string | null {
    const prov = providerOf(writeTool);
    return (
      this.visible.find(
        (t) => providerOf(t) === prov && /^(cancel|delete|unsend|remove)_/.test(opOf(t)) && this.required(t).includes(idField),
      ) ?? null
    );
  }
}

/** The id field of a write receipt (`transfer_id`, `order_id`...). */
export function receiptId(out: JsonValue): { field: string; value: string } | null {
  if (!out || typeof out !== "object" || Array.isArray(out)) return null;
  for (const [k, v] of Object.entries(out))
    if (
      k.endsWith("_id") &&
      typeof v === "string" &&
      /_\w+_\d+$/.test(v) &&
      !/^(recipient|business|location|restaurant|hotel|channel|contact)_id$/.test(k)
    )
      return { field: k, value: v };
  return null;
}

export function isError(r: JsonValue): r is { error: JsonObject } {
  return !!r && typeof r === "object" && !Array.isArray(r) && "error" in r && typeof (r as JsonObject).error === "object";
}

/** "key: value" lines of the scalar leaves, for plain-text reports. */
export function flatten(v: JsonValue, prefix = "", out: string[] = [], limit = 40): string[] {
  if (out.length >= limit) return out;
  if (v === null || typeof v !== "object") {
    out.push(`${prefix || "value"}: ${String(v)}`);
    return out;
  }
  if (Array.isArray(v)) v.forEach((x, i) => flatten(x, `${prefix}[${i}]`, out, limit));
  else for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out, limit);
  return out;
}

export const call = (name: string, args: JsonObject): Action => ({ type: "tool_call", name, arguments: args });
export const answer = (content: string): Action => ({ type: "answer", content });
export const ask = (question: string): Action => ({ type: "ask_user", question });

/** One step of a multi-step request (`info.intent.plan`), as the policies use it. */
export interface PlanStep {
  tool: string;
  args: JsonObject;
  bind: { arg: string; from: number; field: string; where?: JsonObject }[];
}

export function planFrom(intent: Intent): PlanStep[] | null {
  const p = intent.plan;
  return Array.isArray(p) && p.length > 0 ? p : null;
}

/** Where every heuristic policy starts an episode: the request, its plan (null for one call) and step 0. */
export interface EpisodeStart {
  intent: Intent;
  plan: PlanStep[] | null;
  /** Plan index of the main (requested) call; 0 without a plan. */
  mainIdx: number;
  si: number;
  outputs: (JsonValue | undefined)[];
}

/** Forgets the previous episode's tools, learns the new ones and reads the request from `info.intent`. */
export function beginEpisode(book: ToolBook, obs: ToolObservation, info: Info): EpisodeStart {
  book.reset();
  book.observe(obs);
  const intent = intentFrom(info) as Intent;
  const plan = planFrom(intent);
  return { intent, plan, mainIdx: plan ? plan.findIndex((p) => p.tool === intent.tool) : 0, si: 0, outputs: [] };
}

const same = (a: JsonValue | undefined, b: JsonValue): boolean =>
  typeof a === "string" && typeof b === "string" ? a.trim().toLowerCase() === b.trim().toLowerCase() : a === b;

/** The first object (depth-first) in `v` that has `field` and whose fields equal `where`; its `field`. */
export function pickFrom(v: JsonValue | undefined, field: string, where: JsonObject = {}): JsonValue | undefined {
  if (!v || typeof v !== "object") return undefined;
  if (!Array.isArray(v)) {
    const o = v as JsonObject;
    if (o[field] !== undefined && Object.entries(where).every(([k, w]) => same(o[k], w))) return o[field];
  }
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const r = pickFrom(x, field, where);
    if (r !== undefined) return r;
  }
  return undefined;
}

/** A plan step's arguments with its bound values filled in from earlier outputs; null when a pick finds nothing. */
export function bindArgs(step: PlanStep, outputs: readonly (JsonValue | undefined)[]): JsonObject | null {
  const args: JsonObject = JSON.parse(JSON.stringify(step.args)) as JsonObject;
  for (const b of step.bind) {
    const v = pickFrom(outputs[b.from], b.field, b.where ?? {});
    if (v === undefined) return null;
    args[b.arg] = v;
  }
  return args;
}

/** The same operation on another provider (`zelle_send_money` → `venmo_send_money`). */
export const onProvider = (tool: string, provider: string): string => `${provider}_${opOf(tool)}`;

/** Case-, accent- and punctuation-folded text, for comparing names and request text. */
export function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9@.]+/g, " ")
    .replace(/\.(\s|$)/g, "$1")
    .trim();
}

/** Records (objects with a string `*_id` field) in a response, any nesting depth. */
export function recordsIn(v: JsonValue | undefined, out: JsonObject[] = []): JsonObject[] {
  if (!v || typeof v !== "object") return out;
  if (!Array.isArray(v) && Object.entries(v).some(([k, x]) => k.endsWith("_id") && typeof x === "string")) out.push(v as JsonObject);
  for (const x of Array.isArray(v) ? v : Object.values(v)) recordsIn(x, out);
  return out;
}

/**
 * Picks the record the user meant among look-alikes that share a name: the one with the most other field values
 * (state, city, email, ...) that the request text mentions. Null when no record stands out.
 */
export function bestByRequest(candidates: readonly JsonObject[], name: string, request: string): JsonObject | null {
  const text = ` ${fold(request)} `;
  const n = fold(name);
  const score = (c: JsonObject): number =>
    Object.entries(c).filter(([k, v]) => {
      if (k.endsWith("_id") || (typeof v !== "string" && typeof v !== "number")) return false;
      const f = fold(String(v));
      return f.length >= 2 && f !== n && text.includes(` ${f} `);
    }).length;
  if (candidates.length === 1) return candidates[0];
  const scored = candidates.map((c) => [score(c), c] as const).sort((a, b) => b[0] - a[0]);
  if (scored.length === 0 || scored[0][0] === 0 || (scored.length > 1 && scored[1][0] === scored[0][0])) return null;
  return scored[0][1];
}

/** The value of `record` to pass for a parameter, by what the parameter's description says it accepts. */
export function valueForParam(record: JsonObject, paramDescription: string, notName: string): JsonValue | undefined {
  const d = paramDescription.toLowerCase();
  const keys = Object.keys(record).sort((a, b) => Number(b.endsWith("_id")) - Number(a.endsWith("_id")));
  const usable = (v: JsonValue): boolean => (typeof v === "string" && fold(v) !== fold(notName)) || typeof v === "number";
  const k = keys.find((key) => d.includes(key.toLowerCase()) && usable(record[key]));
  return k ? record[k] : undefined;
}
