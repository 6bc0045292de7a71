/**
 * Answer candidates and the text templates they share with arguments: a declared answer's value, its template's
 * fillings with held values, or the held values of its type; the default answer when the task declares none.
 */
import { type JsonValue, stableStringify } from "../../core/json.js";
import type { Candidate, CandidateLimits } from "./candidates.js";
import { type HeldValue, type ValueSource, valueKey } from "./held.js";
import type { ObservableEpisode } from "./source.js";

const DEFAULT_ANSWER = "Done.";

export function textOf(v: JsonValue): string {
  return typeof v === "string" ? v : stableStringify(v);
}

/**
 * Views a hole may take of a held value (`{start:time}`): a report states a clock time as people write it, while the
 * response holds an ISO date-time ("10:00", not "2026-06-19T10:00:00Z"). Undefined: the value has no such view.
 */
const VIEWS: Readonly<Record<string, (v: JsonValue) => JsonValue | undefined>> = {
  time: (v) => (typeof v === "string" ? /^\d{4}-\d\d-\d\dT(\d\d:\d\d)/.exec(v)?.[1] : undefined),
};

/**
 * Fillings of a template's `{type}` holes with held values: the most recent values first (a report states what was
 * read last), distinct values for a repeated hole ("I used {provider_label} because {provider_label} failed").
 */
function fillTemplate(template: string, held: readonly HeldValue[], cap: number): { text: string; sources: ValueSource[] }[] {
  const holes = [...template.matchAll(/\{([A-Za-z0-9_.-]+)(?::([a-z]+))?\}/g)].map((m) => ({
    hole: m[0],
    type: m[1],
    view: VIEWS[m[2] ?? ""],
  }));
  const recent = [...held].reverse();
  let acc: { text: string; sources: ValueSource[]; used: string[] }[] = [{ text: template, sources: [], used: [] }];
  for (const { hole, type, view } of holes) {
    const matching = recent.filter((h) => h.type === type || (h.type === null && h.name === type));
    const viewed = view ? matching.flatMap((h) => ((v) => (v === undefined ? [] : [{ ...h, value: v }]))(view(h.value))) : matching;
    const options = uniqueByValue(viewed);
    const next: typeof acc = [];
    for (const a of acc) {
      for (const o of options) {
        if (next.length >= cap) break;
        const key = `${hole}\u0000${valueKey(o.value)}`;
        if (a.used.includes(key)) continue;
        next.push({ text: a.text.replace(hole, textOf(o.value)), sources: [...a.sources, o.source], used: [...a.used, key] });
      }
    }
    acc = next;
  }
  return acc;
}

export function uniqueByValue<T extends { value: JsonValue }>(values: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const v of values) {
    const k = valueKey(v.value);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

/** The values that may fill argument `name` of `target` (a tool or family action), in a fixed order. */
export type Option = { value: JsonValue; source: ValueSource };
export const TASK: ValueSource = { kind: "task" };
export const SCHEMA: ValueSource = { kind: "schema" };

/** A template's fillings as options (sourced by their first response value, if any). */
export function templateOptions(template: string, held: readonly HeldValue[], cap: number): Option[] {
  return fillTemplate(template, held, cap).map((t) => ({ value: t.text, source: t.sources.find((s) => s.kind === "response") ?? TASK }));
}

/** The answer candidates, in a fixed order (declared formats interleaved), distinct, at most `limits.answers`. */
export function answers(ep: ObservableEpisode, held: readonly HeldValue[], limits: CandidateLimits): Candidate[] {
  const declared = ep.parameters.filter((p) => p.target === "answer");
  if (declared.length === 0) return [{ kind: "answer", action: { type: "answer", content: DEFAULT_ANSWER }, name: "answer", sources: [] }];
  // One list per declared answer, interleaved, so the cap keeps every format's best fillings.
  // Each option carries its format's index, so formats keep distinct ids after the interleaving.
  const lists: (Option & { format: number })[][] = declared.map((p, format) => {
    const list: Option[] = [];
    if (p.value !== undefined) list.push({ value: textOf(p.value), source: TASK });
    if (p.template !== undefined) list.push(...templateOptions(p.template, held, limits.perTool));
    if (p.value === undefined && p.template === undefined) {
      const fitting = held.filter((h) => (p.type !== undefined ? h.type === p.type : h.name === p.name));
      for (const h of fitting) list.push({ value: textOf(h.value), source: h.source });
    }
    return list.map((o) => ({ ...o, format }));
  });
  const out: (Option & { format: number })[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return uniqueByValue(out)
    .slice(0, limits.answers)
    .map((o) => ({
      kind: "answer",
      action: { type: "answer", content: o.value as string },
      name: declared.length > 1 ? `answer:${o.format}` : "answer",
      sources: [o.source],
    }));
}
