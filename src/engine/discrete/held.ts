import { type JsonValue, stableStringify } from "../../core/json.js";
import { EpisodeCursor, type ObservableEpisode, type SeenCall } from "./source.js";

/** Where an argument value came from: the task's parameters, or the response of call `call` (0-based). */
export type ValueSource = { kind: "task" } | { kind: "response"; call: number; field: string } | { kind: "schema" };

/** A value the agent holds: a task parameter or a response field, with its semantic type when documented. */
export interface HeldValue {
  name: string;
  type: string | null;
  value: JsonValue;
  source: ValueSource;
}

/** The response fields of a call worth binding: scalars, up to depth 3, the first 16 items of each array. */
function walk(v: JsonValue, path: string, key: string, out: { path: string; key: string; value: JsonValue }[], depth: number): void {
  if (v === null || depth > 3) return;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && i < 16; i++) walk(v[i], `${path}[]`, key, out, depth + 1);
    return;
  }
  if (typeof v === "object") {
    for (const k of Object.keys(v)) walk(v[k], path ? `${path}.${k}` : k, k, out, depth + 1);
    return;
  }
  if (path) out.push({ path, key, value: v });
}

/** The values of one call's response (none for a failed call), in walk order. */
function responseValues(ep: ObservableEpisode, c: SeenCall, i: number): HeldValue[] {
  if (!c.ok) return [];
  const fields: { path: string; key: string; value: JsonValue }[] = [];
  walk(c.response, "", "", fields, 0);
  const outputs = ep.semanticsOf(c.tool)?.outputs;
  return fields.map((f) => ({
    name: f.key,
    type: outputs?.[f.path] ?? null,
    value: f.value,
    source: { kind: "response", call: i, field: f.path },
  }));
}

/** The task's own held values: its parameters, then the providers' labels of the visible tools. */
function taskValues(ep: ObservableEpisode): HeldValue[] {
  const out: HeldValue[] = [];
  for (const p of ep.parameters) {
    if (p.value !== undefined && (p.target === undefined || p.target !== "answer")) {
      out.push({ name: p.name, type: p.type ?? null, value: p.value, source: { kind: "task" } });
    }
  }
  for (const t of ep.tools) {
    const label = t.semantics?.label;
    if (label !== undefined) out.push({ name: "provider_label", type: "provider_label", value: label, source: { kind: "task" } });
  }
  return out;
}

/** Every value the agent holds, in a fixed order: task parameters first, then response fields in call order. */
export function heldValues(ep: ObservableEpisode): HeldValue[] {
  const out = taskValues(ep);
  ep.calls.forEach((c, i) => {
    for (const v of responseValues(ep, c, i)) out.push(v);
  });
  return out;
}

/** A value's identity as text: cheap for scalars (the common case), canonical JSON for structures. */
export function valueKey(v: JsonValue): string {
  if (v === null || typeof v !== "object") return `${typeof v}:${String(v)}`;
  return `j:${stableStringify(v)}`;
}

/** The types and names of held values added since some point of an episode (response values only). */
export interface AddedValues {
  from: number;
  to: number;
  types: Set<string>;
  untypedNames: Set<string>;
  names: Set<string>;
}

function addedValues(held: readonly HeldValue[], from: number): AddedValues | null {
  const out: AddedValues = { from, to: held.length, types: new Set(), untypedNames: new Set(), names: new Set() };
  for (let i = from; i < held.length; i++) {
    const h = held[i];
    // A task value never arrives within an episode; if one did, the caller rebuilds rather than trust the summary.
    if (h.source.kind === "task") return null;
    if (h.type !== null) out.types.add(h.type);
    else out.untypedNames.add(h.name);
    out.names.add(h.name);
  }
  return out;
}

/**
 * The held values of one env's episode from step to step. They only grow within an episode — the task's, then each
 * call's response — so each call's values are read once.
 */
export class HeldMemo {
  private readonly cursor = new EpisodeCursor();
  private lastAdded: AddedValues | null = null;
  /** Bumped when the held values change other than by appending (a new episode). */
  epoch = 0;
  held: HeldValue[] = [];

  /** The held values of `ep` (as `heldValues(ep)`), reading only the calls the last step added. */
  sync(ep: ObservableEpisode): HeldValue[] {
    const { from, restarted } = this.cursor.advance(ep);
    if (restarted) {
      this.epoch++;
      this.held = taskValues(ep);
      this.lastAdded = null;
    }
    const calls = ep.calls;
    for (let i = from; i < calls.length; i++) {
      for (const v of responseValues(ep, calls[i], i)) this.held.push(v);
    }
    return this.held;
  }

  /** A summary of the held values from index `from` on (tools last built at the same point share it), or null. */
  added(from: number): AddedValues | null {
    const last = this.lastAdded;
    if (last && last.from === from && last.to === this.held.length) return last;
    return (this.lastAdded = addedValues(this.held, from));
  }
}
