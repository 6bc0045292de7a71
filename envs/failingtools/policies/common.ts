import type { Info } from "../../../src/core/env.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import type { Action } from "../../../src/engine/actions.js";
import type { ToolObservation } from "../../../src/engine/observation.js";

/** Helpers shared by the heuristic policies: they read tool names, schemas and responses only. */

export interface Intent {
  tool: string;
  args: JsonObject;
  stated: JsonObject;
}

export const opOf = (tool: string): string => tool.slice(tool.indexOf("_") + 1);
export const providerOf = (tool: string): string => tool.slice(0, tool.indexOf("_"));

export function intentFrom(info: Info): Intent | null {
  const i = info.intent as JsonObject | undefined;
  return i ? (i as unknown as Intent) : null;
}

/** Keeps what the agent has seen of the tools: names and descriptions (for provider labels and parameters). */
export class ToolBook {
  private readonly schemas = new Map<string, JsonObject>();
  visible: string[] = [];
  observe(obs: ToolObservation): void {
    for (const t of obs.newTools) this.schemas.set(t.name, t as unknown as JsonObject);
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
    return this.visible.find((t) => providerOf(t) === prov && /^(cancel|delete|unsend|remove)_/.test(opOf(t)) && this.required(t).includes(idField)) ?? null;
  }
}

/** The id field of a write receipt (`transfer_id`, `order_id`...). */
export function receiptId(out: JsonValue): { field: string; value: string } | null {
  if (!out || typeof out !== "object" || Array.isArray(out)) return null;
  for (const [k, v] of Object.entries(out)) if (k.endsWith("_id") && typeof v === "string" && /_\w+_\d+$/.test(v) && !/^(recipient|business|location|restaurant|hotel|channel|contact)_id$/.test(k)) return { field: k, value: v };
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
